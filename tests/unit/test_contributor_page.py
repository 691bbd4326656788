"""The contributor page lists every build error with its real message, from one catalogue.

The page's error tables are generated from anatomia_engine/messages.yaml, so they cannot drift; the
tests below check that the page writes no table of errors by hand and that code and catalogue agree
by message id: every id the code raises is catalogued (with the fields its text needs), and every
catalogued message is raised somewhere, unless its `by:` names who else writes it (MkDocs, the
Makefile, .ci/). The code is read as a syntax tree: a message is raised where its id is the first
argument of a call (`EngineError("id", …)`, `messages.text("id", …)`, hermetic's `refuse("id", …)`).
"""

from __future__ import annotations

import ast
import dataclasses
import string
from pathlib import Path

import pytest
import yaml

from anatomia_engine import messages

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "jak-dodac-wartosc.md"
SECTION = "## Co znaczy każdy błąd"
# The calls that raise or write a catalogued message by its id (the first argument). Their other
# keywords are the message's fields, but for these, which EngineError takes for itself.
RAISING = {"EngineError", "Refused", "text", "refuse", "_refusing"}
OWN_KEYWORDS = {"where", "causes", "at", "detail"}


def _name(call: ast.Call) -> str | None:
    """The called function's name: `f(...)` and `x.f(...)` are both `f`."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _sources() -> list[Path]:
    """The engine's code and figures_src's (its shared charts raise catalogued messages)."""
    return sorted([*ROOT.glob("anatomia_engine/**/*.py"), *ROOT.glob("figures_src/**/*.py")])


def _calls() -> list[tuple[str, str, str, set[str] | None]]:
    """(file:line, called name, id, keyword names or None when `**fields` is passed) of every call whose
    first argument is a string literal."""
    out = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            first = node.args[0]
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                continue
            keywords = {k.arg for k in node.keywords}
            if None in keywords:
                keywords = None
            out.append((f"{path.relative_to(ROOT)}:{node.lineno}", _name(node), first.value, keywords))
    return out


CALLS = _calls()
RAISED = [call for call in CALLS if call[1] in RAISING]


def test_the_page_writes_no_table_of_errors_by_hand():
    page = PAGE.read_text(encoding="utf-8")
    start = page.index(SECTION)
    section = page[start:page.find("\n## ", start + len(SECTION))]
    assert not [line for line in section.splitlines() if line.startswith("|")], "use the catalogue"


@pytest.mark.parametrize(("where", "called", "id", "keywords"), RAISED,
                         ids=[f"{w}:{i}" for w, _, i, _ in RAISED])
def test_the_code_raises_only_catalogued_messages_with_their_fields(where, called, id, keywords):
    assert id in messages.CATALOGUE, f"{where}: message {id!r} is not in anatomia_engine/messages.yaml"
    if keywords is None:
        return   # its fields are passed on as a mapping: checked when it is raised (a KeyError)
    needed = messages.fields(id)
    assert needed - {"where"} <= keywords, f"{where}: {id!r} needs {sorted(needed)}"
    assert keywords - OWN_KEYWORDS <= needed, f"{where}: {id!r} has no field {sorted(keywords - needed)}"


def test_every_catalogued_message_is_raised_somewhere():
    raised = {id for _, called, id, _ in RAISED}
    unused = [m.id for m in messages.CATALOGUE.values() if m.id not in raised and m.by == "engine"]
    assert not unused, f"catalogued but never raised by id (drop them or raise them): {unused}"


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
