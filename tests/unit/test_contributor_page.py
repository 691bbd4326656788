"""The contributor page lists every build error with its real message, from one catalogue.

The page's error tables are generated from anatomia_engine/messages.yaml, so they cannot drift; the
tests below check that the code raises only catalogued messages with their fields, that the page
writes no table of errors by hand, and that every catalogued message is produced somewhere: raised
through `messages.text(id)`, or (for a module that still writes its own f-string, the Makefile and
.ci/) found in the code by a fuzzy match. For the match we take the message's fixed text as the page
shows it: the text is cut at every `…` (a field) and every piece of at least MIN_FIXED characters
must occur in a string of anatomia_engine/ (other than the catalogue), .ci/ or the
Makefile. A field of an f-string (`{name}`) or a `%s` in a log call stands for any one word, so
`build stopped; site/ was left` matches f"build stopped; {site_name}/ …". Whitespace is
normalised; implicitly concatenated literals are joined (the parser does that).
"""

from __future__ import annotations

import ast
import dataclasses
import re
import string
from pathlib import Path

import pytest
import yaml

from anatomia_engine import messages

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "jak-dodac-wartosc.md"
SECTION = "## Co znaczy każdy błąd"

MIN_FIXED = 8  # shorter pieces say too little to be checked
PLACEHOLDER = re.compile(r"…")
FIELD = None  # a hole in a source string: an f-string field or a %-format


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def fixed_pieces(message: str) -> list[str]:
    """The pieces of the message's fixed text long enough to check."""
    return [p for p in (_norm(p).strip() for p in PLACEHOLDER.split(message)) if len(p) >= MIN_FIXED]


def in_the_code(message: str) -> bool:
    """Does the code write every long enough piece of `message`'s fixed text?"""
    pieces = fixed_pieces(message)
    return bool(pieces) and all(produced(p, TEMPLATES) for p in pieces)


def _templates() -> list[list]:
    """Every string of the checked sources as a list of literal pieces and FIELD holes."""
    out: list[list] = []
    for path in sorted([*ROOT.glob("anatomia_engine/**/*.py"), *ROOT.glob(".ci/*.py")]):
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


TEMPLATES = _templates()


def test_the_page_writes_no_table_of_errors_by_hand():
    page = PAGE.read_text(encoding="utf-8")
    start = page.index(SECTION)
    section = page[start:page.find("\n## ", start + len(SECTION))]
    assert not [line for line in section.splitlines() if line.startswith("|")], "use the catalogue"


@pytest.mark.parametrize("real, changed", [
    ("old_python", "Python 3.11.5+ is required (found …)"),
    ("build_stopped", "build stopped; … was kept as it was"),
    ("build_failed", "build failed; … was kept as it was"),
])
def test_a_changed_message_is_caught(real, changed):
    """The fuzzy match is not vacuous: the catalogue's text is found, a reworded one is not."""
    assert in_the_code(messages.CATALOGUE[real].example())
    assert not in_the_code(changed)


def _raised() -> list[tuple[str, str, set[str]]]:
    """(file:line, message id, keyword names) of every messages.text(...) call of the engine and of
    figures_src (its shared charts raise catalogued messages)."""
    out = []
    for path in sorted([*ROOT.glob("anatomia_engine/**/*.py"), *ROOT.glob("figures_src/**/*.py")]):
        if path.name == "errors.py":   # EngineError itself formats whichever id it is given
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            catalogue_text = (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                              and node.func.attr == "text"
                              and isinstance(node.func.value, ast.Name)
                              and node.func.value.id in ("M", "messages"))
            engine_error = (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                            and node.func.id == "EngineError")
            if catalogue_text or engine_error:
                literal = node.args and isinstance(node.args[0], ast.Constant)
                assert literal, f"{path}:{node.lineno}: a literal id"
                fields = {k.arg for k in node.keywords}
                if engine_error:   # its own keywords: the place and the errors it carries
                    fields -= {"where", "causes"}
                out.append((f"{path.relative_to(ROOT)}:{node.lineno}", node.args[0].value, fields))
    return out


RAISED = _raised()


@pytest.mark.parametrize(("where", "id", "fields"), RAISED, ids=[f"{w}:{i}" for w, i, _ in RAISED])
def test_the_code_raises_only_catalogued_messages_with_their_fields(where, id, fields):
    assert id in messages.CATALOGUE, f"{where}: message {id!r} is not in anatomia_engine/messages.yaml"
    needed = {f for _, f, _, _ in string.Formatter().parse(messages.CATALOGUE[id].text) if f}
    assert fields == needed, f"{where}: {id!r} needs {sorted(needed)}"


def test_every_catalogued_message_is_produced_somewhere():
    raised = {id for _, id, _ in RAISED}
    unused = [m.id for m in messages.CATALOGUE.values() if m.id not in raised and m.by != "mkdocs"
              and not in_the_code(m.example())]
    assert not unused, f"catalogued but never produced (drop them or raise them): {unused}"


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
    shown = {group: [html.unescape(row[0]) for row in tables[f"errors_{group}"].rows]
             for group in messages.GROUPS}
    for m in messages.CATALOGUE.values():
        assert f"<code>{m.example()}</code>" in shown[m.group], m.id


def _catalogue(tmp_path, entry: str) -> Path:
    """A catalogue file of one valid message followed by `entry` (YAML lines of a second one)."""
    path = tmp_path / "messages.yaml"
    path.write_text("groups: [page]\nmessages:\n- {id: a, group: page, text: 'x {n}', cause: c, fix: f}\n"
                    + entry, encoding="utf-8")
    return path


def catalogue_problems(path: Path) -> list[str]:
    """What is wrong with the catalogue at `path`, each problem naming its entry."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    keys = [f.name for f in dataclasses.fields(messages.Message)]
    problems, ids = [], set()
    for number, entry in enumerate(data["messages"], start=1):
        where = f"message {number} ({entry.get('id')!r})"
        unknown = sorted(set(entry) - set(keys))
        missing = [k for k in keys[:-1] if not isinstance(entry.get(k), str) or not entry[k].strip()]
        if unknown or missing:
            problems.append(f"{where}: unknown keys {unknown}, missing or empty fields {missing}")
        if entry.get("id") in ids:
            problems.append(f"{where}: the id {entry['id']!r} is used twice")
        ids.add(entry.get("id"))
        if entry.get("group") not in data["groups"]:
            problems.append(f"{where}: unknown group {entry.get('group')!r}")
        try:
            list(string.Formatter().parse(str(entry.get("text"))))
        except ValueError:
            problems.append(f"{where}: the text is not a str.format template")
    return problems


def test_the_catalogue_is_well_formed():
    assert catalogue_problems(messages.PATH) == []


@pytest.mark.parametrize("entry, problem", [
    ("- {id: b, group: page, text: t, cause: c, fix: f, fixx: g}\n", "unknown keys ['fixx']"),
    ("- {id: b, group: page, text: t, cause: c}\n", "missing or empty fields ['fix']"),
    ("- {id: b, group: page, text: t, cause: ' ', fix: f}\n", "missing or empty fields ['cause']"),
    ("- {id: a, group: page, text: t, cause: c, fix: f}\n", "the id 'a' is used twice"),
    ("- {id: b, group: pgae, text: t, cause: c, fix: f}\n", "unknown group 'pgae'"),
    ("- {id: b, group: page, text: 'x {n', cause: c, fix: f}\n", "not a str.format template"),
])
def test_a_damaged_catalogue_is_found_naming_the_entry(tmp_path, entry, problem):
    problems = catalogue_problems(_catalogue(tmp_path, entry))
    assert len(problems) == 1 and problems[0].startswith("message 2 (") and problem in problems[0], problems


def test_a_valid_catalogue_loads(tmp_path):
    entry = "- {id: b, group: page, text: t, cause: c, fix: f, by: x}\n"
    groups, catalogue = messages.load(_catalogue(tmp_path, entry))
    assert groups == ("page",) and catalogue["a"].example() == "x …" and catalogue["b"].by == "x"


def test_the_catalogue_is_an_input_of_a_run_that_reads_it_not_of_one_that_imports_the_engine(tmp_path):
    """Importing the engine (as the warm worker does) does not make the catalogue an input, so an edited
    message re-runs no module that shows none; reading a message or the catalogue records it."""
    import subprocess
    import sys

    def recorded(use: str) -> str:
        script = ("import json, sys; from pathlib import Path; from anatomia_engine import deps; "
                  f"deps.start(Path(sys.argv[1])); import anatomia_engine.messages as M; {use}; "
                  "print(json.dumps(deps.snapshot(Path(sys.argv[1]))['files']))")
        return subprocess.run([sys.executable, "-c", script, str(ROOT)], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout

    assert "anatomia_engine/messages.yaml" not in recorded("pass")
    assert "anatomia_engine/messages.yaml" in recorded("M.text('store_damaged', where='', path='x')")
    assert "anatomia_engine/messages.yaml" in recorded("M.CATALOGUE")
