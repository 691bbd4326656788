"""Checks of a page as MkDocs wrote it (the plugin's on_post_page).

The Markdown extension checks what it converted (markdown.py's output
check); these read the whole final page, with what the theme added:
the titles and tags it shows as written, and the attributes of every
tag, where a value or a template could have put code.
"""

from __future__ import annotations

import html as htmlmod
import re

from anatomia_engine.errors import EngineError
from anatomia_engine.markdown import HIDDEN, MARKS

# What the final scan of a page reads: its tags (script and style bodies and comments hold no
# tags) and their attributes.
_NOT_TAGS = re.compile(
    r"(<(script|style)\b[^>]*>).*?</\2\s*>|<!--.*?-->",
    re.DOTALL | re.IGNORECASE,
)
_START_TAG = re.compile(
    r"<[a-zA-Z][^\s/>]*((?:\s*[^\s\"'>/=]+"
    r"(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?|\s*/)*)\s*>"
)
_ATTRIBUTE = re.compile(
    r"([^\s\"'>/=]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?"
)
_RUNS_CODE = re.compile(r"(?:java|vb)script:", re.IGNORECASE)

# ASCII whitespace and control characters, which a browser drops
# from a URL: "java\tscript:" runs as "javascript:"
_URL_IGNORED = re.compile(r"[\x00-\x20]")

# The text that follows a mark, up to the next tag or quote
_FOLLOWING = re.compile(r'[^<"]*')


def check_theme_text(html: str, where: str) -> None:
    """Tags and navigation titles: the theme shows them as written,
    so no placeholder may be in them."""
    m = MARKS.search(HIDDEN.sub(" ", html))
    if m is None:
        return
    following = m.string[m.start():m.start() + 200]
    text = _FOLLOWING.match(following)[0]
    shown = htmlmod.unescape(text).strip()[:60]
    raise EngineError("outside_body", where=where, mark=m[0], snippet=shown)


def _tags_only(m: re.Match) -> str:
    # a script's or style's start tag stays (its attributes count); its body and comments go
    return m[1] or " "


def check_active_content(html: str, source: str, where: str) -> None:
    """The final scan of a page: an event-handler attribute (onclick=…)
    or a javascript: URL that the page's source does not write came
    from a value or a template, and would run code."""
    tags = _NOT_TAGS.sub(_tags_only, html)
    for tag in _START_TAG.finditer(tags):
        for attribute in _ATTRIBUTE.finditer(tag[1]):
            _check_attribute(attribute, source, where)


def _check_attribute(attribute: re.Match, source: str, where: str) -> None:
    name = attribute[1]
    quoted = attribute[2] or ""
    value = htmlmod.unescape(quoted.strip("\"'"))
    url = _URL_IGNORED.sub("", value)
    handler = name.lower().startswith("on")
    if not (handler or _RUNS_CODE.match(url)):
        return
    # a handler written in raw HTML; a javascript: link written in
    # Markdown is the link check's
    pattern = rf"\b{re.escape(name)}\s*="
    named = re.search(pattern, source, re.IGNORECASE)
    written = value in source and (named or not handler)
    if not written:
        raise EngineError("active_content", where=where,
                          attribute=attribute[0][:100])
