"""The placeholder language bound to pages: a Python-Markdown extension and what the plugin shares.

Listed in mkdocs.yml under `markdown_extensions` as `anatomia_engine.markdown`. Placeholders are
resolved by the Markdown parser's own structure, in two steps:

1. `render_page` (called once per page by the MkDocs plugin in `on_page_markdown`) checks the
   front matter, replaces every `{{ … }}` and `{% … %}`
   by an inert token (placeholders.scan) and registers the page, so that every later Markdown
   conversion of that text (the page itself, the blog's excerpts) can resolve the tokens;
2. Python-Markdown parses the page with the tokens in place: code blocks, code spans, escapes,
   tables, links and attribute lists are recognised by their own processors, never by a guess.
   Then
   - a block processor expands a token standing alone in its block into a figure or a table
     (Markdown, parsed in place);
   - a tree processor, after the inline patterns, attribute lists and abbreviations and before
     the table of contents, gives each token its text by where it landed: a number with its
     provenance span in running text, headings, tables, admonitions and footnotes; LaTeX inside
     math; plain text in attributes (alt, title, href, abbreviations, raw HTML attributes); the
     tag as written inside code. It does the same inside the raw HTML the parser set aside, and
     then checks the claims and the sums a reader can redo;
   - a postprocessor checks the finished HTML: a token, `{{`, `{%`, `}}` or `%}` outside code and
     math, or the engine's markup shown as text, stops the build at file:line.

Anywhere else (a bare `markdown.markdown(...)` with no page registered) a placeholder is an
error, never published. Front matter is validated on every page, with or without placeholders.
"""

from __future__ import annotations

import hashlib
import html as htmlmod
import posixpath
import re
import textwrap
import threading
import xml.etree.ElementTree as etree
from collections.abc import Mapping
from dataclasses import dataclass

import yaml
from markdown import Extension, Markdown, util
from markdown.blockprocessors import BlockProcessor
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from anatomia_engine import messages as M
from anatomia_engine import placeholders, runner
from anatomia_engine.placeholders import Entry, FigureRef, Tag, TemplateError

FIGURE_DIR = "figures"
DATA_SUMMARY = "Dane do rysunku"  # the summary of a figure's data box; its accessible name adds the caption
FRONT_MATTER = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)


class PageError(TemplateError):
    """A page cannot be built; the message starts with `file:line:`."""


# --- front matter ---------------------------------------------------------------------

@dataclass(frozen=True)
class FrontMatter:
    meta: dict
    first_line: int  # line of the file where the Markdown body (as MkDocs passes it) starts
    computed: list[str]
    computed_line: int


def front_matter(raw: str, where: str) -> FrontMatter:
    """Parse and check a page's YAML front matter; PageError naming `where:line` if it is wrong."""
    raw = raw.lstrip("\ufeff")
    m = FRONT_MATTER.match(raw)
    if not m:
        if re.match(r"-{3}[ \t]*\n[A-Za-z_][\w-]*[ \t]*:", raw):
            raise PageError(f"{where}:1: " + M.text("fm_not_closed"))
        return FrontMatter({}, 1, [], 1)
    try:
        meta = yaml.safe_load(m.group(1))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + (mark.line if mark else 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise PageError(f"{where}:{line}: " + M.text("fm_yaml", problem=problem)) from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise PageError(f"{where}:2: " + M.text("fm_not_mapping", got=type(meta).__name__))
    rest = raw[m.end():]  # MkDocs also drops the blank lines after the front matter
    first_line = raw[: m.end()].count("\n") + len(rest) - len(rest.lstrip("\n")) + 1
    computed = meta.get("computed") or []
    line = 2 + next((i for i, text in enumerate(m.group(1).splitlines()) if text.startswith("computed")), 0)
    if isinstance(computed, str):
        computed = [computed]
    if not isinstance(computed, list) or not all(isinstance(c, str) for c in computed):
        raise PageError(f"{where}:{line}: " + M.text("fm_computed", got=repr(computed)))
    return FrontMatter(meta, first_line, computed, line)


# --- the scope of a page ---------------------------------------------------------------

def page_scope(results: Mapping[str, runner.ModuleResult], fm: FrontMatter, where: str) -> dict[str, Entry]:
    """Every value as `module.name`, plus bare names of the modules the page lists."""
    scope: dict[str, Entry] = {}
    for module, result in results.items():
        source = f"{runner.PACKAGE}/{module}.py"
        for key, value in result.values.items():
            meta = result.meta.get(key, {})
            placeholders.check_value_name(key, source, meta.get("function"))
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
            raise PageError(f"{where}:{fm.computed_line}: " + M.text("fm_unknown_module", module=module, hint=hint))
        prefix = module + "."
        for key, entry in list(scope.items()):
            if key.startswith(prefix):
                bare = key[len(prefix):]
                if bare in scope and scope[bare] is not entry:
                    raise PageError(f"{where}:{fm.computed_line}: " + M.text("fm_ambiguous", name=bare))
                scope[bare] = entry
    return scope


# --- figures ---------------------------------------------------------------------------

def figure_markdown(results: Mapping[str, runner.ModuleResult], qualified: str, *, page_uri: str) -> str:
    """Light and dark images, a caption, and a collapsible data table with a CSV link; the files
    are linked under figures/<module>/ (the plugin adds them to the site)."""
    module, name = qualified.split(".", 1)
    entry = results[module].figures[name]
    base = posixpath.relpath(f"{FIGURE_DIR}/{module}", posixpath.dirname(page_uri) or ".")

    def url(kind: str) -> str:
        return f"{base}/{entry['files'][kind]}"

    alt = entry["alt"].replace("[", "(").replace("]", ")").replace("\n", " ")
    table = runner.decode_values({"t": entry["table"]})["t"]
    placeholders.check_table(table, f"{qualified} (the data of the figure)")
    return "\n".join([
        f'![{alt}]({url("light")}#only-light){{ loading=lazy }}',
        f'![{alt}]({url("dark")}#only-dark){{ loading=lazy }}',
        "",
        "/// caption",
        f"    attrs: {{id: fig-{module}-{name}, class: computed-figure}}",
        entry["caption"],
        "///",
        "",
        f'??? info "{DATA_SUMMARY}"',
        "",
        textwrap.indent(table.to_markdown(), "    "),
        "",
        f'    [Pobierz dane (CSV)]({url("csv")}){{ download="{module}-{name}.csv" }}',
        "",
    ])


# --- preparing one page ----------------------------------------------------------------

@dataclass(frozen=True)
class Page:
    """What rendering needs to know about a page."""

    uri: str  # path under docs_dir, e.g. "krok-po-kroku.md"
    raw: str  # the file as written (with its front matter)
    docs_dir: str = "docs"  # as the project names it, for messages

    @property
    def where(self) -> str:
        return f"{self.docs_dir}/{self.uri}"


@dataclass
class _Record:
    """A page whose tags are tokens: what resolving them needs."""

    id: int
    where: str
    text: str  # the Markdown body as handed to render_page (tags as written)
    first_line: int
    tags: list[Tag]
    scope: dict[str, Entry]
    results: Mapping[str, runner.ModuleResult]  # for its figures
    uri: str  # the page's path under docs_dir, for its figures' links
    digest: str  # of the tokenized text
    live: bool = False  # front matter `live: true`: claims and numbers carry their compiled expressions


_lock = threading.Lock()
_records: dict[int, _Record] = {}
_by_where: dict[str, int] = {}
_by_text: dict[str, int] = {}


def render_page(markdown: str, page: Page, results: Mapping[str, runner.ModuleResult], *,
                meta: dict | None = None) -> str:
    """The page's Markdown body with every tag replaced by a token this process resolves while
    Python-Markdown converts it (PageError on a wrong front matter). `meta` (the page's parsed
    front matter, e.g. MkDocs' page.meta) gets its `title` and `description` filled as plain text.

    The result is only meaningful to a Markdown conversion in this process: cache the page's
    output, never this text."""
    fm = front_matter(page.raw, page.where)
    scope = page_scope(results, fm, page.where)
    if meta is not None:
        lines = {key: i + 2 for i, text in enumerate(page.raw.splitlines()) if (key := text.split(":", 1)[0])}
        for key in ("title", "description"):
            if isinstance(meta.get(key), str):
                meta[key] = placeholders.fill_plain(meta[key], scope, page.where, lines.get(key, 1))
    with _lock:
        record_id = len(_records) + 1 if not _records else max(_records) + 1
        old = _by_where.pop(page.where, None)
        if old is not None:  # the same page, rendered again (mkdocs serve): the old text is gone
            _by_text.pop(_records.pop(old).digest, None)
        tokenized, tags = placeholders.scan(markdown, record_id, fm.first_line)
        digest = hashlib.sha256(tokenized.encode("utf-8")).hexdigest()
        _records[record_id] = _Record(record_id, page.where, markdown, fm.first_line, tags, scope, results,
                                      page.uri, digest, live=fm.meta.get("live") is True)
        _by_where[page.where] = record_id
        _by_text[digest] = record_id
    return tokenized


def _record(record_id: int) -> _Record:
    with _lock:
        return _records[record_id]


# --- the Python-Markdown extension ------------------------------------------------------

@dataclass
class _State:
    """One conversion: the page it is (if known) and the tokens expanded as blocks."""

    record: _Record | None = None
    blocks: set | None = None


def _state(md: Markdown) -> _State:
    state = getattr(md, "_anatomia_state", None)
    if state is None:
        state = md._anatomia_state = _State(blocks=set())
    return state


class PlaceholderPreprocessor(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        state = self.md._anatomia_state = _State(blocks=set())
        with _lock:
            known = _by_text.get(hashlib.sha256(text.encode("utf-8")).hexdigest())
        if known is not None:
            state.record = _record(known)
            return lines
        m = placeholders.TOKEN.search(text)
        if m:  # a part of a registered page (the blog's excerpt of a post)
            state.record = _record(int(m.group("page")))
        elif placeholders.scan(text, 0)[1]:
            raise PageError(M.text("needs_page"))
        return lines


class FigureBlockProcessor(BlockProcessor):
    """A token alone on its line that stands for a figure or a table: its Markdown, parsed here
    (after code blocks and math have taken theirs, so a token in code is never expanded)."""

    def _find(self, block: str):
        for i, line in enumerate(block.split("\n")):
            m = placeholders.TOKEN.fullmatch(line.strip())
            if not m:
                continue
            record = _record(int(m.group("page")))
            tag = record.tags[int(m.group("tag"))]
            what = placeholders.evaluate_block(tag, record.scope, record.where)
            if what is not None:
                return i, record, tag, what
        return None

    def test(self, parent, block) -> bool:
        return "\ue000" in block and self._find(block) is not None

    def run(self, parent, blocks) -> None:
        block = blocks.pop(0)
        i, record, tag, what = self._find(block)
        lines = block.split("\n")
        before, after = "\n".join(lines[:i]), "\n".join(lines[i + 1:])
        if after.strip():
            blocks.insert(0, after)
        if before.strip():
            self.parser.parseBlocks(parent, [before])
        if isinstance(what, FigureRef):
            text = figure_markdown(record.results, what.name, page_uri=record.uri)
        else:
            try:
                text = placeholders.table_markdown(*what, live=record.live)
            except TemplateError as exc:
                raise placeholders.located(record.where, tag, f"{{{{{tag.expr}}}}}: {exc}") from None
        _state(self.parser.md).blocks.add((record.id, tag.index))
        start = len(parent)
        self.parser.parseChunk(parent, text.strip("\n"))
        if isinstance(what, FigureRef):  # the data box's summary is short; its accessible name says whose
            module, name = what.name.split(".", 1)
            for box in (box for el in parent[start:] for box in el.iter("details")):
                box.set("aria-label", f"{DATA_SUMMARY}: {record.results[module].figures[name]['caption']}")


CODE_TAGS = {"code", "pre", "kbd", "samp"}
# Braces a placeholder's value shows ({{ "{{" }}) travel as these until the output check is done.
BRACES = str.maketrans("{}", "\ue002\ue003")
UNBRACES = str.maketrans("\ue002\ue003", "{}")


def _guard(text: str) -> str:
    return text.translate(BRACES)
BLOCK_TAGS = {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "figcaption"}


class _Resolver:
    """Fills the tokens of one conversion and remembers where each stood."""

    def __init__(self, md: Markdown):
        self.md = md
        self.found: dict[tuple[int, int], list[str]] = {}
        self.shown: dict[tuple[int, int], placeholders.Shown] = {}
        self.groups: list[list[tuple[int, int]]] = []
        self.stash_context: dict[int, str] = {}  # raw HTML set aside -> where its placeholder stands
        self.unwrapped: set[tuple[int, int]] = set()  # live claims marked on an element instead

    def mark_claims(self, root: etree.Element) -> None:
        """On a live page, a claim whose start and end stand in different elements (it begins
        inside *emphasis* and ends after it) cannot be wrapped in one span: its attributes go on
        the nearest element holding both, and its tags show nothing."""
        parents = {child: el for el in root.iter() for child in el}
        where: dict[tuple[int, int], etree.Element] = {}
        for el in root.iter():
            for text in (el.text, *(child.tail for child in el)):
                for m in placeholders.TOKEN.finditer(text or ""):
                    record, tag = self._tag(m)
                    if record.live and tag.block in placeholders.BLOCKS:
                        where[(record.id, tag.index)] = el
        opened = None
        for key in sorted(where):
            tag = _record(key[0]).tags[key[1]]
            if tag.block == "claim":
                opened = key
                continue
            if opened is None or opened[0] != key[0] or where[opened] is where[key]:
                opened = None
                continue
            chain, node = [], where[opened]
            while node is not None:
                chain.append(node)
                node = parents.get(node)
            common = where[key]
            while common is not None and common not in chain:
                common = parents.get(common)
            shown = placeholders.fill(_record(opened[0]).tags[opened[1]], {}, "", context="prose", live=True)
            expr = re.search(r'data-claim-expr="([^"]*)"', shown.markup or "")
            if common is not None and expr:
                common.set("data-claim", "true")
                common.set("data-claim-expr", htmlmod.unescape(expr.group(1)))
                self.unwrapped |= {opened, key}
            opened = None

    def _tag(self, m: re.Match) -> tuple[_Record, Tag]:
        record = _record(int(m.group("page")))
        return record, record.tags[int(m.group("tag"))]

    def shown_for(self, m: re.Match, context: str, group: list | None) -> placeholders.Shown:
        record, tag = self._tag(m)
        key = (record.id, tag.index)
        self.found.setdefault(key, []).append(context)
        live = record.live and key not in self.unwrapped
        shown = placeholders.fill(tag, record.scope, record.where, context=context, live=live)
        if context == "prose" and tag.expr is not None:
            self.shown.setdefault(key, shown)
            if group is not None:
                group.append(key)
        return shown

    def plain(self, text: str) -> str:
        return placeholders.TOKEN.sub(lambda m: _guard(self.shown_for(m, "plain", None).text), text)

    def fill(self, text: str, context: str, group: list | None) -> str:
        """`text` with its tokens filled for `context`; a number's span is set aside as raw HTML,
        as the span a page writes by hand would be (so the TOC and search read its text)."""
        def one(m: re.Match) -> str:
            shown = self.shown_for(m, context, group)
            if context in ("code", "math"):
                return shown.text
            if shown.markup is not None:
                return self.md.htmlStash.store(shown.markup)
            if shown.span is None:
                return _guard(shown.text)
            return self.md.htmlStash.store(_guard(placeholders.span_html(shown)))

        filled = placeholders.TOKEN.sub(one, text)
        return util.AtomicString(filled) if isinstance(text, util.AtomicString) else filled

    def tree(self, el: etree.Element, code: bool = False, math: bool = False, group: list | None = None) -> None:
        for key, value in list(el.attrib.items()):
            if "\ue000" in value:
                el.set(key, self.plain(value))
        code = code or el.tag in CODE_TAGS
        math = math or "arithmatex" in (el.get("class") or "").split()
        if el.tag in BLOCK_TAGS or (math and el.tag == "div"):
            group = []
            self.groups.append(group)
        context = "code" if code else "math" if math else "prose"
        for text in (el.text, *(child.tail for child in el)):
            for m in util.HTML_PLACEHOLDER_RE.finditer(text or ""):
                self.stash_context.setdefault(int(m.group(1)), context)
        if el.text and "\ue000" in el.text:
            el.text = self.fill(el.text, context, group)
        for child in el:
            self.tree(child, code, math, group)
            if child.tail and "\ue000" in child.tail:
                child.tail = self.fill(child.tail, context, group)

    def raw(self, text: str, context: str) -> str:
        """Tokens in raw HTML the parser set aside: code keeps the tag as written (Pygments may
        have split a token with its markup), attributes and scripts get plain text, text a span."""
        text = _SPLIT_TOKEN.sub(lambda m: self._code_literal(m), text)
        if context == "code":  # the content of a code span, already escaped
            return placeholders.TOKEN.sub(
                lambda m: htmlmod.escape(self.shown_for(m, "code", None).text, quote=False), text)
        group: list = []
        self.groups.append(group)
        out, depth_code, depth_script = [], 0, 0
        for piece in _HTML_PIECE.finditer(text):
            chunk = piece.group(0)
            if "\ue000" not in chunk:
                out.append(chunk)
            elif piece.group("tag") or piece.group("comment"):
                out.append(placeholders.TOKEN.sub(
                    lambda m: _guard(htmlmod.escape(self.shown_for(m, "plain", None).text, quote=True)), chunk))
            elif depth_code:
                out.append(placeholders.TOKEN.sub(
                    lambda m: htmlmod.escape(self.shown_for(m, "code", None).text, quote=False), chunk))
            elif depth_script:
                out.append(placeholders.TOKEN.sub(lambda m: _guard(self.shown_for(m, "plain", None).text), chunk))
            else:
                out.append(placeholders.TOKEN.sub(
                    lambda m: _guard(placeholders.span_html(self.shown_for(m, "prose", group))), chunk))
            name = (piece.group("name") or "").lower()
            if name in CODE_TAGS:
                depth_code += -1 if piece.group("close") else 1
            elif name in ("script", "style"):
                depth_script += -1 if piece.group("close") else 1
        return "".join(out)

    def _code_literal(self, m: re.Match) -> str:
        inner = re.sub(r"<[^>]*>", "", m.group(0))
        t = placeholders.TOKEN.fullmatch(inner)
        if not t:
            return m.group(0)
        return htmlmod.escape(self.shown_for(t, "code", None).text, quote=False)


_SPLIT_TOKEN = re.compile(r"\ue000(?:<[^>]*>|[pt0-9])*?<[^>]*>(?:<[^>]*>|[pt0-9])*?\ue001")
_HTML_PIECE = re.compile(r"(?P<comment><!--.*?-->)|(?P<tag><(?P<close>/?)(?P<name>[A-Za-z][\w:-]*)[^>]*>)|[^<]+|<",
                         re.DOTALL)


class PlaceholderTreeprocessor(Treeprocessor):
    """Runs after the inline patterns (20), attribute lists (8) and abbreviations (7), before the
    table of contents (5): headings carry their numbers into the TOC and search."""

    def run(self, root: etree.Element) -> None:
        state = _state(self.md)
        resolver = _Resolver(self.md)
        for key in state.blocks:
            resolver.found[key] = ["block"]
        resolver.mark_claims(root)
        resolver.tree(root)
        stash = self.md.htmlStash.rawHtmlBlocks
        for i, block in enumerate(stash):
            if isinstance(block, str):
                if "\ue000" in block:
                    stash[i] = resolver.raw(block, resolver.stash_context.get(i, "prose"))
            else:
                resolver.tree(block)
        records = {rid for rid, _ in resolver.found} | ({state.record.id} if state.record else set())
        for rid in sorted(records):
            record = _record(rid)
            for tag in record.tags:
                tag.contexts = resolver.found.get((rid, tag.index), [])
                tag.shown = resolver.shown.get((rid, tag.index))
            placeholders.check_claims(record.tags, record.text, record.scope, record.where)
        for group in resolver.groups:
            by_page: dict[int, list[Tag]] = {}
            for rid, index in group:
                by_page.setdefault(rid, []).append(_record(rid).tags[index])
            for rid, tags in by_page.items():
                placeholders.check_shown_sums(tags, _record(rid).where)


_HIDDEN = re.compile(r"<(pre|code|script|style|math|kbd|samp)\b.*?</\1>|<!--.*?-->"
                     r"|<(span|div) class=\"arithmatex\">.*?</\2>", re.DOTALL)
_MARKS = re.compile(r"\{\{|\{%|\}\}|%\}")
ENGINE_MARKUP = re.compile(r"&lt;span class=(?:&quot;|\")num")


def check_html(text: str, where: str, record: _Record | None = None) -> None:
    """Stop on anything of the placeholder language in `text` (HTML) outside code and math: a
    token no processor filled, `{{`, `{%`, `}}` or `%}`, or the engine's span shown as text.
    The extension runs it on every page; a plugin may run it on the whole page too (the theme's
    title, meta and navigation come from the front matter)."""
    m = re.search("\ue000(?:<[^>]*>|[pt0-9])*\ue001", text)
    if m:
        t = placeholders.TOKEN.fullmatch(re.sub(r"<[^>]*>", "", m.group(0)))
        if t:
            rec = _record(int(t.group("page")))
            tag = rec.tags[int(t.group("tag"))]
            place = " ".join(re.sub(r"<[^>]*>", " ", text[max(0, m.start() - 40):m.start()]).split())
            raise placeholders.located(rec.where, tag, M.text(
                "unresolved", source=(tag.expr or tag.source).strip(), place=f"after '{place[-30:]}'"))
    visible = _HIDDEN.sub(lambda h: " " * len(h.group(0)), text)
    m = ENGINE_MARKUP.search(visible)
    if m:
        snippet = htmlmod.unescape(re.sub(r"<[^>]*>", "", visible[m.start():m.start() + 60]))
        line = _line(record, 'class="num')
        raise PageError(f"{where}:{line}: " + M.text("escaped_markup", snippet=snippet))
    m = _MARKS.search(visible)
    if m:
        mark = m.group(0)
        after = htmlmod.unescape(re.sub(r"<[^>]*>", "", visible[m.start():m.start() + 120]))
        snippet = after.split("\n")[0][:60].strip()
        closing = {"{{": "}}", "{%": "%}", "}}": "{{", "%}": "{%"}[mark]
        raise PageError(f"{where}:{_line(record, mark)}: " + M.text(
            "stray", mark=mark, closing=closing, snippet=snippet))


def _line(record: _Record | None, mark: str) -> int:
    """The line of the first `mark` in the page's text that belongs to no tag."""
    if record is None:
        return 1
    tags = [(t.start, t.start + len(t.source)) for t in record.tags]
    code = [(c.start(), c.end()) for c in re.finditer(r"(`+).+?\1", record.text, re.DOTALL)]
    for m in re.finditer(re.escape(mark), record.text):
        if not any(a <= m.start() < b for a, b in tags + code):
            return record.first_line + record.text.count("\n", 0, m.start())
    return record.first_line


class OutputCheckPostprocessor(Postprocessor):
    """The safety net: nothing of the placeholder language may reach a reader outside code."""

    def run(self, text: str) -> str:
        record = _state(self.md).record
        check_html(text, record.where if record else "the page", record)
        self._unguard_toc(getattr(self.md, "toc_tokens", []))
        if isinstance(getattr(self.md, "toc", None), str):
            self.md.toc = self.md.toc.translate(UNBRACES)
        return text.translate(UNBRACES)

    def _unguard_toc(self, tokens: list) -> None:
        for token in tokens:
            for key in ("name", "html", "data-toc-label"):
                if isinstance(token.get(key), str):
                    token[key] = token[key].translate(UNBRACES)
            self._unguard_toc(token.get("children", []))


class PlaceholderExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        md.registerExtension(self)
        # Before every other preprocessor (normalize_whitespace is 30, snippets 32).
        md.preprocessors.register(PlaceholderPreprocessor(md), "anatomia_placeholders", 1000)
        # After indented code (80) and block math (79.9), before tables (75) and paragraphs.
        md.parser.blockprocessors.register(FigureBlockProcessor(md.parser), "anatomia_figures", 76)
        md.treeprocessors.register(PlaceholderTreeprocessor(md), "anatomia_placeholders", 6)
        # After raw HTML is put back (30) and math is typeset (5).
        md.postprocessors.register(OutputCheckPostprocessor(md), "anatomia_output_check", 1)

    def reset(self) -> None:
        pass


def makeExtension(**kwargs) -> PlaceholderExtension:  # noqa: N802 - Python-Markdown's entry point
    return PlaceholderExtension(**kwargs)
