"""The MkDocs plugin `anatomia`: the site's build pipeline, its hooks in the order they run.

Make the build's state and register the Markdown extension with it (on_config); run the modules
and execute the lab notebooks (on_files); fill the pages (on_page_markdown, then the extension);
turn the notebook's HTML into Material's and typeset its math (on_page_content); check each
final page and read it for the link check and the Polish search (on_post_page); write the index
and check the links (on_post_build).

Where the order against another plugin matters, the hook says so with MkDocs' `event_priority`
and `ORDER` below lists it; on_config stops the build if the plugins of mkdocs.yml break it.
"""

from __future__ import annotations

import functools
import logging
import os
import pickle
import posixpath
import tempfile
import traceback
from importlib.metadata import version
from pathlib import Path

import click
import lxml.etree
from mkdocs.commands import build as mkdocs_build
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure import pages as mkdocs_pages
from mkdocs.structure.files import File, InclusionLevel
from watchdog.observers.polling import PollingObserver

from anatomia_engine import (
    deps,
    final_page,
    incremental,
    links,
    live,
    made_files,
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
from anatomia_engine.errors import EngineError
from anatomia_engine.state import BuildState
from anatomia_engine.templates import StoredBytecode

log = logging.getLogger("mkdocs.plugins.anatomia")

# Seconds between two looks of `make serve` at the files it watches. MkDocs looks every 0,5 s: a
# save waits 0,25 s on average before its build starts, a quarter of a Markdown rebuild's budget.
# It polls rather than asks the kernel so that edits on container and network mounts are seen
# (mkdocs/mkdocs#2477), and so does this interval. This site's watched paths are few: serve idles
# at 0,013 s of CPU a second polling every 0,5 s, 0,027 s every 0,25 s.
POLL_SECONDS = 0.25
# Seconds the server waits, after a look found a change, for more changes before it builds. What
# one look finds reaches it within milliseconds; MkDocs waits 0,1 s.
SETTLE_SECONDS = 0.02

# The extensions this plugin registers itself, with the build's state: listed by name in
# mkdocs.yml they would run a second time, on pages no plugin registered
OWN_EXTENSIONS = ("anatomia_engine.markdown", "anatomia_engine.katex", "anatomia_engine.mathml")

# Where this plugin's hook must run before or after another plugin's: (event, first, then),
# each a plugin's name in mkdocs.yml, or "name:method" for one handler of a combined event.
# Each pair is declared with event_priority on the hook below; on_config checks MkDocs' order.
ORDER = (
    # mkdocs-jupyter makes a notebook page of the executed copy this plugin points the file at
    ("files", "anatomia", "mkdocs-jupyter"),
    # mkdocs-jupyter reads the notebook's path, which this plugin points at the executed copy,
    # and sets the page's render, which this plugin wraps to keep the conversion
    ("pre_page", "anatomia:_point_at_executed_copy", "mkdocs-jupyter"),
    ("pre_page", "mkdocs-jupyter", "anatomia:_keep_conversion"),
    # the blog takes each post's Markdown for its excerpt: with the placeholders as tokens
    ("page_markdown", "anatomia", "material/blog"),
    # a notebook page's reading time counts its text after its math is typeset (MathML is
    # left out of the count; TeX would count as words)
    ("page_content", "anatomia", "anatomia-route:_count_minutes"),
    # the reading times of the route's pages go into the page before it is read for search
    ("post_page", "anatomia-route", "anatomia"),
    # this plugin's search index replaces the one Material's search plugin writes
    ("post_build", "material/search", "anatomia"),
)


class _NoDirtyWarning(logging.Filter):
    """Drops MkDocs' warning that a `--dirty` build may leave navigation stale (see on_startup)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("A 'dirty' build")


def check_order(plugins) -> None:
    """Stop the build if MkDocs runs two plugins' hooks in an order ORDER forbids.

    `plugins`: MkDocs' PluginCollection, whose `events` lists each event's handlers in the
    order they run. A pair whose plugins are not both listed in mkdocs.yml is not checked.
    """
    for event, first, then in ORDER:
        labels = [_labels(plugins, handler) for handler in plugins.events[event]]
        firsts = [number for number, names in enumerate(labels) if first in names]
        thens = [number for number, names in enumerate(labels) if then in names]
        if not firsts or not thens:
            continue
        # every handler of `first` (a CombinedEvent registers several) before any of `then`'s
        if max(firsts) > min(thens):
            raise EngineError("plugin_order", event=f"on_{event}", first=first, then=then)


def _labels(plugins, handler) -> set[str]:
    """The names ORDER may give `handler`: its plugin's name in mkdocs.yml, and name:method."""
    instance = getattr(handler, "__self__", None)
    for name, plugin in plugins.items():
        if plugin is instance:
            return {name, f"{name}:{handler.__name__}"}
    return set()


class AnatomiaPlugin(BasePlugin[Config]):
    """Modules, pages, math, notebook, links and search: see the module's docstring."""

    def __init__(self):
        super().__init__()
        self.serving = False
        self.dirty = False
        self.server = None
        # the documentation folder (on_config)
        self.docs_dir: Path | None = None
        self.state: BuildState | None = None
        # the pages a --dirty build renders again, and what the others keep (between serve's builds)
        self.differential = incremental.Differential()
        # the executed notebooks' folder (kept between serve's builds)
        self.executed_copies = None
        # the search documents of every page, as the last good build indexed them
        self.indexed: dict[str, list[dict]] = {}
        # the files this plugin makes (under serve: kept between builds, see on_startup)
        self.made = made_files.MadeFiles(kept=False)
        # under serve: the last good pages while a failure is shown
        self.shown = served.Shown()
        self.problems = served.Problems()
        # under serve: SIGTERM and SIGHUP end the server as Ctrl-C does (on_startup)
        self.ending = served.EndLikeCtrlC()
        self.failure: Exception | None = None
        # the module runs started in on_pre_build, until on_files waits for them
        self.runs: runner.Runs | None = None

    # ---------------------------------------------------------------------------------------------
    # Start and configuration
    # ---------------------------------------------------------------------------------------------

    # Keep this instance through the builds of one `serve` (its warm worker, its differential state)
    def on_startup(self, *, command, dirty):
        self.serving = command == "serve"
        self.dirty = dirty
        # under serve a made file is written again only when it changed: a --dirty build copies
        # only those into the site (made_files.py)
        self.made = made_files.MadeFiles(kept=self.serving)
        # a server ended by `kill` or a closed terminal cleans up as after Ctrl-C (served.py)
        if self.serving:
            self.ending.install()
        # MkDocs warns that a --dirty build leaves navigation stale; this plugin renders again
        # every page whose navigation or inputs changed (incremental.py), so the warning would
        # only fail --strict. (Material's projects plugin filters it the same way.)
        logging.getLogger(mkdocs_build.__name__).addFilter(_NoDirtyWarning())

    # Stop the module worker and the notebook's kernel that serve kept warm; remove the made
    # files' and the notebooks' folders
    def on_shutdown(self):
        runner.stop_worker()
        notebooks.end_spare()
        self.made.close()
        if self.executed_copies is not None:
            self.executed_copies.cleanup()
            self.executed_copies = None
        self.ending.restore()

    # Make this build's state and register the Markdown extension with it
    def on_config(self, config):
        check_order(config.plugins)
        self.root = Path(config.config_file_path).resolve().parent
        # the build date MkDocs writes (the sitemap's lastmod): the last commit's, not the clock's
        stamp = sources.source_date_epoch(self.root)
        if "SOURCE_DATE_EPOCH" not in os.environ and stamp:
            os.environ["SOURCE_DATE_EPOCH"] = stamp
        self.site_dir = Path(config.site_dir)
        docs = Path(config.docs_dir).resolve()
        self.docs_dir = docs
        self.docs_name = Path(os.path.relpath(docs, self.root)).as_posix()
        # MkDocs runs on_config again for every build of `serve`: each build starts a new state
        self.state = BuildState.for_project(self.root)
        for name in OWN_EXTENSIONS:
            if name in config.markdown_extensions:
                raise EngineError("extension_by_name", name=name)
        # The extension registers, on each Markdown instance MkDocs and the blog's excerpts make:
        #   preprocessor   anatomia_placeholders (1000)  the page being converted
        #   blockprocessor anatomia_figures        (76)  a figure or table alone on its line
        #   treeprocessor  anatomia_placeholders    (6)  each token filled where it stands
        #   postprocessor  anatomia_mathml          (5)  Temml's MathML for arithmatex's TeX
        #   postprocessor  anatomia_output_check    (1)  nothing of the language left
        # (why each stands where it does: markdown.PlaceholderExtension). First in the list:
        # the priorities order the processors, the list only breaks their ties.
        config.markdown_extensions.insert(0, self.state.extension())
        self.uses_search = "material/search" in config.plugins
        return config

    # Forget what the last build read, unless this one is --dirty and renders only some pages
    def on_pre_build(self, *, config):
        if not self.dirty:
            self.differential = incremental.Differential()
        # url -> search documents of the pages this build renders
        self.sections: dict[str, list[dict]] = {}
        self.search_meta: dict[str, dict] = {}
        # what the notebooks' kernels read
        self.notebook_inputs: list[Path] = []
        # notebook page -> its executed copy
        self.executed: dict[str, str] = {}
        self._attach_link_checker(config)
        # The modules whose inputs changed start running now, while MkDocs lists the docs' and
        # the theme's files (~0,1 s before on_files: Material's theme has ~14 000); on_files
        # waits for them.
        self.runs = runner.start(root=self.root, keep_worker=self.serving)

    def _attach_link_checker(self, config) -> None:
        """A new link checker, as a filter of the core's page logger (it adds file:line to the
        core's link warnings); the last build's is taken off first."""
        # "properdocs.structure.pages" under ProperDocs (which maps mkdocs.* imports onto
        # itself), "mkdocs.structure.pages" under MkDocs
        pages_log = logging.getLogger(mkdocs_pages.__name__)
        for earlier in list(pages_log.filters):
            if isinstance(earlier, links.Checker):
                pages_log.removeFilter(earlier)
        self.links = links.Checker(Path(config.docs_dir), self.docs_name + "/")
        pages_log.addFilter(self.links)

    # ---------------------------------------------------------------------------------------------
    # Modules and notebooks
    # ---------------------------------------------------------------------------------------------

    # Before mkdocs-jupyter's on_files, which makes a notebook page of each file whose path is an
    # executed copy (`include: ["page.ipynb"]`): this hook points the lab's files at theirs
    @event_priority(50)
    def on_files(self, files, *, config):
        # the notebooks execute while the modules run; both end here
        with notebooks.executing() as pool:
            runs = {}
            for file in files:
                if self._is_notebook(file.src_uri):
                    runs[file] = pool.submit(self._build_notebook, file, config)
            modules, self.runs = self.runs, None
            self.results, ran = modules.finish()
        if ran:
            cached = len(self.results) - len(ran)
            log.info("figures_src: ran %s in %.1f s; %d module(s) from cache", ", ".join(ran),
                     modules.seconds, cached)
        for name, result in self.results.items():
            for filename, text in result.contents.items():
                path = f"{markdown.FIGURE_DIR}/{name}/{filename}"
                files.append(self.made.file(config, path, text))
        if runs and self.executed_copies is None:
            self.executed_copies = tempfile.TemporaryDirectory(prefix="anatomia-notebooks-")
        # what each page is made from, for the differential build
        self.texts = {}
        for file, run in runs.items():
            self._add_notebook(file, run.result(), files, config)
        return files

    def _add_notebook(self, file: File, built: notebooks.Built, files, config) -> None:
        """The executed notebook as the page's source, its download and its figures as files."""
        if built.seconds is None:
            how = "outputs from the cache"
        else:
            how = f"executed in {built.seconds:.1f} s"
        log.info("%s/%s: %s (key %s)", self.docs_name, file.src_uri, how, built.key[:12])
        # mkdocs-jupyter renders the executed copy (page.ipynb); the download goes beside the
        # page. The copy is rewritten only when it changed: its age is what `--dirty` compares.
        page = Path(self.executed_copies.name, file.src_uri, notebooks.PAGE)
        page.parent.mkdir(parents=True, exist_ok=True)
        if not page.is_file() or page.read_text(encoding="utf-8") != built.page:
            page.write_text(built.page, encoding="utf-8")
        self.texts[file.src_uri] = file.content_string + "\n" + built.page
        file.abs_src_path = str(page)
        self.executed[file.src_uri] = str(page)
        download = file.src_uri[:-3] + ".ipynb"
        files.append(self.made.file(config, download, built.download))
        folder = posixpath.dirname(file.src_uri)
        if config.use_directory_urls:
            folder = file.src_uri[:-3]
        for name, data in built.figures.items():
            files.append(self.made.file(config, f"{folder}/{name}", data))
        self.notebook_inputs += deps.inputs(built.deps, self.root)

    def _is_notebook(self, src_uri: str) -> bool:
        return src_uri.startswith(self.config.notebooks) and src_uri.endswith(".py")

    def _build_notebook(self, file, config) -> notebooks.Built:
        name = posixpath.basename(file.src_uri[:-3] + ".ipynb")
        # the download's address from laby/x/ (or from laby/x.html)
        href = name
        if config.use_directory_urls:
            href = f"../{name}"
        where = f"{self.docs_name}/{file.src_uri}"
        folder = store.folder(self.root, "notebooks")
        return notebooks.build(Path(file.abs_src_path), where, folder, self.root, href, name)

    # ---------------------------------------------------------------------------------------------
    # Navigation: the pages a --dirty build renders again
    # ---------------------------------------------------------------------------------------------

    # Here, not in on_files: the blog gives its posts their addresses in its on_files, and
    # mkdocs-jupyter makes the notebooks pages in its own
    def on_nav(self, nav, *, config, files):
        # as every plugin's on_files left them
        self.files = files
        if self.dirty:
            self._plan_dirty_build(config, files)
        return nav

    def _plan_dirty_build(self, config, files) -> None:
        """Mark the pages whose inputs changed (incremental.py); the others keep their titles and
        front matter."""
        # every page: the blog marks its posts included only later (its own on_nav)
        pages = files.documentation_pages(inclusion=InclusionLevel.all)
        texts = {}
        for file in pages:
            texts[file.src_uri] = self.texts.get(file.src_uri) or file.content_string
        digests = {}
        for name, result in self.results.items():
            digests[name] = incremental.results_digest(result)
        written = [file.src_uri for file in files if not file.generated_by]
        blog = config.plugins.get("material/blog")
        listing = []
        if blog is not None:
            listing.append(blog.config.blog_dir.rstrip("/") + "/")
        tags = config.plugins.get("material/tags")
        exported = tags is not None and tags.config.enabled and tags.config.export
        again = self.differential.plan(pages, written, config.config_file_path, texts, digests,
                                       listing, exported)
        log.info("rendering %d of %d page(s) again", len(again), len(pages))
        # put back if this build fails
        if self.server is not None:
            rendered = [file.abs_dest_path for file in pages if file.src_uri in again]
            self.shown.keep(rendered)
        self.differential.restore(file.page for file in pages if file.page)

    # ---------------------------------------------------------------------------------------------
    # Theme
    # ---------------------------------------------------------------------------------------------

    # MkDocs makes a new Jinja environment for every build (serve's too), which would compile
    # every template of the theme again: the compiled code is kept in the store (templates.py)
    def on_env(self, env, *, config, files):
        env.bytecode_cache = StoredBytecode(self.state.templates)
        return env

    # ---------------------------------------------------------------------------------------------
    # Pages
    # ---------------------------------------------------------------------------------------------

    # Before mkdocs-jupyter's on_pre_page, which reads the path: it works the path out from
    # docs_dir, so its NotebookFile is pointed at the executed copy here
    @event_priority(50)
    def _point_at_executed_copy(self, page, *, config, files):
        if self._is_notebook(page.file.src_uri):
            page.file.abs_src_path = self.executed[page.file.src_uri]
        return page

    # After mkdocs-jupyter's on_pre_page, which sets the page's render to convert: the
    # notebook's HTML is kept in the store by all that produced it (notebooks.keep_conversion)
    @event_priority(-50)
    def _keep_conversion(self, page, *, config, files):
        jupyter = config.plugins.get("mkdocs-jupyter")
        uri = page.file.src_uri
        if self._is_notebook(uri) and jupyter is not None and "render" in vars(page):
            executed = Path(page.file.abs_src_path).read_bytes()
            name = notebooks.conversion_key(executed, uri, dict(jupyter.config))
            where = f"{self.docs_name}/{uri}"
            notebooks.keep_conversion(page, self.state.conversions, name, where)
        return page

    # One event, two moments of it (MkDocs' documented CombinedEvent)
    on_pre_page = CombinedEvent(_point_at_executed_copy, _keep_conversion)

    # A page's source read here, so that one not in UTF-8 or nested too deep stops with file:line
    def on_page_read_source(self, *, page, config):
        if page.file.abs_src_path and page.file.src_uri.endswith(".md"):
            path = Path(page.file.abs_src_path)
            return sources.read_page(path, f"{self.docs_name}/{page.file.src_uri}")
        return None

    # Register the page with the build's state, its tags as tokens the extension fills
    def on_page_markdown(self, text, *, page, config, files):
        # Material's indexer skips every page; the page's own `search:` (boost, exclude) is ours
        self.search_meta[page.url] = search_pl.own_search_meta(page.meta)
        # notebooks are rendered by mkdocs-jupyter
        if not page.file.src_uri.endswith(".md"):
            return None
        source = markdown.Page(page.file.src_uri, page.file.content_string, self.docs_name)
        return markdown.render_page(text, source, self.results, self.state.pages, meta=page.meta)

    # A notebook's HTML in Material's form, and its math typeset (a Markdown page's math was
    # typeset by the extension's Temml postprocessor)
    def on_page_content(self, html, *, page, config, files):
        if not self._is_notebook(page.file.src_uri):
            return html
        where = f"{self.docs_name}/{page.file.src_uri}"
        # kept by its input and the code that converts it
        name = store.key(html, store.code_key(notebooks.material))
        kept = self.state.rendered.get(name, where)
        if kept is None:
            kept = notebooks.material_html(html, where).encode("utf-8")
            self.state.rendered.put(name, kept)
        return self.state.math.typeset(kept.decode("utf-8"), where)

    # The final page: its live sidecar written, its text checked, its links and search read.
    # After anatomia-route's on_post_page (priority 10), which fills its reading times.
    def on_post_page(self, output, *, page, config):
        output = live.publish(output, page, config)
        source = Path(config.docs_dir) / page.file.src_uri
        if not source.is_file():
            source = None
        where = page.file.dest_uri
        if source is not None:
            where = f"{self.docs_name}/{page.file.src_uri}"
        self._check_final_page(output, page, source, where)
        parsed, docs = self._read_final_page(output, page, where)
        self._keep_final_page(output, page, source, where, parsed, docs)
        return output

    def _check_final_page(self, output: str, page, source: Path | None, where: str) -> None:
        """No placeholder in what the theme shows as written (tags, navigation titles), and no
        handler or javascript: address the page's source did not write."""
        theme_text = output.replace(page.content or "", " ", 1)
        final_page.check_theme_text(theme_text, where)
        written = ""
        if source is not None:
            written = source.read_text(encoding="utf-8")
        final_page.check_active_content(output, written, where)

    def _read_final_page(self, output: str, page, where: str) -> tuple[links.Parsed, list[dict]]:
        """The page's links and search documents, kept by its HTML and the code that reads them
        (the code's syntax tree: an edited comment reads no page again)."""
        title = page.title or ""
        code = store.code_key(links, search_pl.documents)
        # the parser that reads the page: lxml and the libxml2 it binds
        parser = f"lxml-{version('lxml')}-libxml2-{lxml.etree.LIBXML_VERSION}"
        name = store.key(code, parser, page.url, title, output)
        kept = self.state.rendered.get(name, where)
        if kept is None:
            read = (links.parse(output), search_pl.page_docs(page.url, title, output))
            kept = pickle.dumps(read)
            self.state.rendered.put(name, kept)
        return pickle.loads(kept)

    def _keep_final_page(self, output: str, page, source: Path | None, where: str,
                         parsed: links.Parsed, docs: list[dict]) -> None:
        """What on_post_build needs of the page, and what a later --dirty build that does not
        render it again keeps of it."""
        checked = links.Page(page.file.dest_uri, output, where, source, parsed)
        # this build's; on_post_build adds the pages it kept
        self.links.pages.append(checked)
        sections = None
        if self.uses_search:
            sections = search_pl.own_docs(docs, self.search_meta.get(page.url, {}))
            self.sections[page.url] = sections
        kept = incremental.Kept(page.title, dict(page.meta), page.url, checked, sections)
        self.differential.kept[page.file.src_uri] = kept

    # ---------------------------------------------------------------------------------------------
    # The site
    # ---------------------------------------------------------------------------------------------

    # After Material's search plugin has written its index, which this plugin's replaces
    @event_priority(-50)
    def on_post_build(self, *, config):
        # every page is typeset: node's process ends
        self.state.math.close()
        site = Path(config.site_dir)
        # every page's links and search sections: rendered by this build or kept from the one
        # that did
        every = self.files.documentation_pages(inclusion=InclusionLevel.all)
        stored = self.differential.kept
        pages = [stored[file.src_uri] for file in every if file.src_uri in stored]
        self.links.pages = [kept.links for kept in pages]
        if self.uses_search:
            # the kept pages first, as the order of the index is the order of this dict
            sections = {}
            for kept in pages:
                if kept.url not in self.sections:
                    sections[kept.url] = kept.sections
            sections.update(self.sections)
            search_pl.write_index(site, sections, self.state.search)
            self.indexed = sections
        problems = self.links.check(site)
        # a --dirty build renders only some notebook pages: the conversions of the others stay
        self.state.prune(every_notebook=not self.dirty)
        store.prune_others(self.root)
        if problems:
            raise EngineError("broken_links", count=len(problems), causes=problems)
        self.differential.done(site, {file.dest_uri for file in self.files})
        # a good build: its pages stay
        self.shown.kept = {}
        # under serve: the next execution's kernel starts while the author reads (launch.py)
        if self.serving and self.executed:
            notebooks.keep_spare(self.root, f"{self.docs_name}/{min(self.executed)}")
        # and the modules' worker, when this build found every result stored and started none
        if self.serving:
            runner.prepare_worker(self.root)
        if self.server is not None:
            self._watch_inputs()

    # ---------------------------------------------------------------------------------------------
    # Serve
    # ---------------------------------------------------------------------------------------------

    # Kept for the page that shows the failure under `mkdocs serve` (served.py); the spare kernel
    # ended
    def on_build_error(self, *, error):
        self.failure = error
        # module runs a build started and failed before it waited for them
        if self.runs is not None:
            self.runs.abandon()
            self.runs = None
        if self.state is not None:
            self.state.math.close()
        # a kernel warmed up beside a failed build is not kept
        notebooks.end_spare()

    # Watch every file a module run or the notebook read, and show a failed build on the open
    # page. MkDocs' server answers the open tab again only after a good build; the builder it
    # calls (the server's `builder`, which MkDocs lets on_serve change as it changes what is
    # watched) is wrapped so that a failure is shown instead (served.py).
    def on_serve(self, server, *, config, builder):
        self.server = server
        poll_sooner(server)
        self._watch_inputs()
        # the first build found the search's form table stored; the first save with a new word
        # would make it from nothing: it is made now, while the author reads the page
        if self.uses_search:
            search_pl.keep_table(self.indexed, self.state.search)
        server.builder = functools.partial(self._build_showing_failure, builder)
        return server

    def _build_showing_failure(self, build) -> None:
        """One build of `mkdocs serve`; a failure is said in the terminal and shown on every page,
        with the last good pages kept under it, and the server reloads the open tab as after a
        good build."""
        self.shown.clear()
        self.failure = None
        self.problems.lines = []
        # mkdocs, or properdocs
        core_log = logging.getLogger(mkdocs_build.__name__.split(".")[0])
        core_log.addHandler(self.problems)
        try:
            build()
        # every failure is shown; MkDocs' own loop would print it
        except Exception as exc:  # noqa: BLE001
            # a BuildError or a warning was logged already
            if not isinstance(exc, click.ClickException):
                traceback.print_exc()
            self.shown.put_back()
            lines = self.problems.lines or [str(self.failure or exc)]
            log.error(M.text("serve_failed"))
            self.shown.show(self.site_dir, "\n".join(lines))
        finally:
            core_log.removeHandler(self.problems)

    def _watch_inputs(self) -> None:
        folders = [self.root / "figures_src", self.root / "attn_core"]
        paths = {*folders, *self.notebook_inputs}
        for result in self.results.values():
            paths.update(result.inputs)
        # MkDocs watches docs_dir (and every folder below it) itself
        if self.docs_dir is not None:
            folders.append(self.docs_dir)
        engine = Path(__file__).parent
        # A file in a watched folder is seen by the folder's watch. Each watch is a thread that
        # polls its path twice a second, and they all wait for the build's turn on the interpreter
        # (MkDocs counts a path watched twice once).
        alone = []
        for path in sorted(paths):
            # an engine edit restarts `make serve` instead
            if not path.exists() or path.is_relative_to(engine):
                continue
            inside = [folder for folder in folders if path != folder and path.is_relative_to(folder)]
            if not inside:
                alone.append(path)
        for path, recursive in _watches(alone):
            self.server.watch(str(path), recursive=recursive)


def poll_sooner(server) -> None:
    """Have `server` (MkDocs' LiveReloadServer, not yet serving) look at its watched paths every
    POLL_SECONDS, and build SETTLE_SECONDS after a look that found a change. Its PollingObserver's
    interval is fixed when the server is made and `serve` has no option for it
    (ProperDocs/properdocs#73 proposed another observer; not merged), so the server's observer is
    replaced by one of that interval, and the paths MkDocs watched so far are moved to it through
    the server's own unwatch and watch. A server whose observer is of another kind (one told of
    each change as it happens) is left as it is, and so is one that already looks as often."""
    observer = server.observer
    if not isinstance(observer, PollingObserver) or observer.timeout <= POLL_SECONDS:
        return
    # every change of one look is queued at once: waiting longer for more only delays the build
    server.build_delay = min(server.build_delay, SETTLE_SECONDS)
    watched = []
    for emitter in observer.emitters:
        watch = emitter.watch
        # a file's watch looks at its folder (watchdog 5 on): `raw_path` is the path watched
        watched.append((getattr(watch, "raw_path", watch.path), watch.is_recursive))
    for path, _recursive in watched:
        server.unwatch(path)
    server.observer = PollingObserver(timeout=POLL_SECONDS)
    for path, recursive in watched:
        server.watch(path, recursive=recursive)


def _watches(paths: list[Path]) -> list[tuple[Path, bool]]:
    """(path, recursive) to watch for `paths`: a folder whose every file is one of them (the fonts
    matplotlib knows, a folder of them) by one watch of the folder alone, else each path itself."""
    files_in: dict[Path, list[Path]] = {}
    for path in paths:
        if path.is_file():
            files_in.setdefault(path.parent, []).append(path)
    shared = set()
    for folder, files in files_in.items():
        try:
            others = [entry for entry in folder.iterdir() if entry.is_file() and entry not in files]
        except OSError:
            # a folder it may not list: its files are watched one by one
            continue
        # a file the folder gains (a font installed) is seen too: matplotlib's font list changes
        if len(files) > 1 and not others:
            shared.add(folder)
    watches = [(folder, False) for folder in sorted(shared)]
    for path in paths:
        if not (path.is_file() and path.parent in shared):
            watches.append((path, True))
    return watches
