"""The placeholder language bound to pages: a Python-Markdown extension and what the hooks share.

Listed in mkdocs.yml under `markdown_extensions` as `anatomia_engine.markdown`. Its
preprocessor runs before every other one and fills `{{ … }}` and checks `{% claim %}`:

- under MkDocs, hooks/computed.py renders the page in `on_page_markdown` (so that the blog's
  excerpts and the search index see the rendered text) with `render_page`; the preprocessor then
  has nothing left to do;
- under Zensical, which reads the same mkdocs.yml and runs Markdown extensions but no MkDocs
  hooks, the preprocessor does the same work itself: it reads the page's path and front matter
  from Zensical's rendering context, runs the figures_src modules through the cache, renders
  the page and embeds the figures' files in it;
- anywhere else (a bare `markdown.markdown(...)`) a placeholder is an error, never published.

Front matter is validated on every page, with or without placeholders: malformed YAML, a
`computed:` that is not a list of module names, or an unknown module stop the build at file:line.
"""

from __future__ import annotations

import base64
import os
import posixpath
import re
import textwrap
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml
from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from anatomia_engine import placeholders, runner
from anatomia_engine.placeholders import Entry, FigureRef, TemplateError

FIGURE_DIR = "figures"
FRONT_MATTER = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)
NEEDS_MKDOCS = ("build the site with MkDocs (`make docs`): Zensical runs no MkDocs hooks or plugins")


class PageError(TemplateError):
    """A page cannot be built; the message starts with `file:line:`."""


# --- front matter ---------------------------------------------------------------------

@dataclass(frozen=True)
class FrontMatter:
    meta: dict
    first_line: int  # line of the file where the Markdown body (as MkDocs/Zensical pass it) starts
    computed: list[str]
    computed_line: int


def front_matter(raw: str, where: str) -> FrontMatter:
    """Parse and check a page's YAML front matter; PageError naming `where:line` if it is wrong."""
    raw = raw.lstrip("\ufeff")
    m = FRONT_MATTER.match(raw)
    if not m:
        if re.match(r"-{3}[ \t]*\n[A-Za-z_][\w-]*[ \t]*:", raw):
            raise PageError(f"{where}:1: the front matter opened by '---' is never closed; end it with a "
                            "line '---'")
        return FrontMatter({}, 1, [], 1)
    try:
        meta = yaml.safe_load(m.group(1))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + (mark.line if mark else 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise PageError(f"{where}:{line}: the front matter is not valid YAML ({problem}); write it as "
                        "'key: value' lines, e.g. computed: [worked_example]") from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise PageError(f"{where}:2: the front matter must be 'key: value' lines, got {type(meta).__name__}")
    rest = raw[m.end():]  # MkDocs and Zensical also drop the blank lines after the front matter
    first_line = raw[: m.end()].count("\n") + len(rest) - len(rest.lstrip("\n")) + 1
    computed = meta.get("computed") or []
    line = 2 + next((i for i, text in enumerate(m.group(1).splitlines()) if text.startswith("computed")), 0)
    if isinstance(computed, str):
        computed = [computed]
    if not isinstance(computed, list) or not all(isinstance(c, str) for c in computed):
        raise PageError(f"{where}:{line}: 'computed' must list module names of figures_src, e.g. "
                        f"computed: [worked_example], got {computed!r}")
    return FrontMatter(meta, first_line, computed, line)


# --- the scope of a page ---------------------------------------------------------------

def page_scope(results: Mapping[str, runner.ModuleResult], fm: FrontMatter, where: str) -> dict[str, Entry]:
    """Every value as `module.name`, plus bare names of the modules the page lists."""
    scope: dict[str, Entry] = {}
    for module, result in results.items():
        source = f"{runner.PACKAGE}/{module}.py"
        for key, value in result.values.items():
            meta = result.meta.get(key, {})
            axes = meta.get("axes")
            scope[f"{module}.{key}"] = Entry(
                value, source, function=meta.get("function"), what=meta.get("what"), cite=meta.get("cite"),
                axes=None if axes is None else tuple(tuple(a) for a in axes))
        for key in result.figures:
            scope[f"{module}.{key}"] = Entry(FigureRef(f"{module}.{key}"), source)
    for module in fm.computed:
        if module not in results:
            import difflib

            near = difflib.get_close_matches(module, list(results), n=1)
            hint = f"did you mean '{near[0]}'? " if near else ""
            raise PageError(f"{where}:{fm.computed_line}: front matter 'computed' names unknown module "
                            f"'{module}'; {hint}the modules are the files figures_src/*.py")
        prefix = module + "."
        for key, entry in list(scope.items()):
            if key.startswith(prefix):
                bare = key[len(prefix):]
                if bare in scope and scope[bare] is not entry:
                    raise PageError(f"{where}:{fm.computed_line}: the name '{bare}' is defined by more than "
                                    f"one listed module; write it as module.{bare}")
                scope[bare] = entry
    return scope


# --- figures ---------------------------------------------------------------------------

def figure_markdown(results: Mapping[str, runner.ModuleResult], qualified: str, indent: str, *,
                    page_uri: str, inline: bool = False) -> str:
    """Light and dark images, a caption, and a collapsible data table with a CSV link.

    The files are linked under figures/<module>/ (MkDocs adds them to the site), or embedded in
    the page as data: URIs when `inline` (Zensical, which runs no hook to add them)."""
    module, name = qualified.split(".", 1)
    result = results[module]
    entry = result.figures[name]
    base = posixpath.relpath(f"{FIGURE_DIR}/{module}", posixpath.dirname(page_uri) or ".")

    def url(kind: str, mime: str) -> str:
        filename = entry["files"][kind]
        if not inline:
            return f"{base}/{filename}"
        data = base64.b64encode((Path(result.folder) / filename).read_bytes()).decode()
        return f"data:{mime};base64,{data}"

    alt = entry["alt"].replace("[", "(").replace("]", ")").replace("\n", " ")
    caption = entry["caption"]
    title = caption.replace('"', "\u201d")
    table = runner.decode_values({"t": entry["table"]})["t"]
    placeholders.check_table(table, f"{qualified} (the data of the figure)")
    block = "\n".join([
        f'![{alt}]({url("light", "image/svg+xml")}#only-light){{ loading=lazy }}',
        f'![{alt}]({url("dark", "image/svg+xml")}#only-dark){{ loading=lazy }}',
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
        f'    [Pobierz dane (CSV)]({url("csv", "text/csv")}){{ download="{module}-{name}.csv" }}',
        "",
    ])
    return textwrap.indent(block, indent).removeprefix(indent)


# --- rendering one page ----------------------------------------------------------------

@dataclass(frozen=True)
class Page:
    """What rendering needs to know about a page, from MkDocs or from Zensical."""

    uri: str  # path under docs_dir, e.g. "krok-po-kroku.md"
    raw: str  # the file as written (with its front matter)
    docs_dir: str = "docs"  # as the project names it, for messages

    @property
    def where(self) -> str:
        return f"{self.docs_dir}/{self.uri}"


def render_page(markdown: str, page: Page, results: Mapping[str, runner.ModuleResult], *,
                inline_figures: bool = False) -> str:
    """The page's Markdown body with placeholders filled and claims checked (PageError if not)."""
    fm = front_matter(page.raw, page.where)
    scope = page_scope(results, fm, page.where)
    return placeholders.render(
        markdown, scope, where=page.where, first_line=fm.first_line,
        figure=lambda name, indent: figure_markdown(results, name, indent, page_uri=page.uri,
                                                    inline=inline_figures),
    )


# --- the Python-Markdown extension ------------------------------------------------------

MKDOCS_HOOK_ACTIVE = False  # set by hooks/computed.py: MkDocs renders pages in on_page_markdown
_lock = threading.Lock()
_computed: dict[Path, tuple[tuple, dict]] = {}


def _signature(root: Path) -> tuple:
    files = []
    for folder in (runner.PACKAGE, "attn_core"):
        files += sorted((root / folder).rglob("*.py"))
    files += [root / f for f in runner.LOCK_FILES]
    return tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files if p.exists())


def results_for(root: Path) -> Mapping[str, runner.ModuleResult]:
    """The figures_src results for the project at `root`, recomputed when a source changed."""
    with _lock:
        signature = _signature(root)
        cached = _computed.get(root)
        if cached is None or cached[0] != signature:
            try:
                results, _ = runner.compute(root=root)
            except runner.ComputeError as exc:
                raise PageError(str(exc)) from None
            _computed[root] = (signature, results)
        return _computed[root][1]


def _zensical_context(md: Markdown):
    if "rendering_context" not in md.preprocessors:
        return None
    return md.preprocessors["rendering_context"]


SKIP_NOTEBOOKS = "ANATOMIA_SKIP_NOTEBOOKS"


def _check_zensical_site(docs: Path, docs_name: str) -> None:
    """Zensical runs no MkDocs plugins: a notebook page (docs/**/*.py or *.ipynb, rendered by
    mkdocs-jupyter and hooks/notebooks.py) would silently be missing from the site."""
    if os.environ.get(SKIP_NOTEBOOKS) == "1":
        return
    notebooks = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*")
                       if p.suffix in (".py", ".ipynb"))
    if notebooks:
        raise PageError(f"{docs_name}/{notebooks[0]}:1: this notebook page needs the MkDocs plugin "
                        f"mkdocs-jupyter and hooks/notebooks.py; {NEEDS_MKDOCS}. To preview the other "
                        f"pages with Zensical anyway, set {SKIP_NOTEBOOKS}=1 (the notebook page is then "
                        "not built)")


class PlaceholderPreprocessor(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        if MKDOCS_HOOK_ACTIVE:
            return lines  # hooks/computed.py has rendered this page already
        text = "\n".join(lines)
        context = _zensical_context(self.md)
        if context is None:
            if placeholders.TAG.search(text):
                raise PageError("placeholders need the MkDocs hook hooks/computed.py or Zensical to know "
                                "the page; " + NEEDS_MKDOCS)
            return lines
        config = context.config
        root = Path(config["root_dir"]).resolve()
        docs = Path(config["docs_dir"])
        docs = docs if docs.is_absolute() else root / docs
        docs_name = docs.relative_to(root).as_posix() if docs.is_relative_to(root) else str(docs)
        _check_zensical_site(docs, docs_name)
        uri = Path(context.page.path).as_posix()
        page = Page(uri=uri, raw=(docs / uri).read_text(encoding="utf-8-sig"), docs_dir=docs_name)
        return render_page(text, page, results_for(root), inline_figures=True).split("\n")


class PlaceholderExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        # Priority above every other preprocessor (normalize_whitespace is 30, snippets 32):
        # the placeholders are filled before anything reads the Markdown.
        md.preprocessors.register(PlaceholderPreprocessor(md), "anatomia_placeholders", 1000)


def makeExtension(**kwargs) -> PlaceholderExtension:  # noqa: N802 - Python-Markdown's entry point
    return PlaceholderExtension(**kwargs)


