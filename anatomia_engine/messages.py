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
        pieces = []
        for literal, name, _, _ in string.Formatter().parse(self.text):
            pieces.append(literal)
            # a field's value is known only where the message is raised
            if name is not None:
                pieces.append("…")
        return "".join(pieces)


def load(path: Path) -> tuple[tuple[str, ...], dict[str, Message]]:
    """The groups and the messages of the catalogue at `path`."""
    return parse(path.read_text(encoding="utf-8"))


def parse(text: str) -> tuple[tuple[str, ...], dict[str, Message]]:
    """The groups and the messages of a catalogue's YAML `text`."""
    # libyaml where it is installed: every build and every module's run reads this
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(text, Loader=loader)
    return tuple(data["groups"]), {entry["id"]: Message(**entry) for entry in data["messages"]}


# the file's bytes -> its (groups, messages): read again only when the file changes
_loaded: dict[bytes, tuple] = {}


def _catalogue() -> tuple[tuple[str, ...], dict[str, Message]]:
    """The catalogue, read when first used and again when the file changes; each use records the file
    as read (deps.note), so a module run that shows no message does not depend on it: an edit of one
    message re-runs the modules that show messages, not every module."""
    data = PATH.read_bytes()
    if data not in _loaded:
        # one version at a time: under `make serve` the file is edited again and again
        _loaded.clear()
        _loaded[data] = parse(data.decode("utf-8"))
    deps.note(PATH)
    return _loaded[data]


# Module attributes read on use rather than at import: importing the engine (every module's run
# does) must not make the catalogue an input of runs that show no message.
def __getattr__(name: str):
    """`GROUPS` and `CATALOGUE`, read on use (PEP 562): see _catalogue."""
    if name == "GROUPS":
        return _catalogue()[0]
    if name == "CATALOGUE":
        return _catalogue()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def fields(id: str) -> set[str]:
    """The names of the fields the message `id`'s text fills (KeyError for an unknown id)."""
    parsed = string.Formatter().parse(_catalogue()[1][id].text)
    return {name for _, name, _, _ in parsed if name is not None}


def text(id: str, **fields) -> str:
    """The message `id` with its fields filled (KeyError for an unknown id or a missing field)."""
    # a KeyError, not a fallback text: a typo in an id must fail where it is written, in the tests
    return _catalogue()[1][id].text.format(**fields)
