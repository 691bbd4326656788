"""MkDocs hook: computed values and figures.

on_files:          run the figures_src modules whose inputs changed (anatomia_engine/runner.py, in
                   subprocesses, cached by content hash) and add their SVG/CSV files to the
                   build as generated files (never written into docs/).
on_page_markdown:  fill `{{ ... }}` placeholders and check `{% claim %}` blocks
                   (anatomia_engine/placeholders.py); any problem stops the build naming file:line.
"""

from __future__ import annotations

import logging
import posixpath
import textwrap
import time
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils.meta import YAML_RE

from anatomia_engine import placeholders, runner

log = logging.getLogger("mkdocs.hooks.computed")
FIGURE_DIR = "figures"
_results: dict[str, runner.ModuleResult] = {}


def on_files(files, config):
    started = time.perf_counter()
    try:
        results, ran = runner.compute(root=Path(config.config_file_path).resolve().parent)
    except runner.ComputeError as exc:
        raise PluginError(str(exc)) from None
    _results.clear()
    _results.update(results)
    if ran:
        log.info("figures_src: ran %s in %.1f s; %d module(s) from cache", ", ".join(ran),
                 time.perf_counter() - started, len(results) - len(ran))
    for name, result in results.items():
        for entry in result.figures.values():
            for filename in entry["files"].values():
                files.append(File.generated(config, f"{FIGURE_DIR}/{name}/{filename}",
                                            abs_src_path=str(result.folder / filename)))
    return files


def page_scope(page) -> dict[str, placeholders.Entry]:
    """Every value as `module.name`, plus bare names of the modules the page lists."""
    scope: dict[str, placeholders.Entry] = {}
    for module, result in _results.items():
        source = f"figures_src/{module}.py"
        for key, value in result.values.items():
            meta = result.meta.get(key, {})
            scope[f"{module}.{key}"] = placeholders.Entry(
                value, source, function=meta.get("function"), what=meta.get("what"), cite=meta.get("cite"),
                axes=None if meta.get("axes") is None else tuple(tuple(a) for a in meta["axes"]))
        for key in result.figures:
            scope[f"{module}.{key}"] = placeholders.Entry(placeholders.FigureRef(f"{module}.{key}"), source)
    listed = page.meta.get("computed") or []
    if isinstance(listed, str):
        listed = [listed]
    for module in listed:
        if module not in _results:
            raise PluginError(f"docs/{page.file.src_uri}: front matter 'computed' names unknown module "
                              f"'{module}'; known: {', '.join(sorted(_results))}")
        prefix = module + "."
        for key, entry in list(scope.items()):
            if key.startswith(prefix):
                bare = key[len(prefix):]
                if bare in scope and scope[bare] is not entry:
                    raise PluginError(f"docs/{page.file.src_uri}: the name '{bare}' is defined by more "
                                      f"than one listed module; write it as module.{bare}")
                scope[bare] = entry
    return scope


def _first_line(page) -> int:
    path = page.file.abs_src_path
    if not path:
        return 1
    raw = Path(path).read_text(encoding="utf-8-sig")
    m = YAML_RE.match(raw)
    if not m:
        return 1
    rest = raw[m.end():]  # MkDocs also drops the blank lines after the front matter
    return raw[: m.end()].count("\n") + len(rest) - len(rest.lstrip("\n")) + 1


def figure_markdown(page, qualified: str, indent: str) -> str:
    """Light and dark images, a caption, and a collapsible data table with a CSV link."""
    module, name = qualified.split(".", 1)
    entry = _results[module].figures[name]
    base = posixpath.relpath(f"{FIGURE_DIR}/{module}", posixpath.dirname(page.file.src_uri) or ".")
    alt = entry["alt"].replace("[", "(").replace("]", ")").replace("\n", " ")
    caption = entry["caption"]
    title = caption.replace('"', "\u201d")
    table = runner.decode_values({"t": entry["table"]})["t"]
    block = "\n".join([
        f'![{alt}]({base}/{entry["files"]["light"]}#only-light){{ loading=lazy }}',
        f'![{alt}]({base}/{entry["files"]["dark"]}#only-dark){{ loading=lazy }}',
        "",
        "/// caption",
        f"    attrs: {{id: fig-{module}-{name}, class: computed-figure}}",
        caption,
        "///",
        "",
        f'??? info "Dane do rysunku: {title}"',
        "",
        textwrap.indent(table.to_markdown(), "    "),
        "",
        f'    [Pobierz dane (CSV)]({base}/{entry["files"]["csv"]}){{ download="{module}-{name}.csv" }}',
        "",
    ])
    return textwrap.indent(block, indent).removeprefix(indent)


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_uri.endswith(".md") or ("{{" not in markdown and "{%" not in markdown):
        return None
    try:
        return placeholders.render(
            markdown, page_scope(page), where=f"docs/{page.file.src_uri}",
            first_line=_first_line(page),
            figure=lambda name, indent: figure_markdown(page, name, indent),
        )
    except placeholders.TemplateError as exc:
        raise PluginError(str(exc)) from None
