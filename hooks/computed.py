"""MkDocs hook: computed values and figures (a thin adapter over anatomia_engine).

on_config:         under `mkdocs serve`, re-import the engine (anatomia_engine/*) and this hook
                   when one of their files changed, so an edit shows as it would in `make docs`.
on_files:          run the figures_src modules whose inputs changed (anatomia_engine/runner.py, in
                   subprocesses, cached by content hash) and add their SVG/CSV files to the
                   build as generated files (never written into docs/). Under `mkdocs serve`
                   the runner's warm worker stays up between rebuilds (on_startup, on_shutdown).
on_page_markdown:  check the front matter of every page and fill `{{ ... }}` placeholders and
                   `{% claim %}` blocks: markdown.render_page turns them into tokens that the
                   Markdown extension resolves while the page is parsed (the same code runs under
                   Zensical); any problem stops the build at file:line.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import logging
import sys
import time
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.hooks.computed")
ENGINE = "anatomia_engine"


def _fingerprint(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _engine_files() -> list[Path]:
    spec = importlib.util.find_spec(ENGINE)
    return list(Path(spec.origin).parent.rglob("*.py")) if spec and spec.origin else []


def refresh() -> None:
    """Drop the engine's modules from sys.modules when their files changed since they were
    imported (mkdocs serve keeps one process), and re-run this hook's own code if it changed."""
    loaded = sys.modules.get(ENGINE)
    current = _fingerprint(_engine_files())
    if loaded is not None and getattr(loaded, "_fingerprint", current) != current:
        old_runner = sys.modules.get(ENGINE + ".runner")
        if old_runner is not None:
            old_runner.stop_worker()   # the reloaded runner starts its own
        for name in [n for n in sys.modules if n == ENGINE or n.startswith(ENGINE + ".")]:
            del sys.modules[name]
        log.info("anatomia_engine changed: reloaded")
    importlib.import_module(ENGINE)._fingerprint = current
    _refresh_sibling_hooks(engine_changed=loaded is not None and loaded is not sys.modules.get(ENGINE))
    me = sys.modules.get(__name__)
    own = Path(__file__)
    if me is not None and getattr(me, "_own", None) not in (None, own.read_bytes()):
        me.__spec__.loader.exec_module(me)  # the event functions below look up their helpers anew
        log.info("hooks/computed.py changed: reloaded")


def _refresh_sibling_hooks(*, engine_changed: bool) -> None:
    """Re-run the other hooks/*.py modules when the engine was reloaded or their file changed.

    MkDocs loads each hook once per process and keeps its event functions; re-executing the
    module in its own namespace rebinds the names those functions look up (e.g. the freshly
    imported `anatomia_engine.notebooks`), so under serve they use the edited engine too.
    """
    here = Path(__file__).resolve().parent
    for mod in list(sys.modules.values()):
        path = getattr(mod, "__file__", None)
        if (not path or mod is sys.modules.get(__name__) or not path.endswith(".py")
                or Path(path).name == "__init__.py" or "site-packages" in path
                or Path(path).resolve().parent != here):
            continue
        source = Path(path).read_bytes()
        if engine_changed or getattr(mod, "_source", source) != source:
            mod.__spec__.loader.exec_module(mod)
            log.info("%s: reloaded", Path(path).name)
        mod._source = source


def _engine():
    from anatomia_engine import markdown, runner

    return markdown, runner


_own = Path(__file__).read_bytes()
_results: dict = {}


_serving = [False]


def on_startup(command: str, dirty: bool) -> None:
    _serving[0] = command == "serve"   # keep the warm worker between rebuilds


def on_shutdown() -> None:
    runner = sys.modules.get(ENGINE + ".runner")
    if runner is not None:
        runner.stop_worker()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    refresh()
    # The tokens on_page_markdown hands on are resolved by the Markdown extension: without it
    # they would be published as they are.
    if "anatomia_engine.markdown" not in config.markdown_extensions:
        config.markdown_extensions.insert(0, "anatomia_engine.markdown")
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    return _on_files(files, config)


def _on_files(files: Files, config: MkDocsConfig) -> Files:
    markdown, runner = _engine()
    cpu = importlib.import_module(ENGINE + ".cpu")
    started = time.perf_counter()
    cpu.mark("figures_src started")
    try:
        results, ran = runner.compute(root=Path(config.config_file_path).resolve().parent,
                                      keep_worker=_serving[0])
    except runner.ComputeError as exc:
        raise PluginError(str(exc)) from None
    cpu.mark("figures_src done")
    if runner.last_run.get("worker"):
        cpu.add("figures_src: worker start-up (NumPy, matplotlib, kit)", **runner.last_run["worker"])
    for name, used in runner.last_run.get("modules", {}).items():
        cpu.add(f"figures_src/{name}.py", **used)
    _results.clear()
    _results.update(results)
    if ran:
        log.info("figures_src: ran %s in %.1f s; %d module(s) from cache", ", ".join(ran),
                 time.perf_counter() - started, len(results) - len(ran))
    for name, result in results.items():
        for filename in result.files:
            files.append(File.generated(config, f"{markdown.FIGURE_DIR}/{name}/{filename}",
                                        abs_src_path=str(result.folder / filename)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str | None:
    return _on_page_markdown(markdown, page, config, files)


def _on_page_markdown(text: str, page: Page, config: MkDocsConfig, files: Files) -> str | None:
    if not page.file.src_uri.endswith(".md"):
        return None
    markdown, _ = _engine()
    root = Path(config.config_file_path).resolve().parent
    docs = Path(config.docs_dir).resolve()
    docs_name = docs.relative_to(root).as_posix() if docs.is_relative_to(root) else str(docs)
    raw = Path(page.file.abs_src_path).read_text(encoding="utf-8-sig") if page.file.abs_src_path else text
    try:
        return markdown.render_page(text, markdown.Page(page.file.src_uri, raw, docs_name), _results,
                                    meta=page.meta)
    except markdown.TemplateError as exc:
        raise PluginError(str(exc)) from None
    except markdown.runner.ComputeError as exc:     # a stored result that cannot be decoded
        raise PluginError(f"{docs_name}/{page.file.src_uri}: {exc}") from None
