"""The contributor page lists every build error with its real message.

The engine's catalogue (anatomia_engine/messages.py) is the page's source for the messages of the
placeholders, claims, front matter, module values and the lab: its tables are generated, so they
cannot drift; the tests below check that the code raises only catalogued messages, that every
catalogued message is raised somewhere, and that the page shows every group's table.

The rows still written by hand (the runner, links, notebooks, KaTeX, publishing) are checked
against the code by a fuzzy match: for each backticked message in the first column of those tables we take its fixed text: the
location (`docs/strona.md:12:`, `figures_src/m.py:`) is dropped and the text is cut at every `…`
and quoted placeholder (`'x'`, `'…'`); the first piece of at least MIN_FIXED characters (normally
the beginning of the message) must occur in a string of anatomia_engine/, hooks/, .ci/ or the
Makefile. A field of an f-string (`{name}`) or a `%s` in a log call stands for any one word of
the page's example, so `build stopped; site/ was left` matches f"build stopped; {site_name}/ …".
Whitespace is normalised; implicitly concatenated literals are joined (the parser does that).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "jak-dodac-wartosc.md"
SECTION = "## Co znaczy każdy błąd"

# Messages printed by MkDocs itself (its link validation and strict mode), not by this project.
MKDOCS_MESSAGES = ("Doc file '", "Aborted with ")
MIN_FIXED = 8  # shorter pieces say too little to be checked

LOCATION = re.compile(r"^(?:WARNING\s*-\s*)?(?:docs/\S+?|figures_src/\S+?\.py)(?::\d+)?:?\s+")
# An ellipsis, a short example in quotes ('x', 'm') or a quoted text with an ellipsis ('{% claimm … %}').
PLACEHOLDER = re.compile(r"…|'[^'\s]{0,2}'|'[^'…]*…[^']*'")
HTML_TAG = re.compile(r'^<\w+ \w+="[^"]*">:\s*')  # the link checker's `<a href="…">: `
FIELD = None  # a hole in a source string: an f-string field or a %-format


def table_messages(text: str) -> list[str]:
    """Backticked texts in the first column of every table row of the errors section."""
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start:end if end >= 0 else len(text)]
    out = []
    for line in section.splitlines():
        if line.startswith("| `"):
            first = re.split(r"(?<!\\)\|", line)[1]
            out += [m.group(1) for m in re.finditer(r"`([^`]+)`", first)]
    return out


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def fixed_text(message: str) -> str:
    """The first piece of the message's fixed text long enough to check ('' if none)."""
    message = HTML_TAG.sub("", LOCATION.sub("", message.strip(), count=1), count=1)
    pieces = [_norm(p).strip() for p in PLACEHOLDER.split(message)]
    return next((p for p in pieces if len(p) >= MIN_FIXED), "")


def _templates() -> list[list]:
    """Every string of the checked sources as a list of literal pieces and FIELD holes."""
    out: list[list] = []
    for path in sorted([*ROOT.glob("anatomia_engine/**/*.py"), *ROOT.glob("hooks/*.py"),
                        *ROOT.glob(".ci/*.py")]):
        nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
        parts = {id(v) for n in nodes if isinstance(n, ast.JoinedStr) for v in n.values}
        for node in nodes:
            if id(node) in parts:  # a literal part of an f-string is not a string of its own
                continue
            if isinstance(node, ast.JoinedStr):
                pieces: list = []
                for part in node.values:
                    if isinstance(part, ast.Constant):
                        pieces.append(_norm(part.value))
                    else:
                        pieces.append(FIELD)
                out.append(pieces)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                chunks = re.split(r"%[sdr]", node.value)
                pieces = [FIELD] * (2 * len(chunks) - 1)
                pieces[::2] = [_norm(c) for c in chunks]
                out.append(pieces)
    for path in [ROOT / "Makefile", ROOT / ".ci" / "run"]:
        out.append([_norm(path.read_text(encoding="utf-8"))])
    return out


def _match(text: str, i: int, pieces: list, j: int, k: int, lit: int) -> bool:
    """Does text[i:] continue the template `pieces` from piece j, offset k, with at least
    MIN_FIXED literal characters matched in all (`lit` so far)?"""
    while i < len(text):
        if j == len(pieces):  # the rest of the message is composed elsewhere (a hint, a suffix)
            return lit >= MIN_FIXED
        if pieces[j] is FIELD:  # any text, up to where the next literal piece matches
            if j == len(pieces) - 1 or not re.search(r"\s", text[i:]):  # ends in a variable part
                return lit >= MIN_FIXED
            return any(_match(text, n, pieces, j + 1, 0, lit) for n in range(i, len(text)))
        rest = pieces[j][k:]
        n = min(len(rest), len(text) - i)
        if text[i:i + n] != rest[:n]:
            return False
        i, j, k, lit = i + n, j + 1, 0, lit + n
    return lit >= MIN_FIXED


def produced(text: str, templates: list[list]) -> bool:
    """Does `text` occur in some template: from inside a literal piece, or from a field that
    stands for its first characters? A field never swallows the end of `text` unless it ends
    the template, so a changed word after a field is caught."""
    for pieces in templates:
        for j, piece in enumerate(pieces):
            if piece is FIELD:
                if j + 1 < len(pieces) and any(_match(text, n, pieces, j + 1, 0, 0)
                                               for n in range(1, len(text))):
                    return True
                continue
            k = piece.find(text[0])
            while k >= 0:
                if _match(text, 0, pieces, j, k, 0):
                    return True
                k = piece.find(text[0], k + 1)
    return False


MESSAGES = table_messages(PAGE.read_text(encoding="utf-8"))
TEMPLATES = _templates()


def test_the_page_has_error_tables():
    assert len(MESSAGES) >= 40, MESSAGES


@pytest.mark.parametrize("message", [m for m in MESSAGES if not m.startswith(MKDOCS_MESSAGES)])
def test_message_is_produced_by_the_code(message):
    fixed = fixed_text(message)
    assert fixed, f"{message!r} has no fixed text of {MIN_FIXED}+ characters to check; show more of it"
    assert produced(fixed, TEMPLATES), f"the page lists {message!r}, but no code produces {fixed!r}"


@pytest.mark.parametrize("real, changed", [
    ("Plot.alt must describe the figure for readers who cannot see it",
     "Plot.alt must describe the figure for readers who cannot view it"),
    ("build stopped; site/ was left as it was", "build stopped; site/ was kept as it was"),
    ("build failed; site/ was left as it was", "build failed; site/ was kept as it was"),
])
def test_a_changed_message_is_caught(real, changed):
    """The check is not vacuous: the page's message is found, a reworded one is not."""
    assert real in MESSAGES
    assert produced(fixed_text(real), TEMPLATES)
    assert not produced(fixed_text(changed), TEMPLATES)


# --- the catalogue ------------------------------------------------------------------------------

from anatomia_engine import messages  # noqa: E402


def _raised() -> list[tuple[str, str, set[str]]]:
    """(file:line, message id, keyword names) of every messages.text(...) call of the engine."""
    out = []
    for path in sorted(ROOT.glob("anatomia_engine/**/*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "text"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in ("M", "messages")):
                assert node.args and isinstance(node.args[0], ast.Constant), f"{path}:{node.lineno}: a literal id"
                out.append((f"{path.relative_to(ROOT)}:{node.lineno}", node.args[0].value,
                            {k.arg for k in node.keywords}))
    return out


RAISED = _raised()


@pytest.mark.parametrize(("where", "id", "fields"), RAISED, ids=[f"{w}:{i}" for w, i, _ in RAISED])
def test_the_code_raises_only_catalogued_messages_with_their_fields(where, id, fields):
    assert id in messages.CATALOGUE, f"{where}: message {id!r} is not in anatomia_engine/messages.py"
    assert fields == set(messages.CATALOGUE[id].fields()), f"{where}: {id!r} needs {messages.CATALOGUE[id].fields()}"


def test_every_catalogued_message_is_raised_somewhere():
    unused = set(messages.CATALOGUE) - {id for _, id, _ in RAISED}
    assert not unused, f"catalogued but never raised (drop them or raise them): {sorted(unused)}"


def test_every_message_has_a_group_cause_and_fix():
    for m in messages.CATALOGUE.values():
        assert m.group in messages.GROUPS and m.cause.strip() and m.fix.strip(), m


def test_the_page_shows_the_table_of_every_group():
    page = PAGE.read_text(encoding="utf-8")
    for group in messages.GROUPS:
        assert f"{{{{ engine_messages.errors_{group} }}}}" in page, f"the page lists no table for {group!r}"


def test_the_generated_tables_hold_every_catalogued_message():
    import html

    from figures_src import engine_messages

    tables = engine_messages.catalogue()
    shown = {group: [html.unescape(row[0]) for row in tables[f"errors_{group}"].rows] for group in messages.GROUPS}
    for m in messages.CATALOGUE.values():
        assert f"<code>{m.example()}</code>" in shown[m.group], m.id
