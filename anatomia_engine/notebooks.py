"""Notebook pages: a jupytext percent `.py` file, executed at build time, published twice.

`build(source, where)` executes the notebook (jupytext -> nbformat -> nbclient, kernel
`python3` of this interpreter, cwd = the project root so `import attn_core` works) unless
its cache entry exists and verifies, and returns two copies:

- the page copy, handed to mkdocs-jupyter as an ordinary executed `.ipynb` for it to render:
  solution cells grouped in collapsible blocks, image outputs as <img> with alt text, the
  download button under the title, cell tags removed (they are consumed here);
- the download copy: no outputs, the `inputs` cell written out as literals, `repo-only`
  cells replaced by a note, solutions collapsed.

A failing cell raises NotebookError with file:line, the cell number, its numbered source
and the traceback. Cache validity works as for the figures_src modules (runner.py): after
the last cell, the kernel reports the project files in its sys.modules (the attn_core files
and figures_src modules the notebook's code actually loaded), and these, the notebook file,
this file and runner.py (they make the copies) and the lock are recorded with their
SHA-256 and the Python version in a depfile. The depfile and both copies are one entry of
the build's store (store.py: checked on every read, written atomically); it is used while
every recorded file still has its hash.

Cell tags (metadata on the `# %%` line stays ASCII, since jupytext writes other characters
as \\u escapes):
  `solution`  consecutive cells with the same `exercise=N` form one collapsible block
              "Rozwiązanie ćwiczenia N" on the page; collapsed in the download.
  `inputs`    a cell that only imports from figures_src: in the download it is replaced by
              the same names written out literally (values taken from the executed kernel).
  `repo-only` a cell that needs the project (e.g. the attn_core cross-check): in the
              download it becomes a short note.
Figures: an image output needs alt text, given by the code that shows it:
`display(fig, metadata={"alt": "..."})`.
"""

from __future__ import annotations

import ast
import atexit
import base64
import copy
import hashlib
import html
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat

from anatomia_engine import deps, placeholders, runner, store

log = logging.getLogger("anatomia_engine.notebooks")

ROOT = runner.ROOT
KERNEL = "python3"
CELL_TIMEOUT = 180                     # seconds per cell
STARTUP_TIMEOUT = 120                  # seconds for the kernel to come up
PAGE, DOWNLOAD = "page.ipynb", "download.ipynb"
DOWNLOAD_LABEL = "Pobierz notatnik (.ipynb)"
REPO_ONLY_NOTE = (
    "*Na stronie w tym miejscu jest komórka, która porównuje wyniki notatnika z biblioteką "
    "`attn_core` projektu (tą samą, z której liczą pozostałe strony). Poza repozytorium "
    "projektu tej biblioteki nie ma, więc w pobranym notatniku komórkę pominięto.*"
)


class NotebookError(Exception):
    """The notebook cannot be published; the message starts with the file (and line)."""


@dataclass(frozen=True)
class Built:
    key: str
    page: Path            # the executed page copy (.ipynb) for mkdocs-jupyter
    download: Path        # the copy readers download
    seconds: float | None  # time spent executing; None when it came from the cache
    deps: dict | None = None  # the depfile: what the kernel loaded, with hashes


# --- reading and executing -----------------------------------------------------------------------

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
import numpy as _np
from IPython.display import display as _display
def _literal(value):
    if isinstance(value, _np.ndarray):
        return f"np.array({value.tolist()!r})"
    return repr(value)
import sys as _sys
_display({"application/json": {
    "inputs": {_name: _literal(globals()[_name]) for _name in %r},
    "loaded": [_f for _m in list(_sys.modules.values())
               if isinstance(_f := getattr(_m, "__file__", None), str)],
}}, raw=True)
"""


def imported_names(cell, where: str = "notebook") -> list[str]:
    """Names an `inputs` cell imports; such a cell may only do `from figures_src... import`."""
    names: list[str] = []
    for node in ast.parse(cell.source).body:
        if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("figures_src")):
            raise NotebookError(f"{where}: cell {cell.id} is tagged 'inputs' but does more than "
                                f"'from figures_src... import ...': {ast.unparse(node)!r}")
        names += [alias.asname or alias.name for alias in node.names]
    return names


def input_names(nb, where: str = "notebook") -> list[str]:
    return [name for cell in nb.cells if "inputs" in cell.metadata.get("tags", [])
            for name in imported_names(cell, where)]


def execute(nb, source: Path, where: str, root: Path = ROOT) -> tuple[dict[str, str], list[str]]:
    """Run every cell of `nb` in place; return the `inputs` names as Python literals and the
    files of the modules loaded in the kernel."""
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
               PYTHONHASHSEED="0", SOURCE_DATE_EPOCH="0", **runner.ONE_THREAD)
    client = NotebookClient(nb, kernel_name=KERNEL, timeout=CELL_TIMEOUT,
                            startup_timeout=STARTUP_TIMEOUT, allow_errors=False,
                            record_timing=False, on_cell_start=on_cell_start,
                            coalesce_streams=True,   # one output per stream: the same page every build
                            resources={"metadata": {"path": str(root)}})
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as kernel_log:
        try:
            client.execute(env=env, stderr=kernel_log)
        except (CellControlSignal, DeadKernelError) as exc:
            index = state["index"]
            nb.cells.pop()
            if index >= len(nb.cells):
                raise NotebookError(f"{where}: reading the 'inputs' names back from the kernel "
                                    f"failed: {exc}") from None
            if isinstance(exc, DeadKernelError):
                kernel_log.seek(0)
                exc.traceback = kernel_log.read()[-3000:]
            raise NotebookError(failure_message(where, source, nb, index, exc)) from None
        except Exception as exc:   # the kernel did not start or stopped answering
            kernel_log.seek(0)
            raise NotebookError(f"{where}: kernel '{KERNEL}' ({sys.executable}) could not run the "
                                f"notebook: {type(exc).__name__}: {exc}\n  kernel log:\n"
                                f"{_indent(kernel_log.read()[-3000:])}") from None
    nb.cells.pop()
    # One display message, not printed text: ipykernel sends a long print in many small stream
    # messages, and joining them took ~2 s for this report's ~30 KB.
    reports = [o.data["application/json"] for o in probe.outputs
               if o.output_type == "display_data" and "application/json" in o.get("data", {})]
    try:
        (report,) = reports
        inputs, loaded = dict(report["inputs"]), list(report["loaded"])
    except (ValueError, KeyError, TypeError):
        raise NotebookError(f"{where}: the kernel's report after the last cell is unreadable "
                            f"(did a cell redefine display?): {probe.outputs!r:.300}") from None
    return inputs, loaded


# --- the two copies we publish -------------------------------------------------------------------

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


_IMG = re.compile(r"<img\s[^>]*>")
_INLINE_SRC = re.compile(r'\ssrc="data:image/(svg\+xml|png);base64,([^"]+)"')
_SVG_SIZE = re.compile(rb'<svg[^>]*?\swidth="([\d.]+)pt"[^>]*?\sheight="([\d.]+)pt"')


def _pixel_size(kind: str, data: bytes) -> tuple[int, int] | None:
    """(width, height) in CSS px of a matplotlib SVG (sized in pt) or a PNG (its IHDR)."""
    if kind == "png":
        return (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) \
            if data[:8] == b"\x89PNG\r\n\x1a\n" else None
    size = _SVG_SIZE.search(data[:2000])
    return (round(float(size[1]) * 4 / 3), round(float(size[2]) * 4 / 3)) if size else None


def figures_as_files(page_html: str) -> tuple[str, dict[str, bytes]]:
    """The page's figures (inline in the executed notebook) moved into files of their own.

    Each `<img class="lab-figure" src="data:...">` becomes `src="rysunek-<sha256[:12]>.svg"`
    (or .png, a name fixed by the content) with its size in CSS px, loaded lazily: a figure
    below the fold costs a reader nothing until they scroll to it, and the size keeps the
    layout from moving when it arrives. Returns the page and {file name: bytes}, for the hook
    to write beside the page."""
    files: dict[str, bytes] = {}

    def moved(m: re.Match) -> str:
        tag = m.group(0)
        inline = _INLINE_SRC.search(tag)
        if 'class="lab-figure"' not in tag or inline is None:
            return tag
        kind, payload = inline.groups()
        data = base64.b64decode(payload)
        name = f"rysunek-{hashlib.sha256(data).hexdigest()[:12]}.{'png' if kind == 'png' else 'svg'}"
        files[name] = data
        size = _pixel_size(kind, data)
        dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
        return (tag[:inline.start()] + f' src="{name}"{dims} loading="lazy" decoding="async"'
                + tag[inline.end():])

    return _IMG.sub(moved, page_html), files


def download_button(href: str, filename: str) -> str:
    return (f'<p class="lab-download"><a class="md-button" href="{html.escape(href)}" '
            f'download="{html.escape(filename)}">{DOWNLOAD_LABEL}</a></p>')


def _with_button_under_title(cells: list, button: str, where: str) -> list:
    """Put the download button (HTML) on the line after the notebook's `# title`."""
    for cell in cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        title = next((n for n, line in enumerate(lines) if line.startswith("# ")), None)
        if title is not None:
            cell.source = "\n".join(lines[: title + 1] + ["", button, ""] + lines[title + 1:])
            return cells
    raise NotebookError(f"{where}: the notebook has no '# title' heading to put the download button under")


def page_notebook(executed, where: str, download_href: str | None = None,
                  download_name: str | None = None):
    """The executed notebook as the page shows it.

    Each run of solution cells goes inside <details>; each image output becomes an <img>
    with the alt text from its output's `alt` metadata (a figure without one is an error);
    the download button follows the title; tags are dropped (consumed here).
    """
    nb = copy.deepcopy(executed)
    cells, current = [], None
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/svg+xml" in data or "image/png" in data:
                alt = str(output.get("metadata", {}).get("alt", "")).strip()
                if not alt:
                    raise NotebookError(f"{where}: notebook cell {index + 1} draws a figure but has no "
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
        cell.metadata.pop("tags", None)
        cells.append(cell)
    if current is not None:
        cells.append(_raw_html("</details>", "end"))
    if download_href is not None:
        cells = _with_button_under_title(cells, download_button(download_href, download_name or ""), where)
    nb.cells = cells
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
    nb.metadata.pop("widgets", None)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        raise NotebookError(f"{where}: the downloadable notebook is not valid nbformat: {exc}") from None
    return nb


def _modules(cell) -> list[str]:
    tree = ast.parse(cell.source)
    return sorted({node.module.replace(".", "/") + ".py" for node in tree.body
                   if isinstance(node, ast.ImportFrom) and node.module})


# --- the cache entry -----------------------------------------------------------------------------

def _entry_name(source: Path, root: Path, download_href: str | None, download_name: str | None) -> str:
    """One entry per notebook and download link; its depfile says whether it is still valid."""
    return store.key("notebook", os.path.relpath(source.resolve(), root.resolve()),
                     download_href or "", download_name or "")


def _write_copies(cache_dir: Path, key: str, page: str, download: str) -> Built:
    """The two copies as files for mkdocs-jupyter and the download, written by this build from
    the checked entry (same key, same bytes: a concurrent build writes what this one does)."""
    folder = cache_dir / key
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:   # an unwritable cache: a folder of this process, removed when it ends
        folder = Path(tempfile.mkdtemp(prefix="anatomia-notebook-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for name, text in ((PAGE, page), (DOWNLOAD, download)):
        tmp = folder / f".{name}.{os.getpid()}.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, folder / name)
    return Built(key, folder / PAGE, folder / DOWNLOAD, None)


def lookup(source: Path, cache_dir: Path, root: Path = ROOT, download_href: str | None = None,
           download_name: str | None = None, where: str | None = None) -> Built | None:
    """The stored copies of the notebook at `source` if its entry verifies (store.py) and every
    file its depfile records is unchanged, else None."""
    name = _entry_name(source, root, download_href, download_name)
    body = store.Store(cache_dir, ".json").get(name, where or str(source))
    if body is None:
        return None
    try:
        entry = json.loads(body)
        problem = deps.problem(entry["deps"], root, os.environ)
        page, download = entry["page"], entry["download"]
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("%s: stored notebook unreadable, executing it again: %s", where or source, exc)
        return None
    if problem is not None:
        return None
    key = store.key(name, json.dumps(entry["deps"], sort_keys=True))
    built = _write_copies(cache_dir, key, page, download)
    return Built(built.key, built.page, built.download, None, entry["deps"])


def build(source: Path, where: str, cache_dir: Path, root: Path = ROOT,
          download_href: str | None = None, download_name: str | None = None) -> Built:
    """The page and download copies of the notebook at `source`, from its stored entry (lookup)
    or executed and stored."""
    try:                                  # its Markdown cells are rendered by nbconvert, not by us
        placeholders.refuse_in_notebook(source, where)
    except placeholders.TemplateError as exc:
        raise NotebookError(str(exc)) from None
    cached = lookup(source, cache_dir, root, download_href, download_name, where)
    if cached is not None:
        return cached
    started = time.perf_counter()
    nb = read_notebook(source)
    literals, loaded = execute(nb, source, where, root)
    elapsed = time.perf_counter() - started
    # this file and the runner's make the two copies from the executed notebook: theirs count too
    record = deps.record([*loaded, source, __file__, runner.__file__,
                          *(root / f for f in runner.LOCK_FILES)], root)
    name = _entry_name(source, root, download_href, download_name)
    key = store.key(name, json.dumps(record, sort_keys=True))   # the copies' folder: one per entry and depfile
    page = nbformat.writes(page_notebook(nb, where, download_href, download_name)) + "\n"   # as .write
    download = nbformat.writes(download_notebook(nb, literals, where)) + "\n"
    store.Store(cache_dir, ".json").put(name, json.dumps(
        {"deps": record, "page": page, "download": download}, ensure_ascii=False).encode("utf-8"))
    built = _write_copies(cache_dir, key, page, download)
    return Built(key, built.page, built.download, elapsed, record)


def prune(cache_dir: Path, keep: set[str], older_than: float = 3600.0) -> None:
    """Drop the copies' folders other than `keep` once they are an hour old (a concurrent build
    may still be reading a newer one), and entries of notebooks no longer built."""
    if not cache_dir.is_dir():
        return
    for path in cache_dir.iterdir():
        try:
            if path.is_dir() and path.name not in keep and time.time() - path.stat().st_mtime > older_than:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


# --- under MkDocs -------------------------------------------------------------------------------

class Job(threading.Thread):
    """One notebook built in the background, so its kernel runs while the figures_src modules
    run; joined (`result()`) before the page is read."""

    def __init__(self, source: Path, where: str, cache_dir: Path, root: Path, href: str, name: str):
        super().__init__(name=f"notebook {where}", daemon=True)
        self.args = (source, where, cache_dir, root, href, name)
        self.where = where
        self.built: Built | None = None
        self.error: Exception | None = None
        self.start()

    def run(self) -> None:
        try:
            self.built = build(*self.args)
        except Exception as exc:  # noqa: BLE001 - reported when the page is read
            self.error = exc

    def result(self) -> Built:
        """The built copies; NotebookError (file:line) if the notebook failed."""
        self.join()
        if isinstance(self.error, NotebookError):
            raise self.error
        if self.error is not None:
            raise NotebookError(f"{self.where}: {type(self.error).__name__}: {self.error}") from self.error
        return self.built


def material_html(html_text: str) -> str:
    """mkdocs-jupyter's HTML reduced to the notebook, with code cells as Material code blocks.

    Its template (mkdocs_html/notebook.html.j2) always puts ~590 KB of JupyterLab CSS, a
    clipboard script and MathJax/Mermaid loaders before `div.jupyter-wrapper`, and gives each
    code cell a copy-to-clipboard widget with a hidden second copy of its source; it has no
    option to leave them out. The site styles notebooks itself (docs/stylesheets/lab.css),
    so only the wrapper is kept, the widgets are dropped, code blocks become
    `div.highlight > pre > code` (the theme's colours and copy button), heading permalinks
    use the theme's class, and the input areas are no longer keyboard stops.
    """
    from bs4 import BeautifulSoup

    start = html_text.find('<div class="jupyter-wrapper">')
    if start < 0:
        raise NotebookError("mkdocs-jupyter produced no div.jupyter-wrapper (did its template change?)")
    soup = BeautifulSoup(html_text[start:], "html.parser")
    wrapper = soup.select_one("div.jupyter-wrapper")
    for node in wrapper.select(".zeroclipboard-container, .clipboard-copy-txt, .jp-Collapser"):
        node.decompose()
    for block in wrapper.select("div.highlight-ipynb"):
        block["class"] = ["highlight"]
    for pre in wrapper.select("div.highlight > pre"):
        code = soup.new_tag("code")
        for child in list(pre.contents):
            if not (child.name == "span" and not child.get_text() and not child.attrs):
                code.append(child.extract())
        pre.clear()
        pre.append(code)
    for cell in wrapper.select(".jp-RenderedMarkdown"):
        _math_like_arithmatex(soup, cell)
    for link in wrapper.select("a.anchor-link"):
        link["class"] = ["headerlink"]
        link["title"] = "Odnośnik do tej sekcji"
    for node in wrapper.select(".jp-Cell-inputWrapper[tabindex]"):
        del node["tabindex"]
    return str(wrapper)


_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)


def _math_like_arithmatex(soup, cell) -> None:
    """Math of a Markdown cell as pymdownx.arithmatex (generic) writes it on every other page:
    `span.arithmatex` holding `\\(…\\)` or `\\[…\\]`, for the site's KaTeX and search index.
    nbconvert writes it as `$…$` / `$$…$$` for a browser-side renderer."""
    for node in list(cell.find_all(string=_MATH)):
        if node.find_parent(["code", "pre"]) or node.find_parent(class_="arithmatex"):
            continue
        parts, last = [], 0
        for m in _MATH.finditer(node):
            parts.append(node[last:m.start()])
            display = m.group(1) is not None
            span = soup.new_tag("span", attrs={"class": "arithmatex arithmatex-display" if display
                                               else "arithmatex"})
            span.string = f"\\[{m.group(1)}\\]" if display else f"\\({m.group(2)}\\)"
            parts.append(span)
            last = m.end()
        parts.append(node[last:])
        for part in parts:
            if part != "":
                node.insert_before(part)
        node.extract()
