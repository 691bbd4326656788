"""The placeholder language bound to pages: a Python-Markdown extension and the pages it reads.

`render_page` (on_page_markdown) replaces every tag by an inert token and registers the page in
the build's `PageRegistry`; Python-Markdown parses the page with the tokens in place, so its own
processors find code, tables, links and attributes. The extension's processors, each registered
with its priority in `PlaceholderExtension.extendMarkdown`:

- a preprocessor finds the page being converted (a page, or a blog post's excerpt);
- a block processor expands a lone token into a figure or a table;
- a tree processor gives each token its text by where it landed and checks the claims;
- the Temml postprocessor (mathml.py) typesets the math, when the extension is given a renderer;
- a postprocessor stops on anything of the language left (the output check).

A page's front matter and the names it can read are frontmatter.py's; the checks of the final
page, with what the theme added, final_page.py's. The extension works without MkDocs: make a
`PageRegistry` (or a `state.BuildState`), register a page with `render_page`, convert its text
with `PlaceholderExtension(pages)`.
"""

from __future__ import annotations

import contextlib
import html as htmlmod
import posixpath
import re
import textwrap
import urllib.parse
import xml.etree.ElementTree as etree
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from markdown import Extension, Markdown, util
from markdown.blockprocessors import BlockProcessor
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from anatomia_engine import codec, placeholders, runner, sentinels
from anatomia_engine import live as livemod
from anatomia_engine.errors import EngineError
from anatomia_engine.frontmatter import front_matter, page_scope
from anatomia_engine.kit import Table, markdown_text
from anatomia_engine.mathml import MathRenderer, TemmlPostprocessor
from anatomia_engine.placeholders import BLOCKS, TOKEN, Entry, FigureRef, Tag, fill

FIGURE_DIR = "figures"

# The summary of a figure's data box; its accessible name adds the caption
DATA_SUMMARY = "Dane do rysunku"

OPEN = sentinels.TOKEN_OPEN


def _at(tag: Tag) -> str:
    """`file:line` of a tag, as its errors name it."""
    return f"{tag.where}:{tag.line}"


# -------------------------------------------------------------------------------------------------
# Figures
# -------------------------------------------------------------------------------------------------

def figure_markdown(results: Mapping[str, runner.ModuleResult], qualified: str, *, page_uri: str,
                    copy: int = 1, live: str | None = None) -> str:
    """Light and dark images, a caption, and a collapsible data table with a CSV link.

    The files are under figures/<module>/. The `copy`-th showing of the figure on its page gets
    its own id (fig-module-name, then …-2, …-3); on a live page the caption says whether the
    browser redraws it (`live`: drawn, fixed, stale).
    """
    module, name = qualified.split(".", 1)
    entry = results[module].figures[name]
    files = entry["files"]
    base = posixpath.relpath(f"{FIGURE_DIR}/{module}", posixpath.dirname(page_uri) or ".")
    # the alt text goes inside a Markdown link's brackets, on one line
    alt = entry["alt"].replace("[", "(").replace("]", ")").replace("\n", " ")
    table = codec.decode_value(entry["table"])
    figure_id = f"fig-{module}-{name}"
    if copy > 1:
        figure_id += f"-{copy}"
    attrs = f"id: {figure_id}, class: computed-figure"
    if live:
        attrs += f", data-live: {live}"
    csv = f"{base}/{files['csv']}"
    lines = [
        f"![{alt}]({base}/{files['light']}#only-light){{ loading=lazy }}",
        f"![{alt}]({base}/{files['dark']}#only-dark){{ loading=lazy }}",
        "",
        # a caption block (pymdownx.blocks.caption)
        "/// caption",
        f"    attrs: {{{attrs}}}",
        # the module's text, shown as written
        markdown_text(entry["caption"]),
        "///",
        "",
        f'??? info "{DATA_SUMMARY}"',
        "",
        textwrap.indent(table.to_markdown(), "    "),
        "",
        f'    [Pobierz dane (CSV)]({csv}){{ download="{module}-{name}.csv" }}',
    ]
    return "\n".join(lines)


# -------------------------------------------------------------------------------------------------
# The pages registered for conversion
# -------------------------------------------------------------------------------------------------

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
class Record:
    """A page whose tags are tokens: what resolving them needs."""

    id: int
    page: Page
    # the Markdown body as handed to render_page (tags as written)
    text: str
    first_line: int
    tags: list[Tag]
    scope: dict[str, Entry]
    # for its figures
    results: Mapping[str, runner.ModuleResult]
    tokenized: str
    # front matter `live: {model: …}`: claims and numbers carry their compiled expressions
    live: bool
    # what the browser model recomputes, and what it need not
    declared: livemod.Declaration | None = None


class PageRegistry:
    """The pages of one build whose tags `render_page` turned into tokens, by number.

    A token names its page by number (`p3t12`), so that a conversion can resolve a token of any
    page registered: a blog post's excerpt is converted with the blog's index. The plugin makes
    one registry per build (state.py); without MkDocs, make one and hand it to `render_page` and
    to the extension.
    """

    def __init__(self) -> None:
        self.records: dict[int, Record] = {}
        # a page keeps its number when it is registered again in the same build
        self.ids: dict[str, int] = {}

    def number(self, where: str) -> int:
        """The page's number: the next one the first time it is registered."""
        if where not in self.ids:
            self.ids[where] = len(self.ids) + 1
        return self.ids[where]

    def add(self, record: Record) -> None:
        self.records[record.id] = record

    def tag(self, m: re.Match) -> tuple[Record, Tag]:
        """The page and the tag of the token `m` (a match of TOKEN).

        A token of a page this registry does not hold was made for another build (or by hand):
        its placeholders were never registered for this one, as without the plugin.
        """
        record = self.records.get(int(m.group("page")))
        if record is None:
            raise EngineError("needs_page")
        return record, record.tags[int(m.group("tag"))]

    def holding(self, text: str) -> Record | None:
        """The page whose tokenized Markdown is `text` (a page without tokens), if registered."""
        for record in self.records.values():
            if record.tokenized == text:
                return record
        return None


def _fill_plain(text: str, tags: list[Tag], scope: dict[str, Entry]) -> str:
    """`text` (a title, a description) with each token replaced by its value as plain text."""

    def plain(m: re.Match) -> str:
        tag = tags[int(m["tag"])]
        return fill(tag, scope, context="plain").text

    return TOKEN.sub(plain, text)


def render_page(markdown: str, page: Page, results: Mapping[str, runner.ModuleResult],
                pages: PageRegistry, *, meta: dict | None = None) -> str:
    """The page's Markdown body with every tag replaced by a token, the page registered in `pages`.

    The tokens are resolved while Python-Markdown converts the text with the placeholder
    extension of the same registry (never cache the text). `meta` (MkDocs' page.meta) gets its
    `title` and `description` filled as plain text.
    """
    fm = front_matter(page.raw, page.where)
    scope = page_scope(results, fm, page.where)
    # the line of each front matter key, for the errors of `title`, `description` and `live`
    key_lines = {}
    for number, text in enumerate(page.raw.splitlines(), start=1):
        key_lines[text.split(":", 1)[0]] = number
    if meta is None:
        meta = {}
    declared = livemod.declaration(fm.meta, f"{page.where}:{key_lines.get('live', 1)}")
    for key in ("title", "description"):
        if isinstance(meta.get(key), str):
            text, tags = placeholders.scan(meta[key], 0, key_lines.get(key, 1), page.where)
            # the theme shows them as built: a live page may show only values declared fixed
            for tag in tags:
                livemod.check(declared, tag, scope, recomputed=False)
            meta[key] = _fill_plain(text, tags, scope)
    record_id = pages.number(page.where)
    tokenized, tags = placeholders.scan(markdown, record_id, fm.first_line, page.where)
    live = declared is not None
    record = Record(record_id, page, markdown, fm.first_line, tags, scope, results, tokenized, live,
                    declared)
    pages.add(record)
    return tokenized


def check_live(record: Record, tag: Tag, *, recomputed: bool = True,
               model_input: bool = False) -> None:
    """On a live page nothing is left as built without the page saying so (live.check)."""
    livemod.check(record.declared, tag, record.scope, recomputed=recomputed,
                  model_input=model_input)


# -------------------------------------------------------------------------------------------------
# One conversion
# -------------------------------------------------------------------------------------------------

@dataclass
class Conversion:
    """What the processors of one Markdown instance share while it converts one text."""

    # the registered page being converted (None: a text the plugin did not register)
    record: Record | None = None
    # figure -> how often this conversion showed it (each showing gets its own id)
    figures: dict[str, int] = field(default_factory=dict)

    @property
    def page(self) -> Page | None:
        if self.record is None:
            return None
        return self.record.page


class PlaceholderPreprocessor(Preprocessor):
    """Finds the page being converted (or a part of one: a post's excerpt); placeholders in
    Markdown the plugin did not register are an error."""

    def __init__(self, md: Markdown, pages: PageRegistry, conversion: Conversion) -> None:
        super().__init__(md)
        self.pages = pages
        self.conversion = conversion

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        m = TOKEN.search(text)
        if m:
            record = self.pages.tag(m)[0]
        elif placeholders.scan(text, 0)[1]:
            raise EngineError("needs_page")
        else:
            # a page without placeholders: its errors (math, stray braces) still name it
            record = self.pages.holding(text)
        self.conversion.record = record
        self.conversion.figures = {}
        return lines


# -------------------------------------------------------------------------------------------------
# Figures and tables
# -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Block:
    """A token alone on its line whose value is a figure or a table."""

    line: int
    record: Record
    tag: Tag
    value: object
    expr: str
    used: list[str]


class FigureBlockProcessor(BlockProcessor):
    """A token alone on its line for a figure or a table: its Markdown, parsed after code blocks
    and math have taken theirs (a token in code is never expanded)."""

    def __init__(self, parser, pages: PageRegistry, conversion: Conversion) -> None:
        super().__init__(parser)
        self.pages = pages
        self.conversion = conversion
        self.found: _Block | None = None

    def test(self, parent, block) -> bool:
        for number, line in enumerate(block.split("\n")):
            found = self._block(number, line)
            if found is not None:
                # BlockParser calls run() right after a test that says yes
                self.found = found
                return True
        return False

    def _block(self, number: int, line: str) -> _Block | None:
        m = TOKEN.fullmatch(line.strip())
        if m is None:
            return None
        record, tag = self.pages.tag(m)
        if tag.expr is None:
            return None
        # an error is reported where the token is filled
        with contextlib.suppress(EngineError):
            value, used, expr, _, _ = placeholders.value_of(tag, record.scope)
            if isinstance(value, (FigureRef, Table)):
                return _Block(number, record, tag, value, expr, used)
        return None

    def run(self, parent, blocks) -> None:
        found = self.found
        lines = blocks.pop(0).split("\n")
        before = "\n".join(lines[:found.line])
        after = "\n".join(lines[found.line + 1:])
        if after.strip():
            blocks.insert(0, after)
        if before.strip():
            self.parser.parseBlocks(parent, [before])
        if isinstance(found.value, Table):
            self._table(parent, found)
        else:
            self._figure(parent, found)

    def _table(self, parent, found: _Block) -> None:
        record = found.record
        tag = found.tag
        check_live(record, tag)
        try:
            text = placeholders.table_markdown(found.value, found.expr, record.scope[found.used[0]],
                                               live=record.live, stash=self.parser.md.htmlStash.store)
        except EngineError as exc:
            raise tag.located(exc) from exc
        self.parser.parseChunk(parent, text.strip("\n"))

    def _figure(self, parent, found: _Block) -> None:
        record = found.record
        qualified = found.value.name
        module, name = qualified.split(".", 1)
        state = None
        if record.declared is not None:
            state = record.declared.figure(qualified)
            if state is None:
                raise EngineError("live_figure", where=_at(found.tag), name=name,
                                  model=record.declared.model)
        shown = self.conversion.figures
        shown[qualified] = shown.get(qualified, 0) + 1
        start = len(parent)
        text = figure_markdown(record.results, qualified, page_uri=record.page.uri,
                               copy=shown[qualified], live=state)
        self.parser.parseChunk(parent, text)
        # the data box's accessible name says whose data it holds
        caption = record.results[module].figures[name]["caption"]
        for element in parent[start:]:
            for box in element.iter("details"):
                box.set("aria-label", f"{DATA_SUMMARY}: {caption}")


# -------------------------------------------------------------------------------------------------
# Where a token stands
# -------------------------------------------------------------------------------------------------

CODE_TAGS = {"code", "pre", "kbd", "samp"}
BLOCK_TAGS = {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "figcaption"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}

# A token in highlighted code, perhaps split by Pygments' markup
_CODE_TOKEN = re.compile(f"{OPEN}(?:<[^>]*>|[pt0-9])*{sentinels.TOKEN_CLOSE}")

# Raw HTML's code, elements whose content is not markup (below), tags and comments, text
_RAW_PARTS = re.compile(
    r"(?P<code><(?P<c>pre|code|kbd|samp)\b.*?</(?P=c)>)"
    r"|(?P<element>"
    r"<(?P<e>script|style|textarea|title|svg|math|xmp|iframe|noembed|noframes)\b(?P<open>[^>]*)>"
    r"(?P<body>.*?)(?P<close></(?P=e)\s*>))"
    r"|(?P<tag><!--.*?-->|<[^>]*>)|[^<]+|<",
    re.DOTALL | re.IGNORECASE,
)

# The output contexts of HTML where a number's <span> cannot stand, by the element that makes
# them: a script's or a style's body (raw text: a value there is code), the text of a textarea
# or a title (the browser shows markup as written) and inline SVG or MathML (foreign content: the
# browser moves an HTML <span> out of the drawing). A value in the first two goes in as JSON or
# not at all, in the others as text. The legacy raw-text elements (xmp, iframe, noembed,
# noframes) show their content as written, entities too: a value there is text without '<'/'&'.
RAW_CONTEXTS = {
    "script": "script",
    "style": "style",
    "textarea": "rcdata",
    "title": "rcdata",
    "svg": "foreign",
    "math": "foreign",
    "xmp": "rawtext",
    "iframe": "rawtext",
    "noembed": "rawtext",
    "noframes": "rawtext",
}
_RAW_TAG = re.compile(r"<(/?)(" + "|".join(RAW_CONTEXTS) + r")\b[^>]*?(/?)>", re.IGNORECASE)

# A token, or raw HTML Python-Markdown set aside (an inline tag such as <textarea>), in order
_TOKEN_OR_STASH = re.compile(TOKEN.pattern + "|" + util.HTML_PLACEHOLDER % r"(?P<stash>[0-9]+)")

# Attributes whose value is an address, and what a text placed in one keeps as written (RFC
# 3986's reserved characters and '%'); links.py checks where the address leads.
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "poster", "data", "cite", "xlink:href",
                  "background"}
URL_SAFE = ":/?#[]@!$&'()*+,;=%~"

# Attributes whose value is code (event handlers), a style sheet or a document (an iframe's
# srcdoc): a value cannot go in as text.
_CODE_ATTRIBUTE = re.compile(r"on[a-z]+|style|srcdoc", re.IGNORECASE)

# The contexts whose text a value joins as plain text (a tag's attribute, a raw element's body)
_PLAIN_CONTEXTS = ("tag", *RAW_CONTEXTS.values())

_ATTRIBUTE_BEFORE = re.compile(r"([^\s\"'<>/=]+)\s*=\s*(?:\"[^\"]*|'[^']*|[^\s\"'=<>`]*)$")


def attribute_at(tag: str, position: int) -> str | None:
    """The name of the attribute whose value holds `position` of the raw tag `tag`, if any."""
    m = _ATTRIBUTE_BEFORE.search(tag[:position])
    if m is None:
        return None
    return m.group(1)


def refuse_context(tag: Tag, context: str, attribute: str | None) -> None:
    """Stop where a value cannot go in as text: a style sheet, an event handler's code, a script
    unless it is shown as JSON (`| json`, which writes no "<" that could end the script)."""
    if context == "style":
        raise EngineError("value_in_code", where=_at(tag), source=tag.source,
                          place="a <style> element")
    if attribute and _CODE_ATTRIBUTE.fullmatch(attribute):
        raise EngineError("value_in_code", where=_at(tag), source=tag.source,
                          place=f"the attribute {attribute}")
    if context != "script":
        return
    expr, bar, filt = tag.expr.rpartition("|")
    if bar and filt.strip() == "json":
        return
    if not bar:
        expr = tag.expr
    fix = "{{ " + expr.strip() + " | json }}"
    raise EngineError("script_needs_json", where=_at(tag), source=tag.source, fix=fix)


def _hide(text: str) -> str:
    """Braces a value shows travel hidden until the output check is done (sentinels.py)."""
    return text.translate(sentinels.HIDE_BRACES)


class PlaceholderTreeprocessor(Treeprocessor):
    """Fills the tokens of one conversion by where each stands, then checks the claims and the
    shown sums; before the table of contents (5): headings carry their numbers into the TOC and
    search."""

    def __init__(self, md: Markdown, pages: PageRegistry) -> None:
        super().__init__(md)
        self.pages = pages

    def run(self, root: etree.Element) -> None:
        # the pages whose tokens it filled
        self.seen: dict[int, Record] = {}
        # the tags of each block of text, for the shown sums
        self.groups: list[list[Tag]] = []
        # raw HTML set aside -> where its placeholder stands
        self.stash_context: dict[int, str] = {}
        # inline raw elements (<textarea>, <svg> …) open where the walk is
        self.open_raw: list[str] = []
        # live claims marked on an element instead
        self.unwrapped: set[tuple[int, int]] = set()
        # inside a heading: the table of contents, the anchor and the search index copy its text
        # as built, so on a live page it is a place the browser does not recompute
        self.in_heading = False
        self.mark_claims(root)
        self.tree(root)
        stash = self.md.htmlStash.rawHtmlBlocks
        for number, block in enumerate(stash):
            if not isinstance(block, str):
                self.tree(block)
            elif OPEN in block:
                context = self.stash_context.get(number, "prose")
                stash[number] = self.raw(block, context)
        for record_id in sorted(self.seen):
            record = self.seen[record_id]
            placeholders.check_claims(record.tags, record.text, record.scope)
        for group in self.groups:
            placeholders.check_shown_sums(group)

    # ---------------------------------------------------------------------------------------------
    # Claims on a live page
    # ---------------------------------------------------------------------------------------------

    def _live_claim_tags(self, root: etree.Element) -> list[tuple[tuple[int, int], Tag, etree.Element]]:
        """Every claim and endclaim tag of a live page, with the element holding it, in order."""
        found = []
        for el in root.iter():
            text = "".join(t or "" for t in (el.text, *(child.tail for child in el)))
            for m in TOKEN.finditer(text):
                record, tag = self.pages.tag(m)
                if record.live and tag.block in BLOCKS:
                    found.append(((record.id, tag.index), tag, el))
        found.sort(key=_position)
        return found

    def mark_claims(self, root: etree.Element) -> None:
        """On a live page, a claim whose tags stand in different elements (it begins inside
        *emphasis*) cannot be wrapped in one span: its attributes go on the nearest element
        holding both."""
        parents = {child: el for el in root.iter() for child in el}
        found = self._live_claim_tags(root)
        for (start, claim, first), (end, close, last) in zip(found, found[1:], strict=False):
            pair = (claim.block, close.block) == BLOCKS
            if not pair or start[0] != end[0] or first is last:
                continue
            ancestors = [first]
            while ancestors[-1] in parents:
                ancestors.append(parents[ancestors[-1]])
            holder = last
            while holder not in ancestors:
                holder = parents[holder]
            holder.set("data-claim", "true")
            holder.set("data-claim-expr", placeholders.claim_expression(claim))
            self.unwrapped |= {start, end}

    # ---------------------------------------------------------------------------------------------
    # A token's text
    # ---------------------------------------------------------------------------------------------

    def text(self, m: re.Match, context: str, group: list | None, raw: bool = False,
             attribute: str | None = None, element_id: str | None = None) -> str:
        """A token's text in `context`, recording where it stood and what it showed.

        `context`: 'prose', 'plain', 'code', 'math', 'tag' (raw HTML's) or one of RAW_CONTEXTS;
        a number's span is set aside as raw HTML, as a hand-written span would be. `attribute`:
        the attribute whose value holds it, of the element with `element_id`.
        """
        record, tag = self.pages.tag(m)
        before = m.string[m.start() - 1:m.start()]
        if context in ("prose", "plain") and not raw and before == "\\":
            raise EngineError("escaped_tag", where=_at(tag), mark=tag.source[:2],
                              snippet="\\" + tag.source)
        self.seen[record.id] = record
        plain = context
        if context in _PLAIN_CONTEXTS:
            plain = "plain"
        tag.contexts.append(plain)
        # a claim's tags show nothing, wherever they stand
        if tag.expr is not None:
            refuse_context(tag, context, attribute)
        live = record.live and (record.id, tag.index) not in self.unwrapped
        shown = fill(tag, record.scope, context=plain, live=live)
        if plain != "code":
            # a claim is recomputed on its span or on the element holding it
            recomputed = (shown.live or tag.block == "claim") and not self.in_heading
            model_input = livemod.is_model_input(element_id, attribute)
            check_live(record, tag, recomputed=recomputed, model_input=model_input)
        if attribute and attribute.lower() in URL_ATTRIBUTES and isinstance(shown.value, str):
            # a text in an address is data: a space, a quote or a letter beyond ASCII encoded
            shown = replace(shown, text=urllib.parse.quote(shown.text, safe=URL_SAFE))
        if plain == "prose" and tag.expr is not None:
            tag.shown = tag.shown or shown
            if group is not None:
                group.append(tag)
        return self._written(shown, tag, context, raw)

    def _written(self, shown: placeholders.Shown, tag: Tag, context: str, raw: bool) -> str:
        """What the token becomes in its context: text, escaped text or set-aside markup."""
        if context == "code" and raw:
            return htmlmod.escape(shown.text, quote=False)
        if context in ("code", "math"):
            return shown.text
        if context == "tag":
            return _hide(htmlmod.escape(shown.text, quote=True))
        if context == "script":
            # JSON, as numfmt.fmt_json wrote it: no "<" to end the script
            if raw or tag.expr is None:
                return shown.text
            return self.md.htmlStash.store(shown.text)
        if context == "rawtext" and re.search(r"[<>&]", shown.text):
            # shown as written, entities too
            raise EngineError("value_in_rawtext", where=_at(tag), source=tag.source,
                              text=shown.text[:40])
        if context == "rawtext":
            return _hide(shown.text)
        if context in ("rcdata", "foreign"):
            # text; the tree's serializer escapes what is not raw
            if raw:
                return _hide(htmlmod.escape(shown.text, quote=False))
            return _hide(shown.text)
        marked = shown.span is not None or shown.markup is not None
        if context == "prose" and (raw or marked):
            markup = _hide(placeholders.span_html(shown))
            if raw:
                return markup
            return self.md.htmlStash.store(markup)
        return _hide(shown.text)

    # ---------------------------------------------------------------------------------------------
    # The walk over the tree
    # ---------------------------------------------------------------------------------------------

    def _fill(self, text: str, context: str, group: list | None, attribute: str | None = None,
              element_id: str | None = None) -> str:
        """`text` with each token filled, keeping step with the raw HTML set aside in it."""

        def one(m: re.Match) -> str:
            if m["stash"]:
                return self.follow_raw(m)
            return self.text(m, self.raw_context(context), group, attribute=attribute,
                             element_id=element_id)

        filled = _TOKEN_OR_STASH.sub(one, text)
        if isinstance(text, util.AtomicString):
            return util.AtomicString(filled)
        return filled

    def tree(self, el: etree.Element, code: bool = False, math: bool = False,
             group: list | None = None):
        # headings do not nest: the flag is cleared where the heading's walk ends
        heading = el.tag in HEADINGS
        if heading:
            self.in_heading = True
        for key, value in el.attrib.items():
            if OPEN in value:
                el.set(key, self._fill(value, "plain", group, key, el.get("id")))
        code = code or el.tag in CODE_TAGS
        math = math or "arithmatex" in (el.get("class") or "").split()
        # each block of text is one group of the shown sums; so is a display formula
        if el.tag in BLOCK_TAGS or (math and el.tag == "div"):
            group = []
            self.groups.append(group)
        context = "prose"
        if code:
            context = "code"
        elif math:
            context = "math"
        for text in (el.text, *(child.tail for child in el)):
            for m in util.HTML_PLACEHOLDER_RE.finditer(text or ""):
                self.stash_context.setdefault(int(m.group(1)), context)
        if el.text and OPEN in el.text:
            el.text = self._fill(el.text, context, group)
        for child in el:
            self.tree(child, code, math, group)
            if child.tail and OPEN in child.tail:
                child.tail = self._fill(child.tail, context, group)
        if heading:
            self.in_heading = False

    def follow_raw(self, m: re.Match) -> str:
        """Keep `open_raw` in step with the raw HTML set aside at this place (kept as is)."""
        block = self.md.htmlStash.rawHtmlBlocks[int(m["stash"])]
        if not isinstance(block, str):
            return m[0]
        for t in _RAW_TAG.finditer(block):
            name = t[2].lower()
            closing = bool(t[1])
            if closing and name in self.open_raw:
                # close the innermost element of that name and whatever it holds
                last = len(self.open_raw) - 1 - self.open_raw[::-1].index(name)
                del self.open_raw[last:]
            elif not closing and not t[3]:
                self.open_raw.append(name)
        return m[0]

    def raw_context(self, context: str) -> str:
        """`context`, or the one an inline raw element open at this place makes (RAW_CONTEXTS)."""
        if context in ("prose", "plain") and self.open_raw:
            return RAW_CONTEXTS[self.open_raw[-1]]
        return context

    # ---------------------------------------------------------------------------------------------
    # Raw HTML set aside
    # ---------------------------------------------------------------------------------------------

    def raw(self, text: str, context: str) -> str:
        """Tokens in raw HTML set aside: code keeps the tag as written, tags and comments get
        plain text, scripts, textareas, SVG … what RAW_CONTEXTS says, the text between them a
        number's span."""
        group: list = []
        self.groups.append(group)
        raw = _RawHtml(self, group)
        # the content of a code span, already escaped
        if context == "code":
            return _CODE_TOKEN.sub(raw.code, text)
        return _RAW_PARTS.sub(raw.part, text)


def _position(item: tuple) -> tuple[int, int]:
    return item[0]


class _RawHtml:
    """The tokens of one block of raw HTML, each filled by the part of the HTML it stands in."""

    def __init__(self, tree: PlaceholderTreeprocessor, group: list) -> None:
        self.tree = tree
        self.group = group

    def code(self, m: re.Match) -> str:
        """A token in code, perhaps split by Pygments' markup."""
        t = TOKEN.fullmatch(re.sub(r"<[^>]*>", "", m.group(0)))
        if t is None:
            return m.group(0)
        return self.tree.text(t, "code", None, raw=True)

    def in_tag(self, tag: str) -> str:
        """The tokens of a tag: each in the attribute that holds it."""

        def one(m: re.Match) -> str:
            attribute = attribute_at(m.string, m.start())
            return self.tree.text(m, "tag", self.group, raw=True, attribute=attribute,
                                  element_id=livemod.element_id(tag))

        return TOKEN.sub(one, tag)

    def in_text(self, text: str, kind: str) -> str:
        """The tokens of text between tags, shown as `kind` ('prose' or one of RAW_CONTEXTS)."""

        def one(m: re.Match) -> str:
            return self.tree.text(m, kind, self.group, raw=True)

        return TOKEN.sub(one, text)

    def in_foreign(self, piece: re.Match) -> str:
        """A piece of SVG or MathML: its tags hold attributes, the text between them text."""
        if piece[0].startswith("<"):
            return self.in_tag(piece[0])
        return self.in_text(piece[0], "foreign")

    def part(self, p: re.Match) -> str:
        if p["code"]:
            return _CODE_TOKEN.sub(self.code, p[0])
        if p["tag"]:
            return self.in_tag(p[0])
        if not p["element"]:
            return self.in_text(p[0], "prose")
        kind = RAW_CONTEXTS[p["e"].lower()]
        body = p["body"]
        if kind == "foreign":
            body = re.sub(r"<[^>]*>|[^<]+", self.in_foreign, body)
        else:
            body = self.in_text(body, kind)
        return self.in_tag(f"<{p['e']}{p['open']}>") + body + p["close"]


# -------------------------------------------------------------------------------------------------
# The output check
# -------------------------------------------------------------------------------------------------

# What a reader does not read as text: code, scripts, styles, formulas, comments
HIDDEN = re.compile(r"<(pre|code|script|style|math|kbd|samp)\b.*?</\1>|<!--.*?-->"
                     r"|<(span|div) class=\"arithmatex\">.*?</\2>", re.DOTALL)
# The marks of the placeholder language
MARKS = re.compile(r"\{\{|\{%|\}\}|%\}")
_CLOSING = {"{{": "}}", "{%": "%}", "}}": "{{", "%}": "{%"}
ENGINE_MARKUP = re.compile(r"&lt;span class=(?:&quot;|\")num")
_ENGINE_SPAN = re.compile(r'<span class="num"')
_MARKUP_FREE = re.compile(r"<(?P<e>" + "|".join(RAW_CONTEXTS) + r")\b[^>]*>(?P<body>.*?)</(?P=e)\s*>",
                          re.DOTALL | re.IGNORECASE)
_ANY_TAG = re.compile(r"<[^>]*>")


def _snippet(html: str, length: int = 60) -> str:
    """The text of `html`, tags left out and spaces joined, cut to `length` characters."""
    return " ".join(_ANY_TAG.sub("", html).split())[:length]


class OutputCheckPostprocessor(Postprocessor):
    """The safety net: no unfilled token, `{{`, `{%`, `}}`, `%}` or the engine's span shown as
    text reaches a reader outside code and math."""

    def __init__(self, md: Markdown, pages: PageRegistry, conversion: Conversion) -> None:
        super().__init__(md)
        self.pages = pages
        self.conversion = conversion

    def run(self, text: str) -> str:
        self._check_tokens(text)
        self._check_raw_elements(text)
        self._check_marks(text)
        return text.translate(sentinels.SHOW_BRACES)

    def _check_tokens(self, text: str) -> None:
        if OPEN not in text:
            return
        plain = _ANY_TAG.sub("", text)
        t = TOKEN.search(plain)
        if t is None:
            return
        tag = self.pages.tag(t)[1]
        place = " ".join(plain[max(0, t.start() - 40):t.start()].split())
        raise EngineError("unresolved", where=_at(tag), source=(tag.expr or tag.source).strip(),
                          place=f"after '{place[-30:]}'")

    def _check_raw_elements(self, text: str) -> None:
        """The net under RAW_CONTEXTS: no number's span inside an element that shows it as text."""
        for element in _MARKUP_FREE.finditer(text):
            if _ENGINE_SPAN.search(element["body"]):
                raise EngineError("markup_in_element", where=self.where("{{"),
                                  element=element["e"].lower(), snippet=_snippet(element["body"]))

    def _check_marks(self, text: str) -> None:
        visible = HIDDEN.sub(" ", text)
        escaped = ENGINE_MARKUP.search(visible)
        m = escaped or MARKS.search(visible)
        if m is None:
            return
        snippet = _ANY_TAG.sub("", visible[m.start():m.start() + 120])
        snippet = htmlmod.unescape(snippet).split("\n")[0][:60]
        if escaped:
            raise EngineError("escaped_markup", where=self.where('class="num'), snippet=snippet)
        raise EngineError("stray", where=self.where(m[0]), mark=m[0], closing=_CLOSING[m[0]],
                          snippet=snippet.strip())

    def where(self, mark: str) -> str:
        """file:line of the first `mark` in the page's text outside every tag and code span."""
        record = self.conversion.record
        if record is None:
            return "the page:1"
        taken = [(t.start, t.start + len(t.source)) for t in record.tags]
        for code in re.finditer(r"(`+).+?\1", record.text, re.DOTALL):
            taken.append((code.start(), code.end()))
        offset = 0
        for m in re.finditer(re.escape(mark), record.text):
            if not any(start <= m.start() < end for start, end in taken):
                offset = m.start()
                break
        line = record.first_line + record.text.count("\n", 0, offset)
        return f"{record.page.where}:{line}"


# -------------------------------------------------------------------------------------------------
# The extension
# -------------------------------------------------------------------------------------------------

class PlaceholderExtension(Extension):
    """The placeholder language on one build's pages (`pages`), and, given a `math` renderer,
    Temml's MathML for arithmatex's TeX; the MkDocs plugin registers it with the build's state."""

    def __init__(self, pages: PageRegistry | None = None, math: MathRenderer | None = None,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        # by name alone (no pages): a page's placeholders stop the conversion (needs_page)
        self.pages = pages or PageRegistry()
        self.math = math

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        # One conversion's shared facts, for this Markdown instance's processors only
        conversion = Conversion()
        pages = self.pages
        # Before every other preprocessor (normalize_whitespace is 30, snippets 32)
        pre = PlaceholderPreprocessor(md, pages, conversion)
        md.preprocessors.register(pre, "anatomia_placeholders", 1000)
        # After indented code (80) and block math (79.9), before tables (75) and paragraphs
        figures = FigureBlockProcessor(md.parser, pages, conversion)
        md.parser.blockprocessors.register(figures, "anatomia_figures", 76)
        # After inline patterns (20), attribute lists (8) and abbreviations (7), before the TOC (5)
        tree = PlaceholderTreeprocessor(md, pages)
        md.treeprocessors.register(tree, "anatomia_placeholders", 6)
        # After raw HTML is put back (30) and the ampersand substitution (20); before the
        # output check, which reads the formulas as MathML
        if self.math is not None:
            temml = TemmlPostprocessor(md, self.math, conversion)
            md.postprocessors.register(temml, "anatomia_mathml", 5)
        # After math is typeset: the last word on what reaches a reader
        check = OutputCheckPostprocessor(md, pages, conversion)
        md.postprocessors.register(check, "anatomia_output_check", 1)


def makeExtension(**kwargs) -> PlaceholderExtension:  # noqa: N802 - Python-Markdown's entry point
    return PlaceholderExtension(**kwargs)
