"""The build pipeline on a small project of its own: values, figures, errors, staleness, serve.

Each test builds the fixture project (tests/site/fixture: two pages, one figures module, a
one-function attn_core) with the real plugin and plot styles, so failures point at the pipeline,
not at articles.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import fixture_project, http_get, message_pattern, mkdocs_build, mkdocs_serve, wait_for


def build_ok(project: Path, site: Path) -> subprocess.CompletedProcess:
    proc = mkdocs_build(project, site)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def first_build(tmp_path_factory) -> tuple[Path, Path]:
    """The project after one cold build (its computations kept in `.cache/`), and that site."""
    folder = tmp_path_factory.mktemp("pipeline")
    root = fixture_project(folder / "proj")
    build_ok(root, folder / "site")
    return root, folder / "site"


@pytest.fixture
def project(first_build, tmp_path) -> Path:
    """A copy of the built project with its `.cache/`: a build reruns only what an edit made stale."""
    return shutil.copytree(first_build[0], tmp_path / "proj", symlinks=True)


def test_values_figures_and_tables_reach_the_page(first_build):
    root, site = first_build
    html = (site / "index.html").read_text()
    assert ('<span class="num" tabindex="0" data-exact="0,6456563" data-source="figures_src/demo.py" '
            'data-function="numbers">0,65</span>') in html
    assert r"w = 0{,}646" in html
    assert "Waga „chases” jest większa niż „cat”." in html
    assert re.search(r'<td style="text-align: left;">cat</td>\s*<td style="text-align: right;">'
                     r'<span class="num" tabindex="0" data-exact="0,3543437" data-what="p \(token: cat\)" '
                     r'data-source="figures_src/demo.py" data-function="numbers">35,4%</span></td>', html)
    assert not re.search(r'<span class="num"[^>]*title=', html)
    for name in ("bars-light.svg", "bars-dark.svg", "bars.csv"):
        assert (site / "figures" / "demo" / name).exists(), name
    assert 'src="figures/demo/bars-light.svg#only-light"' in html
    assert 'alt="Dwa słupki: cat i chases"' in html
    assert "<details" in html and 'href="figures/demo/bars.csv"' in html
    csv = (site / "figures" / "demo" / "bars.csv").read_text()
    assert csv == "token,waga\ncat,0.35434369377420455\nchases,0.6456563062257954\n"
    assert not list((root / "docs").rglob("*.svg")), "generated files must not land in docs/"


def test_svgs_keep_text_and_no_date(first_build):
    """Byte-identical SVGs from a cold build: tests/site/test_reproducible_build.py (the real site)."""
    for name in ("bars-light.svg", "bars-dark.svg"):
        a = (first_build[1] / "figures" / "demo" / name).read_bytes()
        assert b"<text" in a and b"chases" in a and b"<dc:date>" not in a
        ticks = re.findall(r">\s*([0-9\u2212.,]+)\s*</text>", a.decode())
        assert "0,2" in ticks and not any("." in t for t in ticks), ticks


def test_editing_a_module_reruns_only_that_module(project, tmp_path):
    (project / "figures_src" / "other.py").write_text(
        "from anatomia_engine.kit import values\n\n@values\ndef v():\n    return {'x': 1.0}\n")
    proc = build_ok(project, tmp_path / "b")
    assert "ran other" in proc.stderr and "ran demo" not in proc.stderr
    page = project / "docs" / "index.md"
    page.write_text(page.read_text() + "\nDopisek.\n")
    proc = build_ok(project, tmp_path / "c")
    assert "ran " not in proc.stderr, "a Markdown-only edit must not re-run computations"
    demo = project / "figures_src" / "demo.py"
    demo.write_text(demo.read_text().replace("0.6456563062257954])", "0.9])"))
    proc = build_ok(project, tmp_path / "d")
    assert "ran demo" in proc.stderr and "other" not in proc.stderr.split("ran ")[1].split(" in ")[0]
    assert ">0,90</span>" in (tmp_path / "d" / "index.html").read_text()


def test_changing_attn_core_changes_the_page(project, tmp_path):
    (project / "attn_core" / "__init__.py").write_text("def scale():\n    return 0.5\n")
    build_ok(project, tmp_path / "b")
    assert ">0,32</span>" in (tmp_path / "b" / "index.html").read_text()  # 0.6457 * 0.5


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda p: p.replace("{{ table }}", "Nieznana {{ wieght }}."),
     r"docs/index\.md:10: \{\{ wieght \}\}: unknown value 'wieght'; did you mean 'weight'"),
    (lambda p: p.replace("weight > pair[0]", "weight < pair[0]"),
     r"docs/index\.md:8: false claim: „Waga „chases” jest większa niż „cat”\.” — the condition "
     r"'weight < pair\[0\]' does not hold \(weight = 0\.6456563062257954; pair = \[0\.35"),
    (lambda p: p.replace('figure("bars")', 'figure("brak")'),
     r"docs/index\.md:12: .*unknown value 'brak'"),
])
def test_page_errors_stop_the_build_naming_the_place(project, tmp_path, edit, expected):
    """Broken links and images: tests/site/test_links.py (each kind at its line, in one build)."""
    page = project / "docs" / "index.md"
    page.write_text(edit(page.read_text()))
    proc = mkdocs_build(project, tmp_path / "site")
    assert proc.returncode != 0
    assert re.search(expected, proc.stderr), proc.stderr[-3000:]


MODULE_ERRORS = [   # (module, its source from demo.py's, the message); each a module of its own
    ("zero", lambda s: s.replace("ax.bar(", "1 / 0\n    ax.bar("),
     r"figures_src/zero\.py failed:\nin figures_src\.zero\.bars\(style='neutral'\):\nTraceback.*"
     r"ZeroDivisionError"),
    ("nan", lambda s: s.replace('"weight": WEIGHTS[1] * scale()', '"weight": float("nan")'),
     r"figures_src/nan\.py: numbers\(\) returned 'weight' with NaN: a published number must be finite"),
    ("missing", lambda s: s.replace("import numpy as np", "import numpy as np\nimport no_such_module"),
     r"in figures_src\.missing \(import\).*ModuleNotFoundError: No module named 'no_such_module'"),
]


def test_module_errors_stop_the_build_naming_module_and_function(project, tmp_path):
    """The runner reports every failed module of a build: one build for all of them."""
    demo = (project / "figures_src" / "demo.py").read_text()
    for name, edit, _ in MODULE_ERRORS:
        (project / "figures_src" / f"{name}.py").write_text(edit(demo))
    proc = mkdocs_build(project, tmp_path / "site")
    assert proc.returncode != 0
    for name, _, expected in MODULE_ERRORS:
        assert re.search(expected, proc.stderr, re.DOTALL), (name, proc.stderr[-3000:])


def save(path: Path, text: str) -> None:
    """Write `path` in one step, as editors save: a plain write can reach the watcher as two
    changes (emptied, then written), and so as two rebuilds."""
    draft = path.parents[2] / f"{path.name}.draft"   # outside the folders serve watches
    draft.write_text(text)
    draft.replace(path)


def test_serve_reloads_changed_attn_core_and_survives_errors(tmp_path):
    project = fixture_project(tmp_path / "proj")
    nan = "figures_src/demo.py: numbers() returned 'weight' with NaN"
    with mkdocs_serve(project) as (server, url, output):
        assert wait_for(lambda: ">0,65</span>" in http_get(url)), "server did not start"
        core = project / "attn_core" / "__init__.py"
        save(core, "def scale():\n    return 0.5\n")
        assert wait_for(lambda: ">0,32</span>" in http_get(url)), "edit of attn_core was not picked up"
        save(core, "def scale():\n    return float('nan')\n")
        assert wait_for(lambda: nan in "".join(output)), "the failing rebuild was not reported"
        assert server.poll() is None, "a failing rebuild must not kill the server"
        save(core, "def scale():\n    return 2.0\n")
        assert wait_for(lambda: ">1,29</span>" in http_get(url)), "server did not recover"
    log = "".join(output)
    # One build at start and one per edit (three edits): the cache never triggers a rebuild loop.
    assert 2 <= log.count("Building documentation") <= 4, log[-3000:]


def test_a_placeholder_in_a_navigation_title_stops_the_build(project, tmp_path):
    """The theme shows mkdocs.yml's titles (and front matter tags) as written: the build names the text."""
    config = project / "mkdocs.yml"
    config.write_text(config.read_text() + "nav: [index.md, 'Waga {{ weight }}': inne.md]\n")
    proc = mkdocs_build(project, tmp_path / "site")
    assert proc.returncode != 0
    outside = message_pattern("outside_body", where="docs/index.md", mark="{{", snippet="{{ weight }}")
    assert outside.search(proc.stderr), proc.stderr[-3000:]


def test_front_matter_and_computed_are_checked_on_every_page(project, tmp_path):
    other = project / "docs" / "inne.md"
    other.write_text("---\ncomputed: [no_such_module]\n---\n# Inna\n\nBez obliczeń.\n")
    proc = mkdocs_build(project, tmp_path / "a")
    assert proc.returncode != 0
    unknown = message_pattern("fm_unknown_module", where="docs/inne.md:2", module="no_such_module")
    assert unknown.search(proc.stderr), proc.stderr[-3000:]
    other.write_text("---\ntitle: [niedomknięte\n---\n# Inna\n")
    proc = mkdocs_build(project, tmp_path / "b")
    assert proc.returncode != 0
    # at the line where YAML's parser stopped
    invalid = re.escape("docs/inne.md:") + r"\d+: " + message_pattern("fm_yaml").pattern
    assert re.search(invalid, proc.stderr), proc.stderr[-3000:]


def test_figure_inside_a_collapsible_block_keeps_its_table(project, tmp_path):
    page = project / "docs" / "index.md"
    page.write_text(page.read_text().replace('{{ figure("bars") }}',
                                             '??? note "Dla dociekliwych"\n\n    {{ figure("bars") }}'))
    build_ok(project, tmp_path / "site")
    html = (tmp_path / "site" / "index.html").read_text()
    block = html[html.index("Dla dociekliwych"):]
    assert "<table>" in block and "| chases |" not in block
    assert '<figure class="computed-figure" id="fig-demo-bars">' in block
    assert "<figcaption>" in block


# --- the same failure classes on a copy of the real project ------------------------------

@pytest.fixture(scope="module")
def real(tmp_path_factory) -> Path:
    from helpers import copy_project

    return copy_project(tmp_path_factory.mktemp("real") / "proj")


@pytest.mark.parametrize(("page", "edit", "expected"), [
    ("krok-po-kroku.md", "Tekst {{ weights[1][1] | dec(weights[1][1]) }}.",
     r"{line}: \{\{ weights\[1\]\[1\] \| dec\(weights\[1\]\[1\]\) \}\}: cannot show this value with "
     r"'dec': the number of decimal places must be a whole number"),
    ("krok-po-kroku.md", "Tekst {% claim weights[0][0] == 1 %}zdanie bez końca.\n\n"
                         "{% claim weights[0][0] == 1 %}Drugie.{% endclaim %}",
     r"{line}: \{% claim %\} is never closed by \{% endclaim %\}"),
])
def test_real_pages_stop_the_build_at_file_line(real, tmp_path, page, edit, expected):
    path = real / "docs" / page
    original = path.read_text()
    try:
        path.write_text(original.rstrip("\n") + "\n\n" + edit + "\n")
        line = len(original.rstrip("\n").splitlines()) + 2
        proc = mkdocs_build(real, tmp_path / "site")
    finally:
        path.write_text(original)
    assert proc.returncode != 0
    pattern = re.escape(f"docs/{page}:") + expected.replace("{line}", str(line))
    assert re.search(pattern, proc.stderr), proc.stderr[-3000:]


@pytest.mark.parametrize(("raw", "expected"), [
    ("---\ncomputed: [no_such_module]\n---\n\n# Strona\n",
     r"docs/{page}:2: front matter 'computed' names unknown module 'no_such_module'"),
])
def test_real_front_matter_is_checked_on_a_page_without_placeholders(real, tmp_path, raw, expected):
    page = "posty/tagi.md"
    path = real / "docs" / page
    original = path.read_text()
    assert "{{" not in original
    try:
        path.write_text(raw + original.split("---", 2)[-1] if original.startswith("---") else raw + original)
        proc = mkdocs_build(real, tmp_path / "site")
    finally:
        path.write_text(original)
    assert proc.returncode != 0
    assert re.search(expected.replace("{page}", re.escape(page)), proc.stderr), proc.stderr[-3000:]
