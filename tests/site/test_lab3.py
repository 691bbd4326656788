"""Lab 3: the notebook page is executed at build time, light, and agrees with attn_core.

Page tests read the strict build of the real site (`built_site`). The plugin's notebook tests run
the anatomia plugin on small projects in tmp_path; builds of a broken copy use the real
venv's mkdocs (tests/helpers.py).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import numpy as np
import pytest
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose

from attn_core import future_mask, scaled_dot_product_attention
from figures_src import lab3
from helpers import copy_project, fixture_project, mkdocs_build, whole_page
from tests.lab3_page import (
    NUMBER,
    PAGE,
    PRINT_TOL,
    SOURCE,
    outputs,
    printed_block,
    printed_matrix,
    toy,
)

# --- helpers ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def page(built_site) -> BeautifulSoup:
    return BeautifulSoup(whole_page(built_site / PAGE), "html.parser")   # closed boxes put back


# --- the inputs module --------------------------------------------------------------------


# --- the notebook source ------------------------------------------------------------------


# --- the built page -----------------------------------------------------------------------

def test_page_shows_the_executed_weights_which_equal_attn_core(page):
    assert_allclose(printed_matrix(page, "oceny przed skalowaniem:"), toy().scores, atol=PRINT_TOL)
    assert_allclose(printed_matrix(page, "oceny po skalowaniu:"), toy().scaled, atol=PRINT_TOL)
    assert_allclose(printed_matrix(page, "wagi po softmax:"), toy().weights, atol=PRINT_TOL)
    assert_allclose(printed_matrix(page, "wyjście Y = AV:"), toy().output, atol=PRINT_TOL)


def test_page_shows_masked_weights_zero_above_the_diagonal(page):
    causal = toy(future_mask(3))
    printed = printed_matrix(page, "wagi z maską przyczynową:")
    assert_allclose(printed, causal.weights, atol=PRINT_TOL)
    assert np.all(printed[future_mask(3)] == 0)
    assert_allclose(printed.sum(axis=1), 1.0, atol=3 * PRINT_TOL)
    masked_scores = printed_matrix(page, "oceny po nałożeniu maski:")
    assert np.all(np.isneginf(masked_scores[future_mask(3)]))


def test_page_shows_the_leak_experiment_outcome(page):
    def first_row(x, causal):
        return scaled_dot_product_attention(x, x, x, mask=future_mask(3) if causal else None).output[0]

    masked = [float(v) for v in NUMBER.findall(printed_block(page, "z maską:").splitlines()[0])]
    unmasked = [float(v) for v in NUMBER.findall(printed_block(page, "bez maski:").splitlines()[0])]
    assert_allclose(masked[:2], first_row(lab3.LEAK_A, True), atol=PRINT_TOL)
    assert_allclose(masked[2:], first_row(lab3.LEAK_B, True), atol=PRINT_TOL)
    assert_allclose(unmasked[:2], first_row(lab3.LEAK_A, False), atol=PRINT_TOL)
    assert_allclose(unmasked[2:], first_row(lab3.LEAK_B, False), atol=PRINT_TOL)
    assert masked[:2] == masked[2:] and unmasked[:2] != unmasked[2:]


def test_page_shows_the_largest_weight_with_the_smallest_contribution(page):
    row = toy(future_mask(3)).weights[-1]                 # the last row sees every position
    j_top = int(np.argmax(row))
    values = np.array(lab3.TOY_X)
    values[j_top] *= lab3.WEAK_VALUE_SCALE
    sizes = row * np.linalg.norm(values, axis=1)          # |A[i, j] v_j|
    assert int(np.argmin(sizes)) == j_top and np.sort(row)[-2] < row[j_top]
    printed = NUMBER.findall(printed_block(page, "długości wkładów A[i, j]·v_j:").splitlines()[0])
    assert_allclose([float(x) for x in printed], sizes, atol=PRINT_TOL)
    assert f"pozycja {j_top} ma największą wagę i najmniejszy wkład: True" in "\n".join(outputs(page))


def test_page_shows_the_size_of_one_long_attention_matrix(page):
    elements = lab3.LONG_SEQ_LEN ** 2
    text = next(t for t in outputs(page) if "elementów," in t)
    assert f"{elements:,}".replace(",", " ") in text
    assert f"{elements * lab3.FLOAT32_BYTES / 2**20:g} MiB w float32" in text


def test_each_exercise_has_a_collapsed_solution_with_printed_numbers(page):
    solutions = page.select(".jupyter-wrapper details.success")
    summaries = [d.summary.get_text(strip=True) for d in solutions]
    tagged = re.findall(r'tags=\["solution"\] exercise=(\d+)', SOURCE.read_text(encoding="utf-8"))
    exercises = sorted({int(n) for n in tagged})
    assert exercises and summaries == [f"Rozwiązanie ćwiczenia {n}" for n in exercises]
    assert all(not d.has_attr("open") for d in solutions)
    first = next(d for d in solutions if d.summary.get_text(strip=True).endswith(" 1"))
    printed = first.select_one(".jp-OutputArea-output pre").get_text()
    assert f"≈ {toy().scaled[0, 2]:.3f}" in printed          # the number comes from the code


def test_heatmaps_before_and_after_the_mask_have_labelled_axes(page, built_site):
    (img,) = page.select(".jupyter-wrapper img.lab-figure")
    assert "mapy ciepła" in img["alt"] and len(img["alt"]) > 80
    src = img["src"]
    assert re.fullmatch(r"rysunek-[0-9a-f]{12}\.svg", src), src     # a file beside the page, loaded lazily
    assert img["loading"] == "lazy" and int(img["width"]) > 300 and int(img["height"]) > 100
    svg = (built_site / PAGE).with_name(src).read_text(encoding="utf-8")
    assert src == f"rysunek-{hashlib.sha256(svg.encode('utf-8')).hexdigest()[:12]}.svg"
    width, height = re.search(r'<svg[^>]*width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    css_px = (round(float(width) * 4 / 3), round(float(height) * 4 / 3))      # 1 pt = 4/3 CSS px
    assert (int(img["width"]), int(img["height"])) == css_px
    assert "data:image" not in whole_page(built_site / PAGE)
    for title in ("Przed nałożeniem maski", "Po nałożeniu maski przyczynowej"):
        assert svg.count(title) == 1, title
    for axis in ("i — pozycja, dla której liczymy wyjście", "j — pozycja, z której pobieramy informację"):
        assert svg.count(axis) == 2, axis                        # both panels
    labels = re.findall(r">([^<>]*\d[^<>]*)</text>", svg)
    assert "0,50" in labels and not any("." in label for label in labels)   # decimal comma


def test_pytorch_reference_is_shown_beside_the_numpy_code(page):
    references = [d for d in page.select(".jupyter-wrapper details.example")
                  if "PyTorch" in d.summary.get_text()]
    # every PyTorch box the source writes, none lost on the way to the page
    written = [line for line in SOURCE.read_text(encoding="utf-8").splitlines()
               if line.startswith("# <summary>") and "PyTorch" in line]
    assert references and len(references) == len(written)
    assert all("torch" in d.select_one(".highlight code").get_text() for d in references)


def test_math_in_markdown_cells_is_typeset_at_build_like_arithmatex(page):
    cells = page.select(".jupyter-wrapper .jp-RenderedMarkdown")
    spans = [s for cell in cells for s in cell.select("span.arithmatex")]
    assert len(spans) > 50
    # KaTeX's MathML is in the page: no TeX is left for a script in the browser.
    assert all(s.select_one(":scope > math") for s in spans)
    assert not any(re.search(r"\\[(\[]", s.get_text()) for s in spans)
    for cell in cells:
        for node in cell.find_all(string=True):
            if node.find_parent(["code", "pre"]) or node.find_parent(class_="arithmatex"):
                continue
            assert "$" not in node, f"unrendered math: {node!r}"


def test_lab_page_html_within_its_budget(built_site):
    size = (built_site / PAGE).stat().st_size
    # The formulas ship as MathML typeset at build time (no script, no KaTeX HTML, CSS or fonts).
    assert size < 400 * 1024, f"the lab page weighs {size / 1024:.0f} KiB"


def test_page_has_no_jupyterlab_css_or_foreign_scripts(page):
    article = page.select_one("article")
    assert article.find("style") is None and article.find("script") is None
    assert ".jp-" not in article.get_text()
    assert not article.select(".clipboard-copy-txt, .celltoolbar, .jp-InputPrompt")
    code_blocks = article.select(".jp-CodeCell div.highlight > pre > code")
    assert len(code_blocks) >= 15                                 # Material code blocks
    assert article.select_one("h1 + p.lab-download a.md-button")


def test_each_cell_is_one_div_holding_its_code_block_and_outputs(page):
    """mkdocs-jupyter nests each code cell in about ten wrappers and Pygments wraps every name:
    elements each style pass of the page pays for. One div per cell is left, and no name span."""
    cells = page.select(".jupyter-wrapper .jp-Cell")
    assert len(cells) >= 30 and not page.select(".jupyter-wrapper .jp-Cell .jp-Cell")
    for cell in page.select(".jupyter-wrapper .jp-CodeCell"):
        parts = [child["class"] for child in cell.children if child.name]
        assert parts in ([["highlight"]], [["highlight"], ["jp-Cell-outputWrapper"]]), cell["id"]
    assert not page.select(".jupyter-wrapper div.highlight span.n, .jupyter-wrapper div.highlight span.w")


def test_no_remove_cell_source_reaches_the_page(built_site):
    """Cells tagged remove_cell in the source run but show none of their own lines on the page."""
    cells = jupytext.read(SOURCE).cells
    hidden = [c for c in cells if "remove_cell" in c.metadata.get("tags", [])]
    shown = {line.strip() for c in cells if c not in hidden for line in c.source.splitlines()}
    # lines of their own, long enough not to occur in the page by chance (a lone ")" would)
    lines = {line.strip() for c in hidden for line in c.source.splitlines()} - shown
    lines = {line for line in lines if len(line) >= 20}
    assert hidden and lines
    text = BeautifulSoup((built_site / PAGE).read_text(encoding="utf-8"), "html.parser").get_text()
    assert [c.source for c in hidden if c.source in text] == []
    assert sorted(line for line in lines if line in text) == []


def test_links_on_the_lab_page_resolve(built_site, page):
    base = (built_site / PAGE).parent
    hrefs = [a["href"] for a in page.select(".jupyter-wrapper a[href]")]
    assert any(href.startswith("../../posty/") for href in hrefs)
    for href in hrefs:
        path, _, anchor = href.partition("#")
        if not path:
            assert page.find(id=anchor), href
            continue
        assert "://" not in path, href
        target = (base / path).resolve()
        assert (target / "index.html" if path.endswith("/") else target).is_file(), href


def test_download_link_serves_a_valid_standalone_notebook(built_site, page):
    link = page.select_one("a.md-button[download]")
    target = (built_site / PAGE).parent / link["href"]
    assert target.resolve() == (built_site / "laby" / "lab-3.ipynb").resolve()
    nb = nbformat.read(target, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.outputs == [] and c.execution_count is None for c in code)
    assert not any("figures_src" in c.source.split("#")[0] or "attn_core" in c.source for c in code)
    # The download runs the notebook's own code: every code cell of the source (those left off
    # the page too), except the project-only ones (a note instead).
    source = jupytext.read(SOURCE)
    kept = [c.source for c in source.cells if c.cell_type == "code"
            and "repo-only" not in c.metadata.get("tags", [])]
    assert [c.source for c in code] == kept
    notes = [c for c in nb.cells if c.cell_type == "markdown" and "attn_core" in c.source
             and "pominięto" in c.source]
    assert len(notes) == sum("repo-only" in c.metadata.get("tags", []) for c in source.cells)
    solutions = [c for c in nb.cells if "solution" in c.metadata.get("tags", [])]
    assert solutions and all(c.metadata["jupyter"]["source_hidden"] for c in solutions)


def test_downloaded_notebook_runs_outside_the_repo(built_site, tmp_path):
    notebook = tmp_path / "lab-3.ipynb"
    shutil.copy(built_site / "laby" / "lab-3.ipynb", notebook)
    script = ("import nbformat, sys; from nbclient import NotebookClient; "
              "nb = nbformat.read(sys.argv[1], as_version=4); "
              "NotebookClient(nb, kernel_name='python3', timeout=120, "
              "resources={'metadata': {'path': sys.argv[2]}}).execute(); print('ran')")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MPLBACKEND")}
    proc = subprocess.run([sys.executable, "-c", script, str(notebook), str(tmp_path)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "ran" in proc.stdout, proc.stderr[-3000:]


# --- the plugin ---------------------------------------------------------------------------

def test_a_failing_cell_fails_the_build_naming_file_line_cell_and_error(tmp_path):
    project = copy_project(tmp_path / "proj")
    shutil.rmtree(project / ".cache" / "anatomia" / "notebooks", ignore_errors=True)
    source = project / "docs" / "laby" / "lab-3.py"
    text = source.read_text(encoding="utf-8")
    good = "\nweights = softmax(scores, axis=-1)"            # the toy example's cell
    assert text.count(good) == 1
    source.write_text(text.replace(good, "\nweights = softmax(scores_typo, axis=-1)"),
                      encoding="utf-8")
    line = text[: text.index(good)].count("\n") + 2
    proc = mkdocs_build(project, tmp_path / "site", timeout=300)
    assert proc.returncode != 0
    log = proc.stdout + proc.stderr
    assert re.search(rf"docs/laby/lab-3\.py:{line}: notebook cell \d+ of \d+ failed: "
                     r"NameError: name 'scores_typo' is not defined", log), log[-3000:]
    assert re.search(rf">\s*{line} \| weights = softmax\(scores_typo, axis=-1\)", log)
    assert not (tmp_path / "site" / "laby").exists()


def make_mini_project(root: Path) -> Path:
    """The fixture project with a notebook of five cells (a removed one, an exercise's solution,
    a repo-only import) and an attn_core of its own, at `root`."""
    return fixture_project(root, files={
        "attn_core/__init__.py": "SCALE = 2\n",
        "figures_src/mini.py": "import numpy as np\nX = np.array([[1.0, 2.0]])\n",
        "docs/laby/mini.py": ('# %% [markdown]\n# # Mini\n#\n# Wynik: $x$.\n\n'
                             '# %%\nfrom figures_src.mini import X\n\n'
                             '# %% tags=["remove_cell"]\nY = 1\n\n'
                             '# %% tags=["solution"] exercise=1\nimport attn_core\n'
                             'print(X * attn_core.SCALE)\n\n'
                             '# %% tags=["repo-only"]\nimport attn_core\n'),
    })


def run_hook(root: Path, cache: Path):
    """The plugin's notebook step (notebooks.build) on the mini project's notebook."""
    from anatomia_engine import notebooks

    source = root / "docs" / "laby" / "mini.py"
    return notebooks.build(source, "docs/laby/mini.py", cache, root, "../mini.ipynb", "mini.ipynb")


@pytest.fixture
def mini_project(tmp_path) -> Path:
    """A mini project of the test's own, to edit."""
    return make_mini_project(tmp_path / "mini")


@pytest.fixture(scope="module")
def mini_built(tmp_path_factory):
    """The mini project executed once, with its store: (project, store folder, first build). Tests
    that only read the notebook's copies or damage its store entry share it (a copy of the store)."""
    folder = tmp_path_factory.mktemp("mini")
    root = make_mini_project(folder / "mini")
    return root, folder / "cache", run_hook(root, folder / "cache")


@pytest.fixture
def mini_cache(mini_built, tmp_path) -> Path:
    """A copy of the shared mini project's store, holding its one executed entry."""
    return shutil.copytree(mini_built[1], tmp_path / "cache")


def test_outputs_are_recomputed_when_attn_core_changes_and_reused_otherwise(mini_built, mini_cache,
                                                                             tmp_path):
    project, _, first = mini_built
    project = shutil.copytree(project, tmp_path / "mini")
    assert first.seconds is not None
    again = run_hook(project, mini_cache)
    assert again.key == first.key and again.seconds is None         # cached: not executed
    (project / "attn_core" / "__init__.py").write_text("SCALE = 3\n")
    changed = run_hook(project, mini_cache)
    assert changed.key != first.key and changed.seconds is not None
    page = nbformat.reads(changed.page, as_version=4)
    printed = "".join(o.get("text", "") for c in page.cells for o in c.get("outputs", []))
    assert "[[3. 6.]]" in printed                                    # the new attn_core ran


def test_page_and_download_copies_of_the_mini_notebook(mini_built):
    built = mini_built[2]
    page = nbformat.reads(built.page, as_version=4)
    kinds = [(c.cell_type, c.source) for c in page.cells]
    assert kinds[2] == ("raw", '<details class="success">\n<summary>Rozwiązanie ćwiczenia 1</summary>')
    assert kinds[4] == ("raw", "</details>")
    assert "Y = 1" not in [c.source for c in page.cells]                # remove_cell: not on the page
    download = nbformat.reads(built.download, as_version=4)
    nbformat.validate(download)
    assert download.cells[2].source == "Y = 1"                             # but downloaded
    assert download.cells[3].metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert download.cells[4].cell_type == "markdown" and "attn_core" in download.cells[4].source
    assert [c.id for c in download.cells] == [f"cell-{i}" for i in range(5)]   # stable ids


def test_figures_get_alt_text_from_display_metadata_or_stop_the_build(mini_project, tmp_path):
    from anatomia_engine.errors import EngineError

    source = mini_project / "docs" / "laby" / "mini.py"
    svg = 'SVG("<svg xmlns=\\"http://www.w3.org/2000/svg\\"/>")'
    source.write_text(source.read_text() + f'\n# %%\nfrom IPython.display import SVG, display\n'
                      f'display({svg}, metadata={{"alt": "Pusty rysunek"}})\n')
    built = run_hook(mini_project, tmp_path / "cache")
    page = nbformat.reads(built.page, as_version=4)
    (name,) = built.figures
    assert built.figures[name] == b'<svg xmlns="http://www.w3.org/2000/svg"/>'
    assert page.cells[-1].outputs[0].data["text/html"] == (
        f'<img alt="Pusty rysunek" class="lab-figure" src="{name}" loading="lazy" decoding="async">')
    source.write_text(source.read_text() + f"\n# %%\n{svg}\n")
    with pytest.raises(EngineError) as info:
        run_hook(mini_project, tmp_path / "cache")
    assert info.value.id == "cell_no_alt"
    assert info.value.fields["cell"] == 7


@pytest.mark.parametrize("damage", ["truncate", "edit", "remove"])
def test_a_damaged_notebook_cache_entry_is_executed_again_never_published(mini_built, mini_cache,
                                                                          caplog, damage):
    mini_project, _, good = mini_built
    cache = mini_cache
    (entry,) = cache.glob("*.json")
    kept = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(kept[: len(kept) // 2])
    elif damage == "edit":
        entry.write_bytes(kept.replace(b"[[2. 4.]]", b"[[9. 9.]]"))
        assert entry.read_bytes() != kept
    else:
        entry.unlink()
    caplog.clear()
    again = run_hook(mini_project, cache)
    assert again.key == good.key and again.seconds is not None     # executed, not read back
    warned = [r for r in caplog.records if r.levelname == "WARNING" and str(entry) in r.getMessage()]
    assert bool(warned) == (damage != "remove")
    assert (again.page, again.download) == (good.page, good.download)
    assert run_hook(mini_project, cache).seconds is None           # and stored again


def test_the_kernel_report_survives_long_printed_output_and_a_broken_display_is_named(mini_project, tmp_path):
    from anatomia_engine.errors import EngineError

    source = mini_project / "docs" / "laby" / "mini.py"
    original = source.read_text()
    # printed output within the cell's bounds (lines of 400 characters, 4 000 in all) is left alone
    source.write_text(original + "\n# %%\nfor _ in range(10):\n    print('x' * 400)\n")
    page = nbformat.reads(run_hook(mini_project, tmp_path / "cache").page, as_version=4)
    assert page.cells[-1].outputs[0].text == ("x" * 400 + "\n") * 10
    source.write_text(original + "\n# %%\nimport IPython.display\n"
                      "IPython.display.display = lambda *a, **k: None\n")
    with pytest.raises(EngineError) as info:
        run_hook(mini_project, tmp_path / "cache2")
    assert info.value.id == "kernel_report"
