"""The placeholder language bound to pages: a Python-Markdown extension and what the plugin shares.

`render_page` (on_page_markdown) replaces every tag by an inert token; Python-Markdown parses the page
with the tokens in place, so its own processors find code, tables, links and attributes. A block
processor expands a lone token into a figure or a table, a tree processor gives each token its text
by where it landed and checks the claims, a postprocessor stops on anything of the language left.
"""

import contextlib
import difflib
import html as htmlmod
import posixpath
import re
import textwrap
import urllib.parse
import xml.etree.ElementTree as etree
from collections.abc import Mapping
from dataclasses import dataclass, replace

import yaml
from markdown import Extension, Markdown, util
from markdown.blockprocessors import BlockProcessor
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from anatomia_engine import codec, placeholders, runner
from anatomia_engine import live as livemod
from anatomia_engine import messages as M
from anatomia_engine.errors import EngineError
from anatomia_engine.kit import Table, markdown_text
from anatomia_engine.placeholders import BLOCKS, TOKEN, Entry, FigureRef, Tag, TemplateError, fill

FIGURE_DIR = "figures"
DATA_SUMMARY = "Dane do rysunku"  # the summary of a figure's data box; its accessible name adds the caption
FRONT_MATTER = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)


# --- front matter and the scope of a page ---------------------------------------------

@dataclass(frozen=True)
class FrontMatter:
    meta: dict
    first_line: int  # line of the file where the Markdown body (as MkDocs passes it) starts
    computed: list[str]
    computed_line: int


class _Duplicate(Exception):
    def __init__(self, key, first: int, line: int):
        self.key, self.first, self.line = key, first, line


class _UniqueKeys(yaml.SafeLoader):
    """SafeLoader refusing a key given twice in one mapping (YAML would keep the last one silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in getattr(node, "value", []):
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (str, int, float, bool)) and key in seen:   # (lines of the file: +2)
                raise _Duplicate(key, seen[key] + 2, key_node.start_mark.line + 2)
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)


def front_matter(raw: str, where: str) -> FrontMatter:
    """Parse and check a page's YAML front matter; TemplateError naming `where:line` if it is wrong."""
    m = FRONT_MATTER.match(raw)
    if not m:
        if re.match(r"-{3}[ \t]*\n[A-Za-z_][\w-]*[ \t]*:", raw):
            raise TemplateError(f"{where}:1: " + M.text("fm_not_closed"))
        return FrontMatter({}, 1, [], 1)
    try:
        meta = yaml.load(m.group(1), Loader=_UniqueKeys) or {}   # noqa: S506 - a SafeLoader
    except _Duplicate as exc:
        raise TemplateError(f"{where}:{exc.line}: " + M.text("fm_duplicate", key=exc.key,
                                                             first=exc.first)) from None
    except yaml.YAMLError as exc:
        line = 2 + getattr(getattr(exc, "problem_mark", None), "line", 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise TemplateError(f"{where}:{line}: " + M.text("fm_yaml", problem=problem)) from None
    if not isinstance(meta, dict):
        raise TemplateError(f"{where}:2: " + M.text("fm_not_mapping", got=type(meta).__name__))
    # MkDocs also drops the blank lines after the front matter
    first_line = raw.count("\n", 0, len(raw) - len(raw[m.end():].lstrip("\n"))) + 1
    computed = meta.get("computed") or []
    computed = [computed] if isinstance(computed, str) else computed
    line = 2 + next((i for i, text in enumerate(m.group(1).splitlines()) if text.startswith("computed")), 0)
    if not isinstance(computed, list) or not all(isinstance(c, str) for c in computed):
        raise TemplateError(f"{where}:{line}: " + M.text("fm_computed", got=repr(computed)))
    return FrontMatter(meta, first_line, computed, line)


def page_scope(results: Mapping[str, runner.ModuleResult], fm: FrontMatter, where: str) -> dict[str, Entry]:
    """Every value as `module.name`, plus bare names of the modules the page lists."""
    scope: dict[str, Entry] = {}
    for module, result in results.items():
        source = f"{runner.PACKAGE}/{module}.py"
        for key, value in result.values.items():
            meta = result.meta.get(key, {})  # function, what, cite, axes, at, limit
            placeholders.check_value_name(key, source, meta.get("function"))
            if meta.get("at") is not None and meta["at"] not in result.values:
                raise TemplateError(f"{source}: " + M.text("value_at_unknown", function=meta.get("function"),
                                                           name=key, at=meta["at"]))
            scope[f"{module}.{key}"] = Entry(value, source, **meta)
        for key in result.figures:
            scope[f"{module}.{key}"] = Entry(FigureRef(f"{module}.{key}"), source)
    for module in fm.computed:
        if module not in results:
            near = difflib.get_close_matches(module, list(results), n=1)
            hint = f"did you mean '{near[0]}'? " if near else ""
            raise TemplateError(f"{where}:{fm.computed_line}: " + M.text("fm_unknown_module", module=module,
                                                                         hint=hint))
        for key, entry in list(scope.items()):
            if key.startswith(module + "."):
                bare = key[len(module) + 1:]
                if bare in scope and scope[bare] is not entry:
                    raise TemplateError(f"{where}:{fm.computed_line}: " + M.text("fm_ambiguous", name=bare))
                scope[bare] = entry
    return scope


def figure_markdown(results: Mapping[str, runner.ModuleResult], qualified: str, *, page_uri: str,
                    copy: int = 1, live: str | None = None) -> str:
    """Light and dark images, a caption, and a collapsible data table with a CSV link (figures/<module>/);
    the `copy`-th showing of the figure on its page gets its own id (fig-module-name, then …-2, …-3);
    on a live page the caption says whether the browser redraws it (`live`: drawn, fixed, stale)."""
    module, name = qualified.split(".", 1)
    figure_id = f"fig-{module}-{name}" + (f"-{copy}" if copy > 1 else "")
    entry = results[module].figures[name]
    base = posixpath.relpath(f"{FIGURE_DIR}/{module}", posixpath.dirname(page_uri) or ".")
    alt = entry["alt"].replace("[", "(").replace("]", ")").replace("\n", " ")
    table = codec.decode_value(entry["table"])
    return "\n".join([
        f'![{alt}]({base}/{entry["files"]["light"]}#only-light){{ loading=lazy }}',
        f'![{alt}]({base}/{entry["files"]["dark"]}#only-dark){{ loading=lazy }}', "",
        "/// caption", f"    attrs: {{id: {figure_id}, class: computed-figure"   # a caption block
        + (f", data-live: {live}}}" if live else "}"),
        markdown_text(entry["caption"]), "///", "",   # the module's text, shown as written
        f'??? info "{DATA_SUMMARY}"', "",
        textwrap.indent(table.to_markdown(), "    "), "",
        f'    [Pobierz dane (CSV)]({base}/{entry["files"]["csv"]}){{ download="{module}-{name}.csv" }}',
    ])


# --- the pages registered for conversion -------------------------------------------------

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
    page: Page
    text: str  # the Markdown body as handed to render_page (tags as written)
    first_line: int
    tags: list[Tag]
    scope: dict[str, Entry]
    results: Mapping[str, runner.ModuleResult]  # for its figures
    tokenized: str
    live: bool  # front matter `live: {model: …}`: claims and numbers carry their compiled expressions
    declared: livemod.Declaration | None = None  # what the browser model recomputes, and what it need not


_records: dict[int, _Record] = {}
_ids: dict[str, int] = {}  # a page keeps its number when it is rendered again (mkdocs serve)


def render_page(markdown: str, page: Page, results: Mapping[str, runner.ModuleResult], *,
                meta: dict | None = None) -> str:
    """The page's Markdown body with every tag replaced by a token that this process resolves while
    Python-Markdown converts it (never cache it). `meta` (MkDocs' page.meta) gets its `title` and
    `description` filled as plain text."""
    fm = front_matter(page.raw, page.where)
    scope = page_scope(results, fm, page.where)
    lines = {text.split(":", 1)[0]: number for number, text in enumerate(page.raw.splitlines(), start=1)}
    declared = livemod.declaration(fm.meta, f"{page.where}:{lines.get('live', 1)}")
    for key in ("title", "description"):
        if isinstance((meta or {}).get(key), str):
            text, tags = placeholders.scan(meta[key], 0, lines.get(key, 1), page.where)
            for tag in tags:   # the theme shows them as built: on a live page, fixed values only
                livemod.check(declared, tag, scope, recomputed=False)
            meta[key] = TOKEN.sub(lambda m, tags=tags: fill(tags[int(m["tag"])], scope, context="plain").text,
                                  text)
    record_id = _ids.setdefault(page.where, len(_ids) + 1)
    tokenized, tags = placeholders.scan(markdown, record_id, fm.first_line, page.where)
    _records[record_id] = _Record(record_id, page, markdown, fm.first_line, tags, scope, results, tokenized,
                                  declared is not None, declared)
    return tokenized


def check_live(record: _Record, tag: Tag, *, recomputed: bool = True, model_input: bool = False) -> None:
    """On a live page nothing is left as built without the page saying so (live.check)."""
    livemod.check(record.declared, tag, record.scope, recomputed=recomputed, model_input=model_input)


def _tag(m: re.Match) -> tuple[_Record, Tag]:
    record = _records[int(m.group("page"))]
    return record, record.tags[int(m.group("tag"))]


# --- the Python-Markdown extension ------------------------------------------------------

class PlaceholderPreprocessor(Preprocessor):
    """Finds the page being converted (or a part of one: a post's excerpt); placeholders in Markdown
    the plugin did not register are an error."""

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        m = TOKEN.search(text)
        if not m and placeholders.scan(text, 0)[1]:
            raise TemplateError(M.text("needs_page"))
        self.md.anatomia_record = _tag(m)[0] if m else next(
            (r for r in _records.values() if r.tokenized == text), None)
        self.md.anatomia_figures = {}  # figure -> how often this conversion showed it (its ids differ)
        return lines


class FigureBlockProcessor(BlockProcessor):
    """A token alone on its line for a figure or a table: its Markdown, parsed after code blocks and
    math have taken theirs (a token in code is never expanded)."""

    def test(self, parent, block) -> bool:
        for i, line in enumerate(block.split("\n")):
            m = TOKEN.fullmatch(line.strip())
            record, tag = _tag(m) if m else (None, None)
            if tag is None or tag.expr is None:
                continue
            with contextlib.suppress(EngineError):  # reported where the token is filled
                value, used, expr, _, _ = placeholders.value_of(tag, record.scope)
                if isinstance(value, (FigureRef, Table)):
                    self.found = i, record, tag, value, expr, used  # BlockParser calls run() right after
                    return True
        return False

    def run(self, parent, blocks) -> None:
        i, record, tag, value, expr, used = self.found
        lines = blocks.pop(0).split("\n")
        before, after = "\n".join(lines[:i]), "\n".join(lines[i + 1:])
        if after.strip():
            blocks.insert(0, after)
        if before.strip():
            self.parser.parseBlocks(parent, [before])
        start = len(parent)
        if isinstance(value, Table):
            check_live(record, tag)
            try:
                text = placeholders.table_markdown(value, expr, record.scope[used[0]], live=record.live,
                                                   stash=self.parser.md.htmlStash.store)
            except EngineError as exc:
                raise tag.located(exc) from exc
            self.parser.parseChunk(parent, text.strip("\n"))
            return
        state = None
        if record.declared is not None:
            state = record.declared.figure(value.name)
            if state is None:
                raise tag.error("live_figure", name=value.name.split(".", 1)[1],
                                       model=record.declared.model)
        shown = self.parser.md.anatomia_figures
        shown[value.name] = shown.get(value.name, 0) + 1
        self.parser.parseChunk(parent, figure_markdown(record.results, value.name, page_uri=record.page.uri,
                                                       copy=shown[value.name], live=state))
        module, name = value.name.split(".", 1)  # the data box's accessible name says whose data it holds
        for box in (box for el in parent[start:] for box in el.iter("details")):
            box.set("aria-label", f"{DATA_SUMMARY}: {record.results[module].figures[name]['caption']}")


CODE_TAGS = {"code", "pre", "kbd", "samp"}
BLOCK_TAGS = {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "figcaption"}
# Braces a placeholder's value shows ({{ "{{" }}) travel as these until the output check is done.
BRACES = str.maketrans("{}", "\ue002\ue003")
# A token in highlighted code, perhaps split by Pygments' markup; and raw HTML's code, elements whose
# content is not markup (below), tags and comments, text.
_CODE_TOKEN = re.compile(r"\ue000(?:<[^>]*>|[pt0-9])*\ue001")
_RAW_PARTS = re.compile(r"(?P<code><(?P<c>pre|code|kbd|samp)\b.*?</(?P=c)>)"
                        r"|(?P<element><(?P<e>script|style|textarea|title|svg|math|xmp|iframe|noembed|noframes)\b(?P<open>[^>]*)>"
                        r"(?P<body>.*?)(?P<close></(?P=e)\s*>))"
                        r"|(?P<tag><!--.*?-->|<[^>]*>)|[^<]+|<", re.DOTALL | re.IGNORECASE)
# The output contexts of HTML where a number's <span> cannot stand, by the element that makes them: a
# script's or a style's body (raw text: a value there is code), the text of a textarea or a title (the
# browser shows markup as written) and inline SVG or MathML (foreign content: the browser moves an HTML
# <span> out of the drawing). A value in the first two goes in as JSON or not at all, in the others as text.
# The legacy raw-text elements (xmp, iframe, noembed, noframes) show their content as written, entities
# too: a value there is text without '<' or '&'.
RAW_CONTEXTS = {"script": "script", "style": "style", "textarea": "rcdata", "title": "rcdata",
                "svg": "foreign", "math": "foreign", "xmp": "rawtext", "iframe": "rawtext",
                "noembed": "rawtext", "noframes": "rawtext"}
_RAW_TAG = re.compile(r"<(/?)(" + "|".join(RAW_CONTEXTS) + r")\b[^>]*?(/?)>", re.IGNORECASE)
# A token, or raw HTML Python-Markdown set aside (an inline tag such as <textarea>), in document order.
_TOKEN_OR_STASH = re.compile(TOKEN.pattern + "|" + util.HTML_PLACEHOLDER % r"(?P<stash>[0-9]+)")
# Attributes whose value is an address, and what a text placed in one keeps as written (RFC 3986's
# reserved characters and '%'); links.py checks where the address leads and refuses other schemes.
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "poster", "data", "cite", "xlink:href", "background"}
URL_SAFE = ":/?#[]@!$&'()*+,;=%~"
# Attributes whose value is code (event handlers), a style sheet or a document (an iframe's srcdoc): a
# value cannot go in as text.
_CODE_ATTRIBUTE = re.compile(r"on[a-z]+|style|srcdoc", re.IGNORECASE)


def attribute_at(tag: str, position: int) -> str | None:
    """The name of the attribute whose value holds `position` of the raw tag `tag`, if any."""
    m = re.search(r"([^\s\"'<>/=]+)\s*=\s*(?:\"[^\"]*|'[^']*|[^\s\"'=<>`]*)$", tag[:position])
    return m and m.group(1)


class PlaceholderTreeprocessor(Treeprocessor):
    """Fills the tokens of one conversion by where each stands, then checks the claims and the shown
    sums; before the table of contents (5): headings carry their numbers into the TOC and search."""

    def run(self, root: etree.Element) -> None:
        self.seen: dict[int, _Record] = {}  # the pages whose tokens it filled
        self.groups: list[list[Tag]] = []  # the tags of each block of text, for the shown sums
        self.stash_context: dict[int, str] = {}  # raw HTML set aside -> where its placeholder stands
        self.open_raw: list[str] = []  # inline raw elements (<textarea>, <svg> …) open where the walk is
        self.unwrapped: set[tuple[int, int]] = set()  # live claims marked on an element instead
        self.mark_claims(root)
        self.tree(root)
        stash = self.md.htmlStash.rawHtmlBlocks
        for i, block in enumerate(stash):
            if not isinstance(block, str):
                self.tree(block)
            elif "\ue000" in block:
                stash[i] = self.raw(block, self.stash_context.get(i, "prose"))
        for record in sorted(self.seen.values(), key=lambda r: r.id):
            placeholders.check_claims(record.tags, record.text, record.scope)
        for group in self.groups:
            placeholders.check_shown_sums(group)

    def mark_claims(self, root: etree.Element) -> None:
        """On a live page, a claim whose tags stand in different elements (it begins inside *emphasis*)
        cannot be wrapped in one span: its attributes go on the nearest element holding both."""
        parents = {child: el for el in root.iter() for child in el}
        found = []
        for el in root.iter():
            for m in TOKEN.finditer("".join(t or "" for t in (el.text, *(child.tail for child in el)))):
                record, tag = _tag(m)
                if record.live and tag.block in BLOCKS:
                    found.append(((record.id, tag.index), tag, el))
        found.sort(key=lambda item: item[0])
        for (start, claim, first), (end, close, last) in zip(found, found[1:], strict=False):
            if (claim.block, close.block) != BLOCKS or start[0] != end[0] or first is last:
                continue
            ancestors = [first]
            while ancestors[-1] in parents:
                ancestors.append(parents[ancestors[-1]])
            while last not in ancestors:
                last = parents[last]
            last.set("data-claim", "true")
            last.set("data-claim-expr", placeholders.claim_expression(claim))
            self.unwrapped |= {start, end}

    def text(self, m: re.Match, context: str, group: list | None, raw: bool = False,
             attribute: str | None = None, element_id: str | None = None) -> str:
        """A token's text in `context` ('tag': raw HTML's; 'script', 'style', 'rcdata', 'foreign': see
        RAW_CONTEXTS), recording where it stood and what it showed; a number's span is set aside as raw
        HTML, as a hand-written span would be. `attribute`: the attribute whose value holds it."""
        record, tag = _tag(m)
        if context in ("prose", "plain") and not raw and m.string[m.start() - 1:m.start()] == "\\":
            raise tag.error("escaped_tag", mark=tag.source[:2], snippet="\\" + tag.source)
        self.seen[record.id] = record
        plain = "plain" if context in ("tag", *RAW_CONTEXTS.values()) else context
        tag.contexts.append(plain)
        if tag.expr is not None:  # a claim's tags show nothing, wherever they stand
            refuse_context(tag, context, attribute)
        live = record.live and (record.id, tag.index) not in self.unwrapped
        shown = fill(tag, record.scope, context=plain, live=live)
        if plain != "code":   # a claim is recomputed on its span or on the element holding it
            check_live(record, tag, recomputed=shown.live or tag.block == "claim",
                       model_input=livemod.is_model_input(element_id, attribute))
        if attribute and attribute.lower() in URL_ATTRIBUTES and isinstance(shown.value, str):
            # a text in an address is data: a space, a quote or a letter beyond ASCII percent-encoded
            shown = replace(shown, text=urllib.parse.quote(shown.text, safe=URL_SAFE))
        if plain == "prose" and tag.expr is not None:
            tag.shown = tag.shown or shown
            if group is not None:
                group.append(tag)
        if context in ("code", "math"):
            return htmlmod.escape(shown.text, quote=False) if raw and context == "code" else shown.text
        if context == "tag":
            return htmlmod.escape(shown.text, quote=True).translate(BRACES)
        if context == "script":  # JSON, as numfmt.fmt_json wrote it: no "<" to end the script
            return shown.text if raw or tag.expr is None else self.md.htmlStash.store(shown.text)
        if context == "rawtext" and re.search(r"[<>&]", shown.text):   # shown as written, entities too
            raise tag.error("value_in_rawtext", source=tag.source, text=shown.text[:40])
        if context in ("rcdata", "foreign", "rawtext"):  # text; the tree's serializer escapes what is not raw
            escaped = htmlmod.escape(shown.text, quote=False) if raw and context != "rawtext" else shown.text
            return escaped.translate(BRACES)
        if context == "prose" and (raw or shown.span is not None or shown.markup is not None):
            markup = placeholders.span_html(shown).translate(BRACES)
            return markup if raw else self.md.htmlStash.store(markup)
        return shown.text.translate(BRACES)

    def tree(self, el: etree.Element, code: bool = False, math: bool = False, group: list | None = None):
        def fill_text(text: str, context: str, attribute: str | None = None) -> str:
            filled = _TOKEN_OR_STASH.sub(lambda m: self.follow_raw(m) if m["stash"] else self.text(
                m, self.raw_context(context), group, attribute=attribute, element_id=el.get("id")), text)
            return util.AtomicString(filled) if isinstance(text, util.AtomicString) else filled

        for key, value in el.attrib.items():
            if "\ue000" in value:
                el.set(key, fill_text(value, "plain", key))
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
            el.text = fill_text(el.text, context)
        for child in el:
            self.tree(child, code, math, group)
            if child.tail and "\ue000" in child.tail:
                child.tail = fill_text(child.tail, context)

    def follow_raw(self, m: re.Match) -> str:
        """Keep `open_raw` in step with the raw HTML set aside at this place of the text (kept as is)."""
        block = self.md.htmlStash.rawHtmlBlocks[int(m["stash"])]
        for t in _RAW_TAG.finditer(block if isinstance(block, str) else ""):
            name = t[2].lower()
            if t[1] and name in self.open_raw:
                del self.open_raw[len(self.open_raw) - 1 - self.open_raw[::-1].index(name):]
            elif not t[1] and not t[3]:
                self.open_raw.append(name)
        return m[0]

    def raw_context(self, context: str) -> str:
        """`context`, or the one an inline raw element open at this place makes (RAW_CONTEXTS)."""
        if context in ("prose", "plain") and self.open_raw:
            return RAW_CONTEXTS[self.open_raw[-1]]
        return context

    def raw(self, text: str, context: str) -> str:
        """Tokens in raw HTML set aside: code keeps the tag as written, tags and comments get plain text,
        scripts, textareas, SVG … what RAW_CONTEXTS says, the text between them a number's span."""
        group: list = []
        self.groups.append(group)

        def code(m: re.Match) -> str:  # a token perhaps split by Pygments' markup
            t = TOKEN.fullmatch(re.sub(r"<[^>]*>", "", m.group(0)))
            return self.text(t, "code", None, raw=True) if t else m.group(0)

        def in_tag(tag: str) -> str:
            return TOKEN.sub(lambda m: self.text(m, "tag", group, raw=True,
                                                 attribute=attribute_at(m.string, m.start()),
                                                 element_id=livemod.element_id(tag)), tag)

        def part(p: re.Match) -> str:
            if p["code"]:
                return _CODE_TOKEN.sub(code, p[0])
            if p["tag"]:
                return in_tag(p[0])
            if not p["element"]:
                return TOKEN.sub(lambda m: self.text(m, "prose", group, raw=True), p[0])
            kind = RAW_CONTEXTS[p["e"].lower()]
            body = p["body"]
            if kind == "foreign":  # SVG or MathML: its tags hold attributes, the text between them text
                body = re.sub(r"<[^>]*>|[^<]+", lambda b: in_tag(b[0]) if b[0].startswith("<") else TOKEN.sub(
                    lambda m: self.text(m, kind, group, raw=True), b[0]), body)
            else:
                body = TOKEN.sub(lambda m: self.text(m, kind, group, raw=True), body)
            return in_tag(f"<{p['e']}{p['open']}>") + body + p["close"]

        if context == "code":  # the content of a code span, already escaped
            return _CODE_TOKEN.sub(code, text)
        return _RAW_PARTS.sub(part, text)


def refuse_context(tag: Tag, context: str, attribute: str | None) -> None:
    """Stop where a value cannot go in as text: a style sheet, an event handler's code, a script unless
    it is shown as JSON (`| json`, which writes no "<" that could end the script)."""
    if context == "style" or (attribute and _CODE_ATTRIBUTE.fullmatch(attribute)):
        where = "a <style> element" if context == "style" else f"the attribute {attribute}"
        # the message's field `where` is not the error's place: the text is placed by hand
        raise TemplateError(f"{tag.place}: " + M.text("value_in_code", source=tag.source, where=where))
    if context == "script":
        expr, bar, filt = tag.expr.rpartition("|")
        if not bar or filt.strip() != "json":
            raise tag.error("script_needs_json", source=tag.source,
                                   fix="{{ " + (expr if bar else tag.expr).strip() + " | json }}")


_HIDDEN = re.compile(r"<(pre|code|script|style|math|kbd|samp)\b.*?</\1>|<!--.*?-->"
                     r"|<(span|div) class=\"arithmatex\">.*?</\2>", re.DOTALL)
_MARKS = re.compile(r"\{\{|\{%|\}\}|%\}")
ENGINE_MARKUP = re.compile(r"&lt;span class=(?:&quot;|\")num")
_ENGINE_SPAN = re.compile(r'<span class="num"')
_MARKUP_FREE = re.compile(r"<(?P<e>" + "|".join(RAW_CONTEXTS) + r")\b[^>]*>(?P<body>.*?)</(?P=e)\s*>",
                          re.DOTALL | re.IGNORECASE)


def check_theme_text(html: str, where: str) -> None:   # tags, nav titles: the theme shows them as written
    if m := _MARKS.search(_HIDDEN.sub(" ", html)):
        shown = htmlmod.unescape(re.match(r'[^<"]*', m.string[m.start():m.start() + 200])[0]).strip()[:60]
        raise TemplateError(f"{where}: " + M.text("outside_body", mark=m[0], snippet=shown))


# What the final scan of a page reads: its tags (script and style bodies and comments hold no tags) and
# their attributes.
_NOT_TAGS = re.compile(r"(<(script|style)\b[^>]*>).*?</\2\s*>|<!--.*?-->", re.DOTALL | re.IGNORECASE)
_START_TAG = re.compile(r"<[a-zA-Z][^\s/>]*((?:\s*[^\s\"'>/=]+"
                        r"(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?|\s*/)*)\s*>")
_ATTRIBUTE = re.compile(r"([^\s\"'>/=]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?")
_RUNS_CODE = re.compile(r"(?:java|vb)script:", re.IGNORECASE)


def check_active_content(html: str, source: str, where: str) -> None:
    """The final scan of a page: an event-handler attribute (onclick=…) or a javascript: URL that the
    page's source does not write came from a value or a template, and would run code; stop naming it."""
    for tag in _START_TAG.finditer(_NOT_TAGS.sub(lambda m: m[1] or " ", html)):
        for attribute in _ATTRIBUTE.finditer(tag[1]):
            name, value = attribute[1], htmlmod.unescape((attribute[2] or "").strip("\"'"))
            # a browser ignores ASCII whitespace and control characters in a URL: "java\tscript:"
            url = re.sub(r"[\x00-\x20]", "", value)
            handler = name.lower().startswith("on")
            if not (handler or _RUNS_CODE.match(url)):
                continue
            # a handler written in raw HTML; a javascript: link written in Markdown is the link check's
            named = re.search(rf"\b{re.escape(name)}\s*=", source, re.IGNORECASE)
            written = value in source and (named or not handler)
            if not written:
                raise TemplateError(f"{where}: " + M.text("active_content", attribute=attribute[0][:100]))


class OutputCheckPostprocessor(Postprocessor):
    """The safety net: no unfilled token, `{{`, `{%`, `}}`, `%}` or the engine's span shown as text
    reaches a reader outside code and math."""

    def run(self, text: str) -> str:
        plain = re.sub(r"<[^>]*>", "", text) if "\ue000" in text else ""
        t = TOKEN.search(plain)
        if t:
            tag, place = _tag(t)[1], " ".join(plain[max(0, t.start() - 40):t.start()].split())
            raise tag.error("unresolved", source=(tag.expr or tag.source).strip(),
                                   place=f"after '{place[-30:]}'")
        for element in _MARKUP_FREE.finditer(text):  # the net under RAW_CONTEXTS
            if _ENGINE_SPAN.search(element["body"]):
                snippet = " ".join(re.sub(r"<[^>]*>", "", element["body"]).split())[:60]
                raise TemplateError(f"{self.where('{{')}: " + M.text(
                    "markup_in_element", element=element["e"].lower(), snippet=snippet))
        visible = _HIDDEN.sub(" ", text)
        m = ENGINE_MARKUP.search(visible) or _MARKS.search(visible)
        if m:
            snippet = re.sub(r"<[^>]*>", "", visible[m.start():m.start() + 120])
            snippet = htmlmod.unescape(snippet).split("\n")[0][:60]
            if m.re is ENGINE_MARKUP:
                message, mark = M.text("escaped_markup", snippet=snippet), 'class="num'
            else:
                closing = {"{{": "}}", "{%": "%}", "}}": "{{", "%}": "{%"}[m[0]]
                message, mark = M.text("stray", mark=m[0], closing=closing, snippet=snippet.strip()), m[0]
            raise TemplateError(f"{self.where(mark)}: {message}")
        return text.translate(str.maketrans("\ue002\ue003", "{}"))

    def where(self, mark: str) -> str:
        """file:line of the first `mark` in the page's text outside every tag and code span."""
        record = self.md.anatomia_record
        if record is None:
            return "the page:1"
        taken = [(t.start, t.start + len(t.source)) for t in record.tags]
        taken += [(c.start(), c.end()) for c in re.finditer(r"(`+).+?\1", record.text, re.DOTALL)]
        found = (m.start() for m in re.finditer(re.escape(mark), record.text)
                 if not any(a <= m.start() < b for a, b in taken))
        line = record.first_line + record.text.count("\n", 0, next(found, 0))
        return f"{record.page.where}:{line}"


class PlaceholderExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        # Before every other preprocessor (normalize_whitespace is 30, snippets 32).
        md.preprocessors.register(PlaceholderPreprocessor(md), "anatomia_placeholders", 1000)
        # After indented code (80) and block math (79.9), before tables (75) and paragraphs.
        md.parser.blockprocessors.register(FigureBlockProcessor(md.parser), "anatomia_figures", 76)
        # After inline patterns (20), attribute lists (8) and abbreviations (7), before the TOC (5).
        md.treeprocessors.register(PlaceholderTreeprocessor(md), "anatomia_placeholders", 6)
        # After raw HTML is put back (30) and math is typeset (5).
        md.postprocessors.register(OutputCheckPostprocessor(md), "anatomia_output_check", 1)


def makeExtension(**kwargs) -> PlaceholderExtension:  # noqa: N802 - Python-Markdown's entry point
    return PlaceholderExtension(**kwargs)
