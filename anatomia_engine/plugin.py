"""The MkDocs plugin `anatomia`: the site's build pipeline, its hooks in the order they run.

Run the modules and execute the lab notebooks (on_files), fill the pages (on_page_markdown), turn the
notebook's HTML into Material's and typeset its math (on_page_content), read each final page for the
link check and the Polish search (on_post_page), write the index and check the links (on_post_build).
Listed in mkdocs.yml after Material's `search` (whose index it replaces), before `mkdocs-jupyter`.
"""

import logging
import os
import pickle
import posixpath
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure import pages as mkdocs_pages
from mkdocs.structure.files import File

from anatomia_engine import deps, katex, links, live, markdown, notebooks, runner, search_pl, store
from anatomia_engine.config import Config

log = logging.getLogger("mkdocs.plugins.anatomia")


class AnatomiaPlugin(BasePlugin[Config]):
    def on_startup(self, *, command, dirty):
        """Defined, so `mkdocs serve` keeps this instance (and its warm worker) between rebuilds."""
        self.serving = command == "serve"
        self.server = None

    def on_shutdown(self):
        runner.stop_worker()

    def on_config(self, config):
        self.root = Path(config.config_file_path).resolve().parent
        self.docs_name = Path(os.path.relpath(Path(config.docs_dir).resolve(), self.root)).as_posix()
        self.pages = katex.renderer().store = store.Store(store.folder(self.root, "pages"))
        self.search = store.Store(store.folder(self.root, "search"), ".json")
        if "anatomia_engine.markdown" not in config.markdown_extensions:
            config.markdown_extensions.insert(0, "anatomia_engine.markdown")
        self.uses_search = "material/search" in config.plugins
        return config

    def on_pre_build(self, *, config):
        self.sections: dict[str, list[dict]] = {}
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
        self.copies = tempfile.TemporaryDirectory(prefix="anatomia-notebooks-") if notebooks_run else None
        for file, run in notebooks_run.items():
            built = run.result()
            log.info("%s/%s: %s (key %s)", self.docs_name, file.src_uri, "outputs from the cache"
                     if built.seconds is None else f"executed in {built.seconds:.1f} s", built.key[:12])
            # mkdocs-jupyter renders the executed copy (page.ipynb); the download goes beside the page
            page = Path(self.copies.name, file.src_uri, notebooks.PAGE)
            page.parent.mkdir(parents=True)
            page.write_text(built.page, encoding="utf-8")
            file.abs_src_path = self.executed[file.src_uri] = str(page)
            files.append(File.generated(config, file.src_uri[:-3] + ".ipynb", content=built.download))
            folder = file.src_uri[:-3] if config.use_directory_urls else posixpath.dirname(file.src_uri)
            for name, data in built.figures.items():
                files.append(File.generated(config, f"{folder}/{name}", content=data))
            self.notebook_inputs += deps.inputs(built.deps, self.root)
        return files

    def _is_notebook(self, src_uri: str) -> bool:
        return src_uri.startswith(self.config.notebooks) and src_uri.endswith(".py")

    def _build_notebook(self, file, config) -> notebooks.Built:
        name = posixpath.basename(file.src_uri[:-3] + ".ipynb")
        href = f"../{name}" if config.use_directory_urls else name   # from laby/x/ (or laby/x.html)
        return notebooks.build(Path(file.abs_src_path), f"{self.docs_name}/{file.src_uri}",
                               store.folder(self.root, "notebooks"), self.root, href, name)

    def on_pre_page(self, page, *, config, files):
        """Point mkdocs-jupyter's NotebookFile (it works the path out from docs_dir) at the executed copy."""
        if self._is_notebook(page.file.src_uri):
            page.file.abs_src_path = self.executed[page.file.src_uri]
        return page

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
            name = store.key(html, store.code_key(notebooks))
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
        code = store.code_key(links, search_pl)
        name = store.key(code, f"beautifulsoup4-{version('beautifulsoup4')}", page.url, title, output)
        kept = self.pages.get(name, where)
        if kept is None:
            kept = pickle.dumps((links.parse(output), search_pl.page_docs(page.url, title, output)))
            self.pages.put(name, kept)
        parsed, docs = pickle.loads(kept)
        self.links.pages.append(links.Page(page.file.dest_uri, output, where, source, parsed))
        if self.uses_search:
            self.sections[page.url] = search_pl.own_docs(docs, self.search_meta.get(page.url, {}))
        return output

    def on_post_build(self, *, config):
        site = Path(config.site_dir)
        if self.uses_search:
            search_pl.write_index(site, self.sections, self.search)
        problems = self.links.check(site)
        for kept in (self.pages, self.search):
            kept.prune()
        store.prune_others(self.root)
        if problems:
            raise PluginError(f"{len(problems)} broken link(s) or image(s):\n" + "\n".join(problems))
        if self.server is not None:
            self._watch_inputs()

    def on_serve(self, server, *, config, builder):
        """Watch every file a module run or the notebook read (an engine edit restarts `make serve`)."""
        self.server = server
        self._watch_inputs()
        return server

    def _watch_inputs(self) -> None:
        paths = {self.root / "figures_src", self.root / "attn_core", *self.notebook_inputs}
        paths.update(path for result in self.results.values() for path in result.inputs)
        for path in sorted(paths):   # MkDocs counts a path watched twice once
            if path.exists() and not path.is_relative_to(Path(__file__).parent):
                self.server.watch(str(path))
