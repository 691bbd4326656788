"""The fixture project (tests/site/fixture) built with a contributor's mistakes: an expression that
would hang the build, a number written into a script, a javascript: link; and a value a script
receives as JSON, which no text can end. The renderer's rules are tested on strings in
tests/unit/test_output_contexts.py; these check that a real build applies them."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers import fixture_project, mkdocs_build

HOSTILE = 'a"b</script><script>alert(2)</script><!--<script>'
LABEL = f'''

@values
def labels():
    return {{"label": {HOSTILE!r}, "address": "javascript:alert(1)"}}
'''


def _project(tmp_path: Path, *lines: str) -> tuple[Path, int]:
    """The fixture project with `lines` appended to docs/index.md; the line number of the first."""
    project = fixture_project(tmp_path / "proj")
    demo = project / "figures_src" / "demo.py"
    demo.write_text(demo.read_text(encoding="utf-8") + LABEL, encoding="utf-8")
    page = project / "docs" / "index.md"
    text = page.read_text(encoding="utf-8").rstrip("\n") + "\n\n"
    page.write_text(text + "\n".join(lines) + "\n", encoding="utf-8")
    return project, text.count("\n") + 1


@pytest.mark.parametrize(("line", "refusal"), [
    ("Liczba {{ weight ** (10 ** 10) // 1 + 10 ** (10 ** 10) }}.", "binary digits"),   # hangs without a limit
    ('Tekst {{ "x" * 10 ** 9 | text }}.', "characters or items"),               # a gigabyte of text
    ("<script>var w = [{{ pair[0] }}, {{ pair[1] }}];</script>", "| json }}"),
    ("Zobacz [to](javascript:alert(1)).", "'javascript:'"),
    ('Zobacz <a href="{{ address }}">to</a>.', "runs code"),   # the final scan: no line wrote it
])
def test_a_build_with_the_mistake_stops_naming_the_line(tmp_path, line, refusal):
    project, number = _project(tmp_path, line)
    proc = mkdocs_build(project, tmp_path / "site", timeout=300)   # a hang fails here, by its time limit
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output[-3000:]
    where = "docs/index.md:" if refusal == "runs code" else f"docs/index.md:{number}:"
    assert where in output and refusal in output, output[-3000:]


class _Scripts(HTMLParser):
    """The bodies of a page's inline scripts, as a browser's tokenizer splits them."""

    def __init__(self):
        super().__init__()
        self.open, self.bodies = False, []

    def handle_starttag(self, tag, attrs):
        if tag == "script" and not dict(attrs).get("src"):
            self.open = True
            self.bodies.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self.open = False

    def handle_data(self, data):
        if self.open:
            self.bodies[-1] += data


def test_a_value_reaches_a_script_as_json_that_no_text_can_end(tmp_path):
    script = "<script>var demo = {pair: {{ pair | json }}, label: {{ label | json }}};</script>"
    project, _ = _project(tmp_path, script)
    proc = mkdocs_build(project, tmp_path / "site", timeout=300)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    parser = _Scripts()
    parser.feed((tmp_path / "site" / "index.html").read_text(encoding="utf-8"))
    ours = [body for body in parser.bodies if "var demo" in body]
    assert len(ours) == 1, parser.bodies
    literal = re.fullmatch(r"var demo = \{pair: (.*), label: (.*)\};", ours[0].strip())
    assert json.loads(literal[2]) == HOSTILE
    assert [round(x, 6) for x in json.loads(literal[1])] == [0.354344, 0.645656]
    assert not any("alert(2)" in body and "var demo" not in body for body in parser.bodies)
