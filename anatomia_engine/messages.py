"""The project's messages in one catalogue, messages.yaml beside this file: id -> text, cause, fix.

Code raises through `text(id, **fields)`, and the contributor page shows the catalogue's tables
(figures_src/engine_messages.py). `by` names who writes a message the engine does not raise.
"""

import dataclasses
import string
from pathlib import Path

import yaml

from anatomia_engine import deps

PATH = Path(__file__).with_name("messages.yaml")


@dataclasses.dataclass(frozen=True)
class Message:
    id: str
    group: str
    text: str  # str.format template; its fields are filled where the message is raised
    cause: str
    fix: str
    by: str = "engine"

    def example(self) -> str:
        """The text as the contributor page shows it: every field as '…'."""
        return "".join(literal + ("…" if name is not None else "")
                       for literal, name, _, _ in string.Formatter().parse(self.text))


def load(path: Path) -> tuple[tuple[str, ...], dict[str, Message]]:
    """The groups and the messages of the catalogue at `path`."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)   # libyaml: every build and worker reads this
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    return tuple(data["groups"]), {entry["id"]: Message(**entry) for entry in data["messages"]}


GROUPS, CATALOGUE = load(PATH)
deps.note(PATH)   # an input of every module run, as the engine's code is (the warm worker reads no files)


def text(id: str, **fields) -> str:
    """The message `id` with its fields filled (KeyError for an unknown id or a missing field)."""
    return CATALOGUE[id].text.format(**fields)
