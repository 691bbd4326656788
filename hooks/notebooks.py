"""MkDocs hook: notebook pages (jupytext percent `.py` under docs/laby/), executed at build time.

The work is done by anatomia_engine/notebooks.py; this adapter hands its executed page copy
to mkdocs-jupyter (`include: ["*.ipynb"]`, `execute: false`, `no_prompt: true`), which
renders it as it renders any notebook (`include: ["page.ipynb"]`), and publishes the download
copy next to the page.

on_files:        start building (or taking from `.cache/notebooks/<key>/`) both copies of every
                 notebook in a background thread, so the kernel runs while the figures_src
                 modules do; add `<name>.ipynb` (the download copy).
on_pre_page:     wait for the build (its error stops the build here, with file:line); point
                 the page's File (and mkdocs-jupyter's NotebookFile wrapper) at the executed
                 copy, and the download's File at the download copy.
on_page_content: keep the notebook part of mkdocs-jupyter's HTML and make its code cells
                 Material code blocks (see `material_html`).
on_post_build:   drop cache entries this build did not use.
Math in Markdown cells, which nbconvert writes as `$…$` / `$$…$$` for a browser-side renderer,
is given the site's arithmatex form in the same pass (KaTeX and the search index expect it).
"""

from __future__ import annotations

import hashlib
import logging
import posixpath
import re
import threading
from pathlib import Path

from bs4 import BeautifulSoup
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from anatomia_engine import cpu, notebooks, store

log = logging.getLogger("mkdocs.hooks.notebooks")

NOTEBOOK_DIR = "laby/"                 # docs/laby/*.py are notebook pages
_pages: dict[str, _Build] = {}         # src_uri -> its build
_used: set[str] = set()                # cache keys used by this build


def is_notebook(file: File) -> bool:
    """A notebook page: a jupytext percent `.py` file under docs/laby/."""
    return file.src_uri.startswith(NOTEBOOK_DIR) and file.src_uri.endswith(".py")


def _cache_dir(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent / ".cache" / "notebooks"


class _Build(threading.Thread):
    """One notebook built in the background, so its kernel runs while the figures_src modules
    run (hooks/computed.py); joined before the page is read."""

    def __init__(self, source: Path, where: str, cache_dir: Path, root: Path, href: str, name: str,
                 download: File):
        super().__init__(name=f"notebook {where}", daemon=True)
        self.args = (source, where, cache_dir, root, href, name)
        self.where = where
        self.download = download
        self.built: notebooks.Built | None = None
        self.error: Exception | None = None
        self.reported = False

    def run(self) -> None:
        cpu.mark(f"{self.where} started")
        try:
            with cpu.thread_part("notebook: client thread (nbclient, both copies written)"):
                self.built = notebooks.build(*self.args[:4], download_href=self.args[4],
                                             download_name=self.args[5])
        except Exception as exc:  # noqa: BLE001 - reported when the page is read
            self.error = exc
        cpu.mark(f"{self.where} done")

    def result(self) -> notebooks.Built:
        self.join()
        if isinstance(self.error, notebooks.NotebookError):
            raise PluginError(str(self.error))
        if self.error is not None:
            raise PluginError(f"{self.where}: {type(self.error).__name__}: {self.error}") from self.error
        assert self.built is not None
        self.download.abs_src_path = str(self.built.download)   # copied after the pages are built
        _used.add(self.built.key)
        if self.reported:
            return self.built
        self.reported = True
        if self.built.seconds is None:
            log.info("%s: outputs from .cache/notebooks (key %s)", self.where, self.built.key[:12])
        else:
            log.info("%s: executed in %.1f s (key %s)", self.where, self.built.seconds, self.built.key[:12])
        return self.built


@event_priority(100)   # before mkdocs-jupyter's on_files, which must see the executed .ipynb
def on_files(files: Files, config: MkDocsConfig) -> Files:
    _pages.clear()
    _used.clear()
    root = Path(config.config_file_path).resolve().parent
    for file in [f for f in files if is_notebook(f)]:
        where = f"docs/{file.src_uri}"
        source = Path(file.abs_src_path)
        download_uri = file.src_uri[:-3] + ".ipynb"
        name = posixpath.basename(download_uri)
        href = f"../{name}" if config.use_directory_urls else name   # from laby/x/ (or laby/x.html)
        # The entry's name is known once the notebook ran (it names what the kernel loaded):
        # until then both Files point into a pending folder, re-pointed by _Build.result().
        pending = _cache_dir(config) / f".pending-{hashlib.sha256(where.encode()).hexdigest()[:12]}"
        # mkdocs-jupyter takes only files named page.ipynb (mkdocs.yml), so this stays a download.
        download = File.generated(config, download_uri, abs_src_path=str(pending / notebooks.DOWNLOAD))
        files.append(download)
        job = _Build(source, where, _cache_dir(config), root, href, name, download)
        job.start()
        _pages[file.src_uri] = job
        file.abs_src_path = str(pending / notebooks.PAGE)      # the page renders the executed copy
    return files


@event_priority(100)   # before mkdocs-jupyter's on_pre_page, which reads page.file.abs_src_path
def on_pre_page(page: Page, config: MkDocsConfig, files: Files) -> Page:
    job = _pages.get(page.file.src_uri)
    if job is not None:
        built = job.result()
        # mkdocs-jupyter wraps the File in a NotebookFile whose abs_src_path is recomputed from
        # docs_dir; point the wrapper at the executed copy too.
        page.file.abs_src_path = str(built.page)
    return page


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
    start = html_text.find('<div class="jupyter-wrapper">')
    if start < 0:
        raise PluginError("mkdocs-jupyter produced no div.jupyter-wrapper (did its template change?)")
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


@event_priority(50)   # before hooks/katex.py typesets the arithmatex spans made here
def on_page_content(html_text: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    job = _pages.get(page.file.src_uri)
    if job is None:
        return html_text
    # Parsing the page takes ~0.3 s: keep the result beside the executed notebook (store.py:
    # keyed by the page's HTML and this file, checksummed; a damaged copy is parsed again).
    kept = store.Store(Path(job.result().page).parent, ".html")
    name = store.key(html_text, Path(__file__).read_bytes())
    cached = kept.get(name, f"docs/{page.file.src_uri}")
    if cached is not None:
        slim = cached.decode("utf-8")
    else:
        try:
            slim = material_html(html_text)
        except PluginError as exc:
            raise PluginError(f"docs/{page.file.src_uri}: {exc}") from None
        kept.put(name, slim.encode("utf-8"))
    slim, figures = notebooks.figures_as_files(slim)
    folder = Path(config.site_dir) / posixpath.dirname(page.file.dest_uri)
    folder.mkdir(parents=True, exist_ok=True)
    for filename, data in figures.items():      # beside the page, named by content
        (folder / filename).write_bytes(data)
    return slim


def on_build_error(error: Exception) -> None:
    """A build that stops early (a false claim on another page, a failing module) still waits
    for the notebooks it started: a Jupyter client left running in its thread while the
    interpreter exits can abort that exit inside ZeroMQ (`Assertion failed: pfd.revents &
    POLLIN`) and hang the build instead of ending it with the error. Bounded by the cell and
    start-up time limits of anatomia_engine/notebooks.py."""
    for job in _pages.values():
        job.join()


def on_post_build(config: MkDocsConfig) -> None:
    """Keep one executed copy per notebook: drop cache entries this build did not use."""
    for job in _pages.values():
        job.result()
    notebooks.prune(_cache_dir(config), _used)
