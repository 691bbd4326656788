"""The lab notebook: a jupytext percent `.py` file, executed at build time, published twice.

`build` executes it with nbclient unless its store entry still holds and returns the page copy
mkdocs-jupyter renders, its figures and the download copy. The kernel is held to the modules' rules: it
records what it reads (deps.py) and refuses what no record reproduces (hermetic.py: unseeded generators,
the clock, the network, writes into docs/); a cell's output is bounded in size and line length and may
not show NaN. A failing cell stops the build with file:line; `stop()` ends every kernel at once (Ctrl-C).
Cell tags: `remove_cell` is left out of the page; `solution` cells with the same `exercise=N` form one
collapsible "Rozwiązanie ćwiczenia N"; `repo-only` is a note in the download. An image needs alt text:
`display(fig, metadata={"alt": "..."})`.
"""

import asyncio
import base64
import contextlib
import copy
import functools
import hashlib
import html
import json
import logging
import os
import re
import signal
import sys
import tempfile
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import jupytext
import nbformat
from bs4 import BeautifulSoup
from mkdocs.exceptions import BuildError

from anatomia_engine import deps, lines, placeholders, runner, sources, store
from anatomia_engine import messages as M

log = logging.getLogger("anatomia_engine.notebooks")

KERNEL = "python3"
PAGE = "page.ipynb"   # the name mkdocs-jupyter is told to render (mkdocs.yml)
REPO_ONLY_NOTE = (
    "*W tym miejscu przy budowaniu strony działa ukryta komórka, która porównuje wyniki notatnika "
    "z biblioteką `attn_core` projektu (tą samą, z której liczą pozostałe strony). Poza repozytorium "
    "projektu tej biblioteki nie ma, więc w pobranym notatniku komórkę pominięto.*"
)
# Run in the kernel before the first cell and after the last (deps.py records in that process,
# hermetic.py refuses there what no record reproduces, as in a module's run).
_START = ("from pathlib import Path as _Path\n"
          "from anatomia_engine import deps as _deps, hermetic as _hermetic\n"
          "_deps.start(_Path({root!r}))\nfor _p in {noted!r}:\n    _deps.note(_Path(_p))\n"
          "_hermetic.start(_Path({root!r}), {where!r})\n")
_REPORT = ("from IPython.display import display as _display\n"
           "_display({{'application/json': {{'deps': _deps.snapshot(_Path({root!r})),\n"
           "    'refused': _hermetic.refused, 'cells': _hermetic.cells}}}}, raw=True)\n")
# What one cell may show: its text outputs together, and one line of them (a page is no log file; one
# long line also made nbclient's stream coalescing quadratic). The lab's cells show at most a few hundred.
MAX_OUTPUT = 20_000   # characters per cell
MAX_LINE = 500        # characters per line
_NAN = re.compile(r"(?<![\w.])nan(?![\w(])", re.IGNORECASE)   # NumPy's nan, pandas' NaN; not "nanosekundy"
_TEXT = ("text/plain", "text/html", "text/markdown", "text/latex")
_running: dict[int, object] = {}   # id -> the NotebookClient executing (stop() ends their kernels)
_stopping = threading.Event()


class NotebookError(BuildError):
    """The notebook cannot be published; the message starts with the file (and line)."""


def stop() -> None:
    """End every running kernel now (Ctrl-C, another part of the build failed): a cell may run for
    minutes, and the build must not wait for it. The executing threads end with NotebookError."""
    _stopping.set()
    for client in list(_running.values()):
        pid = getattr(getattr(getattr(client, "km", None), "provisioner", None), "pid", None)
        if pid:
            try:
                os.killpg(pid, signal.SIGKILL)   # it runs in a session of its own (jupyter_client)
            except OSError:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def executing():
    """A thread pool to build notebooks in, waited for on leaving; an exception inside (a failed module)
    or Ctrl-C while waiting ends every kernel first, so the build stops now, not after a cell's minutes."""
    pool = ThreadPoolExecutor()
    try:
        yield pool
        pool.shutdown(wait=True)
    except BaseException:
        stop()
        pool.shutdown(wait=True)
        raise
    finally:
        _stopping.clear()


def cell_line(source: Path, nb, index: int) -> int | None:
    """The line of the notebook's source file where cell `index` starts (None if unknown)."""
    starts = lines.cell_starts(source.read_text(encoding="utf-8").splitlines())
    return starts[index] if len(starts) == len(nb.cells) and 0 <= index < len(starts) else None


def _at(where: str, source: Path, nb, index: int, offset: int = 0) -> str:
    first = cell_line(source, nb, index)
    return f"{where}:{first + offset}" if first else where


@dataclass(frozen=True)
class Built:
    key: str                    # names the entry and its record: it changes when the outputs may
    page: str                   # the executed page copy (.ipynb) for mkdocs-jupyter
    download: str               # the copy readers download
    figures: dict[str, bytes]   # the page's figures, files beside it
    seconds: float | None       # time spent executing; None when it came from the store
    deps: dict                  # what the kernel read (deps.py's record)


def failure_message(where: str, source: Path, nb, index: int, error: BaseException) -> str:
    """'docs/laby/lab-3.py:473: notebook cell 13 of 35 failed: …', the cell's source numbered with the
    file's lines and the traceback."""
    first = cell_line(source, nb, index)
    traceback = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", getattr(error, "traceback", "") or "")
    traceback = traceback.rsplit("-" * 18 + "\n", 1)[-1].strip("\n")   # nbclient repeats the source first
    failing = re.search(r"^Cell In\[\d+\], line (\d+)", traceback, re.MULTILINE)
    offset = int(failing.group(1)) - 1 if failing else None
    line = f":{first + (offset or 0)}" if first else ""
    name = f"{getattr(error, 'ename', type(error).__name__)}: {getattr(error, 'evalue', error)}"
    message = [M.text("cell_failed", where=where + line, cell=index + 1, cells=len(nb.cells), error=name),
               "  cell source" + (f" (from line {first}):" if first else ":")]
    for n, text in enumerate(nb.cells[index].source.splitlines()):
        message.append(f"  {'>' if n == offset else ' '}{(first or 1) + n:4d} | {text}")
    if traceback.strip():
        message += ["  traceback:", textwrap.indent(traceback.rstrip(), "    ")]
    return "\n".join(message)


def kernel_environment(root: Path) -> dict[str, str]:
    """The kernel's environment: the modules' one, with the inline backend ipykernel would set."""
    env = runner.worker_environment(root)
    return dict(env, MPLBACKEND="module://matplotlib_inline.backend_inline", SOURCE_DATE_EPOCH="0")


def execute(nb, source: Path, where: str, root: Path) -> dict:
    """Run every cell of `nb` in place, recording in the kernel; return the kernel's record."""
    from nbclient.exceptions import CellControlSignal, DeadKernelError
    from traitlets.config import Config

    noted = [str(source), __file__]
    start = _START.format(root=str(root), noted=noted, where=where)
    nb.cells.insert(0, nbformat.v4.new_code_cell(start, id="start"))
    report = nbformat.v4.new_code_cell(_REPORT.format(root=str(root)), id="report")
    nb.cells.append(report)
    running = {"index": 0}

    def on_cell_start(cell, cell_index):
        running.update(index=cell_index)
        if _stopping.is_set():
            raise KeyboardInterrupt

    # Unix sockets of this build's own: a free TCP port picked here may be taken before the kernel binds it
    sockets = tempfile.TemporaryDirectory(prefix="anatomia-kernel-")
    ipc = Config(KernelManager={"transport": "ipc", "ip": os.path.join(sockets.name, "kernel")})
    client = _bounded_client()(nb, config=ipc, kernel_name=KERNEL, timeout=180, startup_timeout=120,   # s
                            record_timing=False, coalesce_streams=True,   # the same page every build
                            on_cell_start=on_cell_start, resources={"metadata": {"path": str(root)}})
    _running[id(client)] = client
    with sockets, tempfile.TemporaryFile(mode="w+", encoding="utf-8") as kernel_log:
        try:
            if _stopping.is_set():
                raise KeyboardInterrupt
            client.execute(env=kernel_environment(root), stderr=kernel_log)
        except BaseException as exc:
            del nb.cells[0], nb.cells[-1]
            if _stopping.is_set() or isinstance(exc, KeyboardInterrupt):
                raise NotebookError(M.text("notebook_stopped", where=where)) from None
            if client.too_much is not None:
                index, message = client.too_much
                raise NotebookError(f"{_at(where, source, nb, index - 1)}: {message}") from None
            kernel_log.seek(0)
            if isinstance(exc, (CellControlSignal, DeadKernelError)):
                if isinstance(exc, DeadKernelError):
                    exc.traceback = kernel_log.read()[-3000:]
                index = running["index"] - 1
                if not 0 <= index < len(nb.cells):
                    raise NotebookError(M.text("inputs_unread", where=where, problem=exc)) from None
                raise NotebookError(failure_message(where, source, nb, index, exc)) from None
            if not isinstance(exc, Exception):
                raise
            # the kernel did not start or stopped answering
            problem = f"{type(exc).__name__}: {exc}\n  kernel log:\n" + textwrap.indent(
                kernel_log.read()[-3000:].rstrip(), "    ")
            raise NotebookError(M.text("kernel_failed", where=where, kernel=KERNEL, python=sys.executable,
                                       problem=problem)) from None
        finally:
            _running.pop(id(client), None)
    del nb.cells[0], nb.cells[-1]
    if client.too_much is not None:   # (the interrupt may have reached a later cell, or none)
        index, message = client.too_much
        raise NotebookError(f"{_at(where, source, nb, index - 1)}: {message}")
    records = [o.data["application/json"] for o in report.outputs
               if o.output_type == "display_data" and "application/json" in o.get("data", {})]
    if len(records) != 1 or not isinstance(records[0], dict) or "files" not in records[0].get("deps", {}):
        raise NotebookError(M.text("kernel_report", where=where, report=f"{report.outputs!r:.300}"))
    if records[0].get("refused"):   # a cell caught the refusal: it still stops the build
        code, line = (records[0].get("cells") or [[None, None]])[0]
        index = next((i for i, c in enumerate(nb.cells)
                      if c.cell_type == "code" and code and c.source.strip() == code.strip()), None)
        message = records[0]["refused"][0]
        if index is None:
            raise NotebookError(message if message.startswith(where) else f"{where}: {message}")
        at = _at(where, source, nb, index, (line or 1) - 1)
        raise NotebookError(f"{at}: notebook cell {index + 1} {message.removeprefix(where + ' ')}")
    check_outputs(nb, source, where)
    return dict(records[0]["deps"])


def _bounded_client():
    """NotebookClient that counts each cell's text output as it arrives: past MAX_OUTPUT characters or a
    line of MAX_LINE it keeps no more and interrupts the kernel (before nbclient joins the pieces); the
    cell then fails, and `too_much` says why."""
    from nbclient import NotebookClient

    class BoundedClient(NotebookClient):
        too_much: tuple[int, str] | None = None   # (cell index, message)

        def output(self, outs, msg, display_id, cell_index):
            if self.too_much is not None:
                return None
            content = msg.get("content", {})
            if msg["msg_type"] == "stream":
                texts = [content.get("text", "")]
            else:
                texts = [str(v) for k, v in content.get("data", {}).items() if k in _TEXT]
            counts = self.__dict__.setdefault("_anatomia_counts", {})
            total, line = counts.get(cell_index, (0, 0))
            for text in texts:
                total += len(text)
                parts = text.split("\n")
                longest = max([line + len(parts[0]), *(len(part) for part in parts[1:])])
                line = line + len(parts[0]) if len(parts) == 1 else len(parts[-1])
                if total > MAX_OUTPUT or longest > MAX_LINE:
                    self.too_much = (cell_index, M.text("cell_output_size", cell=cell_index, size=total,
                                                        line=longest, most=MAX_OUTPUT, longest=MAX_LINE))
                    asyncio.ensure_future(self.km.interrupt_kernel())
                    return None
                if msg["msg_type"] != "stream":
                    line = 0
            counts[cell_index] = (total, line)
            return super().output(outs, msg, display_id, cell_index)

    return BoundedClient


def check_outputs(nb, source: Path, where: str) -> None:
    """Refuse a cell that shows NaN: readers would see [nan nan], which no page may publish."""
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            texts = [output.get("text", "")] + [
                "".join(v) if isinstance(v, list) else str(v)
                for k, v in output.get("data", {}).items() if k in _TEXT]
            for text in texts:
                m = _NAN.search(text)
                if m:
                    line = text[:m.start()].count("\n")
                    shown = text.splitlines()[line] if text.splitlines() else text
                    raise NotebookError(f"{_at(where, source, nb, index)}: " + M.text(
                        "cell_nan", cell=index + 1, shown=shown.strip()[:120]))


def figure_html(data: dict, alt: str, figures: dict[str, bytes]) -> str:
    """An <img> with alt text (nbconvert's has none) for an image output, its file (named by its content)
    into `figures`; sized in CSS px, so that the layout stays still, and loaded lazily."""
    if "image/svg+xml" in data:
        svg = re.sub(r"<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*|<metadata>.*?</metadata>\s*", "",
                     data["image/svg+xml"], flags=re.DOTALL)
        svg = re.sub(r"font-family: ('[^']+')(?:, [^;\"]+)?", r"font-family: \1, sans-serif", svg)
        image, kind = svg.encode("utf-8"), "svg"
        size = re.search(r'<svg[^>]*?\swidth="([\d.]+)pt"[^>]*?\sheight="([\d.]+)pt"', svg)   # 1 pt = 4/3 px
        size = size and (round(float(size[1]) * 4 / 3), round(float(size[2]) * 4 / 3))
    else:
        image, kind = base64.b64decode(data["image/png"]), "png"
        size = (int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big"))   # its IHDR
    name = f"rysunek-{hashlib.sha256(image).hexdigest()[:12]}.{kind}"
    figures[name] = image
    dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
    return (f'<img alt="{html.escape(alt)}" class="lab-figure" src="{name}"{dims}'
            ' loading="lazy" decoding="async">')


def page_notebook(executed, where: str, download_href: str, download_name: str):
    """The executed notebook as the page shows it, and its figures: tags applied and dropped (mkdocs-jupyter
    would show them), images as files with their alt text, the download button under the `# title`."""
    nb = copy.deepcopy(executed)
    cells, current, figures = [], None, {}

    def raw_html(text: str, cell_id: str):
        cells.append(nbformat.v4.new_raw_cell(text, metadata={"raw_mimetype": "text/html"}, id=cell_id))

    for index, cell in enumerate(nb.cells):
        tags = cell.metadata.pop("tags", [])
        if "remove_cell" in tags:
            continue
        for output in cell.get("outputs", []):
            if {"image/svg+xml", "image/png"} & set(output.get("data", {})):
                alt = str(output.get("metadata", {}).get("alt", "")).strip()
                if not alt:
                    raise NotebookError(M.text("cell_no_alt", where=where, cell=index + 1))
                output["data"] = {"text/html": figure_html(output["data"], alt, figures)}
                output["metadata"] = {}
        exercise = cell.metadata.get("exercise")
        summary = None if "solution" not in tags else f"Rozwiązanie ćwiczenia {exercise}" if exercise \
            else "Rozwiązanie"
        if summary != current and current is not None:
            raw_html("</details>", f"{cell.id}-end")
        if summary != current and summary is not None:
            opening = f'<details class="success">\n<summary>{html.escape(summary)}</summary>'
            raw_html(opening, f"{cell.id}-begin")
        current = summary
        cells.append(cell)
    if current is not None:
        raw_html("</details>", "end")
    title = next((c for c in cells if c.cell_type == "markdown" and re.search(r"^# ", c.source, re.M)), None)
    if title is None:
        raise NotebookError(M.text("no_title", where=where))
    button = (f'<p class="lab-download"><a class="md-button" href="{html.escape(download_href)}" '
              f'download="{html.escape(download_name)}">Pobierz notatnik (.ipynb)</a></p>')
    title.source = re.sub(r"^(# .*)$", lambda m: f"{m[1]}\n\n{button}\n", title.source, count=1, flags=re.M)
    nb.cells = cells
    return nb, figures


def download_notebook(executed, where: str):
    """What readers download: no outputs, project-only cells replaced by a note, solutions collapsed."""
    nb = copy.deepcopy(executed)
    for index, cell in enumerate(nb.cells):
        tags = cell.metadata.get("tags", [])
        if "repo-only" in tags:
            cell = nb.cells[index] = nbformat.v4.new_markdown_cell(REPO_ONLY_NOTE, id=cell.id)
        if "solution" in tags:
            cell.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        raise NotebookError(M.text("bad_nbformat", where=where, problem=exc)) from None
    return nb


def build(source: Path, where: str, cache_dir: Path, root: Path, download_href: str,
          download_name: str) -> Built:
    """The page and download copies of the notebook at `source`: from the store while the kernel's record
    holds, else executed and stored."""
    sources.read_text(source, where)                 # UTF-8, or file:line
    placeholders.refuse_in_notebook(source, where)   # its Markdown cells are rendered by nbconvert, not by us
    entries = store.Store(cache_dir, ".json")
    relative = os.path.relpath(source.resolve(), root.resolve())
    name = store.key("notebook", relative, download_href, download_name)
    body, seconds = entries.get(name, where), None
    try:
        entry = json.loads(body) if body is not None else None
        if entry is not None and deps.problem(entry["deps"], root, kernel_environment(root)) is not None:
            entry = None
    except (ValueError, KeyError, TypeError) as exc:
        log.warning(M.text("stored_notebook", where=where, problem=exc))
        entry = None
    if entry is None:
        started = time.perf_counter()
        nb = jupytext.read(source)
        nb.metadata.pop("jupytext", None)   # neither copy needs the source's format
        for index, cell in enumerate(nb.cells):
            cell["id"] = f"cell-{index}"   # ids that do not change per build
        record = execute(nb, source, where, root)
        seconds = time.perf_counter() - started
        page, figures = page_notebook(nb, where, download_href, download_name)
        entry = {"deps": record,   # the copies end with a newline, as nbformat.write writes them
                 "page": nbformat.writes(page) + "\n",
                 "download": nbformat.writes(download_notebook(nb, where)) + "\n",
                 "figures": {file: base64.b64encode(data).decode("ascii") for file, data in figures.items()}}
        entries.put(name, json.dumps(entry, ensure_ascii=False).encode("utf-8"))
    figures = {file: base64.b64decode(data) for file, data in entry["figures"].items()}
    key = store.key(name, json.dumps(entry["deps"], sort_keys=True))
    return Built(key, entry["page"], entry["download"], figures, seconds, entry["deps"])


# ---------------------------------------------------------------------------------------------------
# mkdocs-jupyter's conversion, kept
# ---------------------------------------------------------------------------------------------------
# mkdocs-jupyter converts the executed copy to HTML (nbconvert, ~1,5 s) on every build. Its own `cache`
# option keys an entry by the notebook and its options only (neither its own version nor nbconvert's)
# and reads the entry unchecked (danielfrg/mkdocs-jupyter#161 asks for caching; the option that answered
# it has no checks), so the site keeps the conversion in its own checked store instead, keyed by all
# that produced it. mkdocs-jupyter converts inside the page's `render`, which its on_pre_page sets on
# the page; `keep_conversion` wraps that one method of that one page (tests/site/test_notebooks_cache.py).
CONVERTER = "mkdocs-jupyter"   # the distribution whose code, and whose requirements' code, converts


@functools.lru_cache(maxsize=1)
def converter_versions() -> tuple[str, ...]:
    """'name==version' of mkdocs-jupyter and of everything it requires, transitively (nbconvert,
    mistune, Pygments, Markdown, …): an upgrade of any of them may change the HTML. Worked out once per
    process: the code that converts in it is the code imported at its start."""
    seen: dict[str, str] = {}
    todo = [CONVERTER]
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        try:
            about = metadata.distribution(name).metadata   # parsed once: name, version, requirements
        except metadata.PackageNotFoundError:   # a requirement for another platform
            continue
        seen[name] = about["Version"]
        for requirement in about.get_all("Requires-Dist") or []:
            if "extra ==" not in requirement:   # an extra's requirements are not installed for it
                todo.append(re.match(r"[A-Za-z0-9._-]+", requirement).group())
    return tuple(f"{name}=={seen[name]}" for name in sorted(seen))


def conversion_key(executed: bytes, src_uri: str, options: dict) -> str:
    """The key of one notebook page's conversion: the executed copy mkdocs-jupyter reads, the page it
    becomes, mkdocs-jupyter's options, the converting libraries' versions and this module's code."""
    return store.key("conversion", src_uri, executed, json.dumps(options, sort_keys=True, default=repr),
                     *converter_versions(), store.code_key(sys.modules[__name__]))


def _toc_tokens(toc) -> list[dict]:
    """A page's table of contents as the tokens `get_toc` makes it from (the inverse of get_toc)."""
    return [{"level": link.level, "id": link.id, "name": link.title, "children": _toc_tokens(link.children)}
            for link in toc]


def keep_conversion(page, entries: store.Store, name: str, where: str) -> None:
    """Make `page.render` (mkdocs-jupyter's conversion) fill the page from the entry `name` when it is
    stored and sound, and convert and store it otherwise."""
    from mkdocs.structure.toc import get_toc

    convert = page.render   # mkdocs-jupyter's, bound to this page

    def render(config, files):
        body = entries.get(name, where)
        if body is not None:
            try:
                entry = json.loads(body)
                content, toc, title = entry["content"], get_toc(entry["toc"]), entry["title"]
                if not isinstance(content, str) or not isinstance(title, (str, type(None))):
                    raise TypeError("content or title of the wrong type")
            except (ValueError, KeyError, TypeError) as exc:
                log.warning(M.text("stored_conversion", where=where, problem=exc))
            else:
                page.content, page.toc = content, toc
                if title is not None:
                    page.title = title
                return
        # the title the conversion sets (mkdocs-jupyter sets it from the notebook's first heading, or not)
        before = page.__dict__.pop("title", None)
        convert(config, files)
        title = page.__dict__.get("title")
        if title is None and before is not None:
            page.title = before
        entries.put(name, json.dumps({"content": page.content, "toc": _toc_tokens(page.toc), "title": title},
                                     ensure_ascii=False).encode("utf-8"))

    page.render = render


def material_html(html_text: str, where: str) -> str:
    """mkdocs-jupyter's HTML reduced to the notebook, one `div.jp-Cell` per cell.

    Its template (0.26.3: no option for any) puts ~590 KB of JupyterLab CSS and scripts before the cells
    and ten nested wrappers in each code cell. Code becomes a Material code block without Pygments' name
    and whitespace spans, permalinks take the theme's class, math is written as arithmatex writes it."""
    start = html_text.find('<div class="jupyter-wrapper">')
    if start < 0:
        raise NotebookError(f"{where}: " + M.text("no_wrapper"))
    soup = BeautifulSoup(html_text[start:], "html.parser")
    wrapper = soup.select_one("div.jupyter-wrapper")
    for cell in wrapper.select("div.jp-Cell[id]"):
        outer = cell.parent if "jp-Cell" in cell.parent.get("class", []) else cell   # code cells: twice
        if "jp-CodeCell" in cell["class"]:
            kept = soup.new_tag("div", attrs={"class": "jp-Cell jp-CodeCell", "id": cell["id"]})
            kept.extend(cell.select("div.highlight-ipynb"))
            if cell.select(".jp-OutputArea-output"):
                kept.append(soup.new_tag("div", attrs={"class": "jp-Cell-outputWrapper"}))
                kept.contents[-1].extend(cell.select(".jp-OutputArea-output"))
        else:
            kept = cell.select_one(".jp-RenderedMarkdown")
            kept.attrs = {"class": "jp-Cell jp-MarkdownCell jp-RenderedMarkdown", "id": cell["id"]}
        outer.replace_with(kept)
    wrapper.select_one("div.jp-Notebook").unwrap()
    for block in wrapper.select("div.highlight-ipynb"):
        block["class"] = ["highlight"]
    for pre in wrapper.select("div.highlight > pre"):   # code cells and code in Markdown cells
        code = soup.new_tag("code")
        code.extend([c for c in list(pre.contents) if c.name != "span" or c.get_text() or c.attrs])
        pre.clear()
        pre.append(code)
    for span in wrapper.select("div.highlight span.n, div.highlight span.w"):
        span.unwrap()
    for link in wrapper.select("a.anchor-link"):
        link["class"], link["title"] = ["headerlink"], "Odnośnik do tej sekcji"
    return _MATH.sub(_arithmatex, str(wrapper))


# Math of a Markdown cell as nbconvert leaves it: `$…$` / `$$…$$` in text, never in code or a tag.
_MATH = re.compile(r"(<(pre|code)\b.*?</\2>|<[^>]*>)|\$\$([^<]+?)\$\$|\$([^<$]+?)\$", re.DOTALL)


def _arithmatex(m: re.Match) -> str:
    """Math as pymdownx.arithmatex (generic) writes it on every other page, for mathml.py."""
    if m[1] is not None:
        return m[1]
    if m[3] is not None:
        return f'<span class="arithmatex arithmatex-display">\\[{m[3]}\\]</span>'
    return f'<span class="arithmatex">\\({m[4]}\\)</span>'
