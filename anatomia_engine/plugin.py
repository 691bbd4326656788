"""The MkDocs plugin `anatomia`: the site's build pipeline, its hooks in the order they run.

Run the modules and execute the lab notebooks (on_files), fill the pages (on_page_markdown), turn the
notebook's HTML into Material's and typeset its math (on_page_content), read each final page for the
link check and the Polish search (on_post_page), write the index and check the links (on_post_build).
Listed in mkdocs.yml after Material's `search` (whose index it replaces), before `mkdocs-jupyter`.
"""

import functools
import logging
import os
import pickle
import posixpath
import tempfile
import time
import traceback
from importlib.metadata import version
from pathlib import Path

import click
from mkdocs.commands import build as mkdocs_build
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure import pages as mkdocs_pages
from mkdocs.structure.files import File, InclusionLevel

from anatomia_engine import (
    deps,
    incremental,
    katex,
    links,
    live,
    markdown,
    notebooks,
    runner,
    search_pl,
    served,
    sources,
    store,
)
from anatomia_engine import messages as M
from anatomia_engine.config import Config

log = logging.getLogger("mkdocs.plugins.anatomia")


class _NoDirtyWarning(logging.Filter):
    """Drops MkDocs' warning that a `--dirty` build may leave navigation stale (see on_startup)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("A 'dirty' build")


class AnatomiaPlugin(BasePlugin[Config]):
    def __init__(self):
        super().__init__()
        self.serving = self.dirty = False
        self.server = None
        self.differential = incremental.Differential()
        self.executed_copies = None   # the executed notebooks' folder (kept between serve's builds)
        self.shown = served.Shown()   # under serve: the last good pages while a failure is shown
        self.problems = served.Problems()
        self.failure: Exception | None = None

    def on_startup(self, *, command, dirty):
        """Defined, so `mkdocs serve` keeps this instance (its warm worker, its differential state)."""
        self.serving = command == "serve"
        self.dirty = dirty
        # MkDocs warns that a --dirty build leaves navigation stale; this plugin renders again every page
        # whose navigation or inputs changed (incremental.py), so the warning would only fail --strict.
        # (Material's projects plugin filters it the same way.)
        logging.getLogger(mkdocs_build.__name__).addFilter(_NoDirtyWarning())

    def on_shutdown(self):
        runner.stop_worker()

    def on_config(self, config):
        self.root = Path(config.config_file_path).resolve().parent
        if "SOURCE_DATE_EPOCH" not in os.environ and (stamp := sources.source_date_epoch(self.root)):
            os.environ["SOURCE_DATE_EPOCH"] = stamp   # the build date MkDocs writes: the last commit's
        self.site_dir = Path(config.site_dir)
        self.docs_name = Path(os.path.relpath(Path(config.docs_dir).resolve(), self.root)).as_posix()
        self.pages = katex.renderer().store = store.Store(store.folder(self.root, "pages"))
        self.search = store.Store(store.folder(self.root, "search"), ".json")
        self.conversions = store.Store(store.folder(self.root, "notebooks"), ".html")   # their HTML
        if "anatomia_engine.markdown" not in config.markdown_extensions:
            config.markdown_extensions.insert(0, "anatomia_engine.markdown")
        self.uses_search = "material/search" in config.plugins
        return config

    def on_pre_build(self, *, config):
        if not self.dirty:   # every page is rendered: nothing is kept from an earlier build
            self.differential = incremental.Differential()
        self.sections: dict[str, list[dict]] = {}   # url -> search documents of the pages this build renders
        self.search_meta: dict[str, dict] = {}
        self.notebook_inputs: list[Path] = []   # what the notebooks' kernels read
        self.executed: dict[str, str] = {}   # notebook page -> its executed copy
        # the logger of the core's warnings about links: "properdocs.structure.pages" under
        # ProperDocs (which maps mkdocs.* imports onto itself), "mkdocs.structure.pages" under MkDocs
        pages_log = logging.getLogger(mkdocs_pages.__name__)
        for earlier in [f for f in pages_log.filters if isinstance(f, links.Checker)]:
            pages_log.removeFilter(earlier)
        self.links = links.Checker(Path(config.docs_dir), self.docs_name + "/")
        pages_log.addFilter(self.links)

    def on_files(self, files, *, config):
        started = time.perf_counter()
        with notebooks.executing() as pool:   # the notebooks execute while the modules run; both end here
            notebooks_run = {file: pool.submit(self._build_notebook, file, config) for file in files
                             if self._is_notebook(file.src_uri)}
            self.results, ran = runner.compute(root=self.root, keep_worker=self.serving)
        if ran:
            log.info("figures_src: ran %s in %.1f s; %d module(s) from cache", ", ".join(ran),
                     time.perf_counter() - started, len(self.results) - len(ran))
        for name, result in self.results.items():
            for filename, text in result.contents.items():
                files.append(File.generated(config, f"{markdown.FIGURE_DIR}/{name}/{filename}", content=text))
        if notebooks_run and self.executed_copies is None:
            self.executed_copies = tempfile.TemporaryDirectory(prefix="anatomia-notebooks-")
        texts = {}   # what each page is made from, for the differential build
        for file, run in notebooks_run.items():
            built = run.result()
            log.info("%s/%s: %s (key %s)", self.docs_name, file.src_uri, "outputs from the cache"
                     if built.seconds is None else f"executed in {built.seconds:.1f} s", built.key[:12])
            # mkdocs-jupyter renders the executed copy (page.ipynb); the download goes beside the page.
            # The copy is rewritten only when it changed: its age is what `--dirty` compares.
            page = Path(self.executed_copies.name, file.src_uri, notebooks.PAGE)
            page.parent.mkdir(parents=True, exist_ok=True)
            if not page.is_file() or page.read_text(encoding="utf-8") != built.page:
                page.write_text(built.page, encoding="utf-8")
            texts[file.src_uri] = file.content_string + "\n" + built.page
            file.abs_src_path = self.executed[file.src_uri] = str(page)
            files.append(File.generated(config, file.src_uri[:-3] + ".ipynb", content=built.download))
            folder = file.src_uri[:-3] if config.use_directory_urls else posixpath.dirname(file.src_uri)
            for name, data in built.figures.items():
                files.append(File.generated(config, f"{folder}/{name}", content=data))
            self.notebook_inputs += deps.inputs(built.deps, self.root)
        self.texts = texts
        return files

    def on_nav(self, nav, *, config, files):
        """A `--dirty` build: mark the pages whose inputs changed (incremental.py); the others keep their
        titles and front matter. Here, not in on_files: the blog gives its posts their addresses in its
        on_files, and mkdocs-jupyter makes the notebooks pages in its own."""
        self.files = files   # as every plugin's on_files left them
        if self.dirty:
            # every page: the blog marks its posts included only later (its own on_nav)
            pages = files.documentation_pages(inclusion=InclusionLevel.all)
            texts = {file.src_uri: self.texts.get(file.src_uri) or file.content_string for file in pages}
            digests = {name: incremental.results_digest(result) for name, result in self.results.items()}
            sources = [file.src_uri for file in files if not file.generated_by]
            blog = config.plugins.get("material/blog")
            listing = [blog.config.blog_dir.rstrip("/") + "/"] if blog is not None else []
            tags = config.plugins.get("material/tags")
            exported = tags is not None and tags.config.enabled and tags.config.export
            again = self.differential.plan(pages, sources, config.config_file_path, texts, digests, listing,
                                           exported)
            log.info("rendering %d of %d page(s) again", len(again), len(pages))
            if self.server is not None:   # put back if this build fails
                self.shown.keep(file.abs_dest_path for file in pages if file.src_uri in again)
            self.differential.restore(file.page for file in pages if file.page)
        return nav

    def _is_notebook(self, src_uri: str) -> bool:
        return src_uri.startswith(self.config.notebooks) and src_uri.endswith(".py")

    def _build_notebook(self, file, config) -> notebooks.Built:
        name = posixpath.basename(file.src_uri[:-3] + ".ipynb")
        href = f"../{name}" if config.use_directory_urls else name   # from laby/x/ (or laby/x.html)
        return notebooks.build(Path(file.abs_src_path), f"{self.docs_name}/{file.src_uri}",
                               store.folder(self.root, "notebooks"), self.root, href, name)

    @event_priority(50)   # before mkdocs-jupyter's on_pre_page, which reads the path
    def _point_at_executed_copy(self, page, *, config, files):
        """Point mkdocs-jupyter's NotebookFile (it works the path out from docs_dir) at the executed copy."""
        if self._is_notebook(page.file.src_uri):
            page.file.abs_src_path = self.executed[page.file.src_uri]
        return page

    @event_priority(-50)   # after mkdocs-jupyter's on_pre_page, which sets the page's render to convert
    def _keep_conversion(self, page, *, config, files):
        """The notebook's HTML kept in the store by all that produced it (notebooks.keep_conversion)."""
        jupyter = config.plugins.get("mkdocs-jupyter")
        if self._is_notebook(page.file.src_uri) and jupyter is not None and "render" in vars(page):
            executed = Path(page.file.abs_src_path).read_bytes()
            name = notebooks.conversion_key(executed, page.file.src_uri, dict(jupyter.config))
            notebooks.keep_conversion(page, self.conversions, name, f"{self.docs_name}/{page.file.src_uri}")
        return page

    on_pre_page = CombinedEvent(_point_at_executed_copy, _keep_conversion)

    def on_page_read_source(self, *, page, config):
        """A page's source read here, so that one not in UTF-8 or nested too deep stops with file:line."""
        if page.file.abs_src_path and page.file.src_uri.endswith(".md"):
            return sources.read_page(Path(page.file.abs_src_path), f"{self.docs_name}/{page.file.src_uri}")
        return None

    def on_page_markdown(self, text, *, page, config, files):
        # Material's indexer skips every page; the page's own `search:` (boost, exclude) is for ours
        self.search_meta[page.url] = search_pl.own_search_meta(page.meta)
        if not page.file.src_uri.endswith(".md"):    # notebooks are rendered by mkdocs-jupyter
            return None
        return markdown.render_page(text, markdown.Page(page.file.src_uri, page.file.content_string,
                                                        self.docs_name), self.results, meta=page.meta)

    def on_page_content(self, html, *, page, config, files):
        where = f"{self.docs_name}/{page.file.src_uri}"
        if self._is_notebook(page.file.src_uri):   # material_html kept by its input and its code
            name = store.key(html, store.code_key(notebooks.material))
            kept = self.pages.get(name, where)
            if kept is None:
                kept = notebooks.material_html(html, where).encode("utf-8")
                self.pages.put(name, kept)
            html = kept.decode("utf-8")
        return katex.render_html(html, where)

    def on_post_page(self, output, *, page, config):
        output = live.publish(output, page, config)
        source = Path(config.docs_dir) / page.file.src_uri
        source = source if source.is_file() else None
        where = f"{self.docs_name}/{page.file.src_uri}" if source else page.file.dest_uri
        markdown.check_theme_text(output.replace(page.content or "", " ", 1), where)   # tags, nav titles
        markdown.check_active_content(output, source.read_text(encoding="utf-8") if source else "", where)
        title = page.title or ""
        # its links and search documents, kept by its HTML and the code that reads them (not its comments)
        code = store.code_key(links, search_pl.documents)
        name = store.key(code, f"beautifulsoup4-{version('beautifulsoup4')}", page.url, title, output)
        kept = self.pages.get(name, where)
        if kept is None:
            kept = pickle.dumps((links.parse(output), search_pl.page_docs(page.url, title, output)))
            self.pages.put(name, kept)
        parsed, docs = pickle.loads(kept)
        checked = links.Page(page.file.dest_uri, output, where, source, parsed)
        sections = search_pl.own_docs(docs, self.search_meta.get(page.url, {})) if self.uses_search else None
        self.links.pages.append(checked)   # this build's; on_post_build adds the pages it kept
        if sections is not None:
            self.sections[page.url] = sections
        self.differential.kept[page.file.src_uri] = incremental.Kept(page.title, dict(page.meta), page.url,
                                                                     checked, sections)
        return output

    def on_post_build(self, *, config):
        site = Path(config.site_dir)
        # every page's links and search sections: rendered by this build or kept from the one that did
        every = self.files.documentation_pages(inclusion=InclusionLevel.all)
        stored = self.differential.kept
        pages = [stored[file.src_uri] for file in every if file.src_uri in stored]
        self.links.pages = [kept.links for kept in pages]
        if self.uses_search:
            kept = {kept.url: kept.sections for kept in pages if kept.url not in self.sections}
            search_pl.write_index(site, {**kept, **self.sections}, self.search)
        problems = self.links.check(site)
        for kept in (self.pages, self.search):
            kept.prune()
        if not self.dirty:   # every notebook page was rendered: the conversions no page used go
            self.conversions.prune()
        store.prune_others(self.root)
        if problems:
            raise PluginError(f"{len(problems)} broken link(s) or image(s):\n" + "\n".join(problems))
        self.differential.done(site, {file.dest_uri for file in self.files})
        self.shown.kept = {}   # a good build: its pages stay
        if self.server is not None:
            self._watch_inputs()

    def on_build_error(self, *, error):
        """Kept for the page that shows the failure under `mkdocs serve` (served.py)."""
        self.failure = error

    def on_serve(self, server, *, config, builder):
        """Watch every file a module run or the notebook read (an engine edit restarts `make serve`), and
        show a failed build on the open page. MkDocs' server answers the open tab again only after a good
        build; the builder it calls (the server's `builder`, which MkDocs lets on_serve change as it
        changes what is watched) is wrapped so that a failure is shown instead (served.py)."""
        self.server = server
        self._watch_inputs()
        server.builder = functools.partial(self._build_showing_failure, builder)
        return server

    def _build_showing_failure(self, build) -> None:
        """One build of `mkdocs serve`; a failure is said in the terminal and shown on every page, with
        the last good pages kept under it, and the server reloads the open tab as after a good build."""
        self.shown.clear()
        self.failure = None
        self.problems.lines = []
        core_log = logging.getLogger(mkdocs_build.__name__.split(".")[0])   # mkdocs, or properdocs
        core_log.addHandler(self.problems)
        try:
            build()
        except Exception as exc:  # noqa: BLE001 - every failure is shown; MkDocs' own loop would print it
            if not isinstance(exc, click.ClickException):   # a BuildError or warning was logged already
                traceback.print_exc()
            self.shown.put_back()
            lines = self.problems.lines or [str(self.failure or exc)]
            log.error(M.text("serve_failed"))
            self.shown.show(self.site_dir, "\n".join(lines))
        finally:
            core_log.removeHandler(self.problems)

    def _watch_inputs(self) -> None:
        paths = {self.root / "figures_src", self.root / "attn_core", *self.notebook_inputs}
        paths.update(path for result in self.results.values() for path in result.inputs)
        for path in sorted(paths):   # MkDocs counts a path watched twice once
            if path.exists() and not path.is_relative_to(Path(__file__).parent):
                self.server.watch(str(path))
