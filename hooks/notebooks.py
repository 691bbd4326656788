"""MkDocs hook: notebook pages (jupytext percent `.py` under docs/laby/), executed at build time.

on_files:        execute each notebook (jupytext -> nbformat -> nbclient, kernel `python3` of this
                 interpreter, cwd = the repo root so `import attn_core` works), unless
                 `.cache/notebooks/<key>.ipynb` exists; the key hashes the notebook, attn_core,
                 the figures_src modules it imports, requirements.lock, the Python version and this file. The page's
                 File is pointed at the executed copy, which mkdocs-jupyter renders as is
                 (`execute: false`, `include: ["*.ipynb"]`), so its own cache, keyed on that
                 file's bytes, can never serve old outputs. A failing cell raises PluginError
                 with file:line, the cell number, its source and the error. Also adds the
                 download `<name>.ipynb` (no outputs, runs without the repo) next to the page.
on_pre_page:     points mkdocs-jupyter's NotebookFile wrapper at the executed copy too.
on_page_markdown: wraps the page's render so that math in Markdown cells comes out as
                 `pymdownx.arithmatex` (generic) writes it, `\\(...\\)` / `\\[...\\]` in
                 `span.arithmatex`, for the site's KaTeX (nbconvert would write bare `$...$`).
on_page_content: keeps only the notebook (drops the ~590 KB of JupyterLab CSS, MathJax and
                 Mermaid loaders that mkdocs-jupyter inlines; docs/stylesheets/lab.css styles
                 notebook pages instead), turns code cells into Material code blocks, and
                 adds the download button under the title (result cached per executed copy).
on_post_build:   drops cache entries that this build did not use.
Figures: an image output needs alt text, given by the code that shows it:
`display(fig, metadata={"alt": "..."})`; it becomes an <img> with that alt text.

Cell tags understood in the notebook source (metadata on the `# %%` line stays ASCII, since
jupytext writes other characters as \\u escapes):
  `solution`  consecutive cells with the same `exercise=N` form one collapsible block
              "Rozwiązanie ćwiczenia N" on the page (raw HTML <details> cells around them);
              collapsed in the download.
  `inputs`    a cell that only imports from figures_src: in the download it is replaced by
              the same names written out literally (values taken from the executed kernel).
  `repo-only` a cell that needs the project (e.g. the attn_core cross-check): in the
              download it becomes a short note.
"""

from __future__ import annotations

import ast
import base64
import copy
import hashlib
import html
import json
import logging
import os
import posixpath
import re
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import jupytext
import nbformat
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parents[1]
from anatomia_engine import runner

log = logging.getLogger("mkdocs.hooks.notebooks")

CACHE_DIR = ROOT / ".cache" / "notebooks"
NOTEBOOK_DIR = "laby/"                 # docs/laby/*.py are notebook pages
KEY_SOURCES = ("attn_core/**/*.py", "requirements.lock")
KERNEL = "python3"
CELL_TIMEOUT = 180                     # seconds per cell
STARTUP_TIMEOUT = 120                  # seconds for the kernel to come up
DOWNLOAD_LABEL = "Pobierz notatnik (.ipynb)"
REPO_ONLY_NOTE = (
    "*Na stronie w tym miejscu jest komórka, która porównuje wyniki notatnika z biblioteką "
    "`attn_core` projektu (tą samą, z której liczą pozostałe strony). Poza repozytorium "
    "projektu tej biblioteki nie ma, więc w pobranym notatniku komórkę pominięto.*"
)

_pages: dict[str, dict] = {}           # src_uri -> {"key", "page", "download"}
_used: set[str] = set()                # cache keys used by this build


# --- which files, which key -------------------------------------------------------------

def is_notebook(file: File) -> bool:
    """A notebook page: a jupytext percent `.py` file under docs/laby/."""
    return file.src_uri.startswith(NOTEBOOK_DIR) and file.src_uri.endswith(".py")


def cache_key(source: Path, root: Path = ROOT) -> str:
    """SHA-256 over everything that can change what the notebook prints."""
    paths = [source, Path(__file__).resolve()]
    for pattern in KEY_SOURCES:
        paths += sorted(root.glob(pattern))
    paths += runner.import_closure([source], root)   # and every project file it imports
    return runner.content_hash(paths, root)


# --- reading and executing --------------------------------------------------------------

def read_notebook(source: Path) -> nbformat.NotebookNode:
    """The notebook of a jupytext percent file, with cell ids that do not change per build."""
    nb = jupytext.read(source)
    for index, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{index}"
    return nb


def cell_lines(source: Path) -> list[int]:
    """1-based line in `source` where each cell's text starts (after its `# %%` marker)."""
    lines = source.read_text(encoding="utf-8").splitlines()
    return [n + 2 for n, line in enumerate(lines) if line.startswith("# %%")]


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.rstrip().splitlines())


def failure_message(where: str, source: Path, nb, index: int, error: BaseException) -> str:
    """'docs/laby/lab-3.py:473: notebook cell 13 of 35 failed: NameError: ...', the cell's
    source numbered with the file's own lines (the failing one marked) and the traceback."""
    starts = cell_lines(source)
    first = starts[index] if len(starts) == len(nb.cells) else None
    ename = getattr(error, "ename", type(error).__name__)
    evalue = getattr(error, "evalue", str(error))
    traceback = _ANSI.sub("", getattr(error, "traceback", "") or "")
    # nbclient repeats the cell source above its traceback; keep only the traceback.
    traceback = traceback.rsplit("-" * 18 + "\n", 1)[-1].strip("\n")
    failing = re.search(r"^Cell In\[\d+\], line (\d+)", traceback, re.MULTILINE)
    offset = int(failing.group(1)) - 1 if failing else None
    if first is None:
        location = where
    elif offset is None:
        location = f"{where}:{first}"
    else:
        location = f"{where}:{first + offset}"
    message = [f"{location}: notebook cell {index + 1} of {len(nb.cells)} failed: {ename}: {evalue}",
               "  cell source" + (f" (from line {first}):" if first else ":")]
    for n, line in enumerate(nb.cells[index].source.splitlines()):
        mark = ">" if n == offset else " "
        number = f"{first + n:4d}" if first else f"{n + 1:4d}"
        message.append(f"  {mark}{number} | {line}")
    if traceback.strip():
        message += ["  traceback:", _indent(traceback)]
    return "\n".join(message)


_PROBE = """\
import json as _json
import numpy as _np
def _literal(value):
    if isinstance(value, _np.ndarray):
        return f"np.array({value.tolist()!r})"
    return repr(value)
print(_json.dumps({_name: _literal(globals()[_name]) for _name in %r}))
"""


def imported_names(cell, where: str = "notebook") -> list[str]:
    """Names an `inputs` cell imports; such a cell may only do `from figures_src... import`."""
    names: list[str] = []
    for node in ast.parse(cell.source).body:
        if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("figures_src")):
            raise PluginError(f"{where}: cell {cell.id} is tagged 'inputs' but does more than "
                              f"'from figures_src... import ...': {ast.unparse(node)!r}")
        names += [alias.asname or alias.name for alias in node.names]
    return names


def input_names(nb, where: str = "notebook") -> list[str]:
    return [name for cell in nb.cells if "inputs" in cell.metadata.get("tags", [])
            for name in imported_names(cell, where)]


def execute(nb, source: Path, where: str, root: Path = ROOT) -> dict[str, str]:
    """Run every cell of `nb` in place; return the `inputs` names as Python literals."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellControlSignal, DeadKernelError

    names = input_names(nb, where)
    probe = nbformat.v4.new_code_cell(_PROBE % (names,), id="inputs-probe")
    nb.cells.append(probe)
    state = {"index": 0}

    def on_cell_start(cell, cell_index):
        state["index"] = cell_index

    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}   # keep the inline backend
    env.update(PYTHONPATH=os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")])),
               PYTHONHASHSEED="0", SOURCE_DATE_EPOCH="0")
    client = NotebookClient(nb, kernel_name=KERNEL, timeout=CELL_TIMEOUT,
                            startup_timeout=STARTUP_TIMEOUT, allow_errors=False,
                            record_timing=False, on_cell_start=on_cell_start,
                            resources={"metadata": {"path": str(root)}})
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as kernel_log:
        try:
            client.execute(env=env, stderr=kernel_log)
        except (CellControlSignal, DeadKernelError) as exc:
            index = state["index"]
            nb.cells.pop()
            if index >= len(nb.cells):
                raise PluginError(f"{where}: reading the 'inputs' names back from the kernel "
                                  f"failed: {exc}") from None
            if isinstance(exc, DeadKernelError):
                kernel_log.seek(0)
                exc.traceback = kernel_log.read()[-3000:]
            raise PluginError(failure_message(where, source, nb, index, exc)) from None
        except Exception as exc:   # the kernel did not start or stopped answering
            kernel_log.seek(0)
            raise PluginError(f"{where}: kernel '{KERNEL}' ({sys.executable}) could not run the "
                              f"notebook: {type(exc).__name__}: {exc}\n  kernel log:\n"
                              f"{_indent(kernel_log.read()[-3000:])}") from None
    nb.cells.pop()
    printed = "".join(o.get("text", "") for o in probe.outputs if o.output_type == "stream")
    return json.loads(printed) if names else {}


# --- the two copies we publish ----------------------------------------------------------

def _solution_summary(cell) -> str | None:
    """'Rozwiązanie ćwiczenia 3' for a `solution` cell with `exercise=3`; None for other cells."""
    if "solution" not in cell.metadata.get("tags", []):
        return None
    exercise = cell.metadata.get("exercise")
    return "Rozwiązanie" if exercise is None else f"Rozwiązanie ćwiczenia {exercise}"


def _raw_html(text: str, cell_id: str):
    return nbformat.v4.new_raw_cell(text, metadata={"raw_mimetype": "text/html"}, id=cell_id)


_SVG_PROLOGUE = re.compile(r"<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*|<metadata>.*?</metadata>\s*",
                           re.DOTALL)


_SVG_FONTS = re.compile(r"font-family: ('[^']+')(?:, [^;\"]+)?")


def figure_html(data: dict, alt: str) -> str:
    """An <img> with alt text for an image output (nbconvert's own has no alt text)."""
    if "image/svg+xml" in data:
        svg = _SVG_PROLOGUE.sub("", data["image/svg+xml"])
        svg = _SVG_FONTS.sub(r"font-family: \1, sans-serif", svg)   # one font, not twelve
        src = "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
    else:
        src = "data:image/png;base64," + "".join(data["image/png"].split())
    return f'<img class="lab-figure" alt="{html.escape(alt)}" src="{src}">'


def page_notebook(executed, key: str, where: str):
    """The executed notebook as the page shows it.

    Each run of solution cells goes inside <details>; each image output becomes an <img>
    with the alt text from its cell's `alt` metadata (a figure without one stops the build).
    """
    nb = copy.deepcopy(executed)
    cells, current = [], None
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/svg+xml" in data or "image/png" in data:
                alt = str(output.get("metadata", {}).get("alt", "")).strip()
                if not alt:
                    raise PluginError(f"{where}: notebook cell {index + 1} draws a figure but has no "
                                      "alt text; show it with display(fig, metadata={'alt': '...'})")
                output["data"] = {"text/html": figure_html(data, alt)}
                output["metadata"] = {}
        summary = _solution_summary(cell)
        if summary != current and current is not None:
            cells.append(_raw_html("</details>", f"{cell.id}-end"))
        if summary != current and summary is not None:
            cells.append(_raw_html(f'<details class="success">\n<summary>{html.escape(summary)}'
                                   "</summary>", f"{cell.id}-begin"))
        current = summary
        cells.append(cell)
    if current is not None:
        cells.append(_raw_html("</details>", "end"))
    nb.cells = cells
    # The key in the metadata makes mkdocs-jupyter's own cache (keyed on these bytes) follow ours.
    nb.metadata["anatomia"] = {"cache_key": key}
    nb.metadata.pop("jupytext", None)
    return nb


def download_notebook(executed, literals: dict[str, str], where: str):
    """What readers download: no outputs, inputs written out, project-only cells replaced."""
    nb = copy.deepcopy(executed)
    cells = []
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if "inputs" in tags:
            lines = [f"# Dane wejściowe laboratorium (w projekcie: {', '.join(_modules(cell))}),",
                     "# wpisane tu przy budowie strony, żeby notatnik działał bez repozytorium."]
            lines += [f"{name} = {literals[name]}" for name in imported_names(cell, where)]
            cell.source = "\n".join(lines)
        elif "repo-only" in tags:
            cell = nbformat.v4.new_markdown_cell(REPO_ONLY_NOTE, id=cell.id)
        if "solution" in tags:
            cell.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("jupytext", None)
    nb.metadata.pop("anatomia", None)
    nb.metadata.pop("widgets", None)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        raise PluginError(f"{where}: the downloadable notebook is not valid nbformat: {exc}") from None
    return nb


def _modules(cell) -> list[str]:
    tree = ast.parse(cell.source)
    return sorted({node.module.replace(".", "/") + ".py" for node in tree.body
                   if isinstance(node, ast.ImportFrom) and node.module})


def _write_text(path: Path, text: str) -> None:
    """Atomic write, so a concurrent build never reads half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, path)


def _write(path: Path, nb) -> None:
    _write_text(path, nbformat.writes(nb) + "\n")


def build_notebook(source: Path, where: str, cache_dir: Path = CACHE_DIR,
                   root: Path = ROOT) -> tuple[str, Path, Path, float | None]:
    """(key, page .ipynb, download .ipynb, seconds spent executing or None on a cache hit)."""
    key = cache_key(source, root)
    page_path = cache_dir / f"{key}.ipynb"
    download_path = cache_dir / f"{key}.download.ipynb"
    if page_path.exists() and download_path.exists():
        return key, page_path, download_path, None
    started = time.perf_counter()
    nb = read_notebook(source)
    literals = execute(nb, source, where, root)
    elapsed = time.perf_counter() - started
    _write(download_path, download_notebook(nb, literals, where))
    _write(page_path, page_notebook(nb, key, where))
    return key, page_path, download_path, elapsed


# --- MkDocs events ----------------------------------------------------------------------

@event_priority(100)   # before mkdocs-jupyter's on_files, which must see the executed .ipynb
def on_files(files, config):
    _pages.clear()
    _used.clear()
    for file in [f for f in files if is_notebook(f)]:
        where = f"docs/{file.src_uri}"
        key, page_path, download_path, elapsed = build_notebook(Path(file.abs_src_path), where)
        if elapsed is None:
            log.info("%s: outputs from .cache/notebooks (key %s)", where, key[:12])
        else:
            log.info("%s: executed in %.1f s (key %s)", where, elapsed, key[:12])
        _used.add(key)
        file.abs_src_path = str(page_path)          # the page now renders the executed copy
        download_uri = file.src_uri[:-3] + ".ipynb"
        # In-memory content: a File backed by a path ending in .ipynb would become a page.
        files.append(File.generated(config, download_uri, content=download_path.read_bytes()))
        _pages[file.src_uri] = {"key": key, "page": str(page_path), "download": download_uri}
    return files


@contextmanager
def _arithmatex_math():
    """Make nbconvert emit math like arithmatex (generic) instead of bare `$...$`."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer

    saved = IPythonRenderer.inline_math, IPythonRenderer.block_math

    def inline_math(self, body):
        return f'<span class="arithmatex">\\({self.escape_html(body)}\\)</span>'

    def block_math(self, body):
        return f'<span class="arithmatex arithmatex-display">\\[{self.escape_html(body)}\\]</span>'

    IPythonRenderer.inline_math, IPythonRenderer.block_math = inline_math, block_math
    try:
        yield
    finally:
        IPythonRenderer.inline_math, IPythonRenderer.block_math = saved


@event_priority(100)   # before mkdocs-jupyter's on_pre_page, which reads page.file.abs_src_path
def on_pre_page(page, config, files):
    info = _pages.get(page.file.src_uri)
    if info is not None:
        # mkdocs-jupyter wraps the File in a NotebookFile whose abs_src_path is recomputed from
        # docs_dir; point the wrapper at the executed copy too.
        page.file.abs_src_path = info["page"]
    return page


def on_page_markdown(markdown, page, config, files):
    """Runs after mkdocs-jupyter's on_pre_page has replaced page.render: wrap it for math."""
    if page.file.src_uri not in _pages:
        return None
    render = page.render

    def render_with_arithmatex(config, files):
        with _arithmatex_math():
            return render(config, files)

    page.render = render_with_arithmatex
    return None


def slim_notebook_html(html_text: str, download_href: str, download_name: str) -> str:
    """mkdocs-jupyter's HTML, reduced to the notebook itself and styled by the site.

    Drops everything outside `div.jupyter-wrapper` (~590 KB of inline JupyterLab CSS, a
    MathJax loader with an empty URL, the Mermaid loader, the clipboard script), the
    duplicated copy-to-clipboard source of each cell, tag badges, prompts and empty
    collapsers. Code cells become Material code blocks (`div.highlight > pre > code`, so the
    theme's colours and copy button apply), permalinks use Material's `headerlink` class,
    and the download button goes under the title.
    """
    from bs4 import BeautifulSoup

    start = html_text.find('<div class="jupyter-wrapper">')   # skip parsing ~600 KB of CSS/JS
    soup = BeautifulSoup(html_text[max(start, 0):], "html.parser")
    wrapper = soup.select_one("div.jupyter-wrapper")
    if wrapper is None:
        raise PluginError("mkdocs-jupyter produced no div.jupyter-wrapper (did its template change?)")
    for node in wrapper.select(".zeroclipboard-container, .clipboard-copy-txt, .celltoolbar, "
                               ".jp-Collapser, .jp-InputPrompt, .jp-OutputPrompt"):
        node.decompose()
    for output in wrapper.select(".jp-OutputArea-output.highlight"):
        output["class"] = [c for c in output["class"] if c != "highlight"]
    for block in wrapper.select("div.highlight-ipynb"):
        block["class"] = ["highlight"]
    for pre in wrapper.select("div.highlight > pre"):
        code = soup.new_tag("code")
        for child in list(pre.contents):
            if not (child.name == "span" and not child.get_text() and not child.attrs):
                code.append(child.extract())
        pre.clear()
        pre.append(code)
    for link in wrapper.select("a.anchor-link"):
        link["class"] = ["headerlink"]
        link["title"] = "Odnośnik do tej sekcji"
    for node in wrapper.select("[tabindex]"):
        if "jp-Cell-inputWrapper" in node.get("class", []):
            del node["tabindex"]
    title = wrapper.find("h1")
    if title is None:
        raise PluginError("the notebook has no '# title' heading to put the download button under")
    button = BeautifulSoup(f'<p class="lab-download"><a class="md-button" href="{download_href}" '
                           f'download="{download_name}">{DOWNLOAD_LABEL}</a></p>', "html.parser")
    title.insert_after(button)
    return str(wrapper)


def on_page_content(html_text, page, config, files):
    info = _pages.get(page.file.src_uri)
    if info is None:
        return html_text
    download = files.get_file_from_path(info["download"])
    href = get_relative_url(download.url, page.url)
    # Parsing the page takes ~0.3 s; keep the result next to the executed notebook.
    digest = hashlib.sha256(f"{href}\0{html_text}".encode()).hexdigest()[:16]
    cached = CACHE_DIR / f"{info['key']}.{digest}.html"
    if cached.exists():
        return cached.read_text(encoding="utf-8")
    try:
        slim = slim_notebook_html(html_text, href, posixpath.basename(info["download"]))
    except PluginError as exc:
        raise PluginError(f"docs/{page.file.src_uri}: {exc}") from None
    _write_text(cached, slim)
    return slim


def on_post_build(config):
    """Keep one executed copy per notebook: drop cache entries this build did not use."""
    if not CACHE_DIR.is_dir():
        return
    for path in CACHE_DIR.iterdir():
        if path.is_file() and not path.name.startswith(".") and path.name.split(".", 1)[0] not in _used:
            path.unlink(missing_ok=True)
