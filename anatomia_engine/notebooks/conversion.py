"""mkdocs-jupyter's conversion of the notebook page, kept in the site's checked store.

mkdocs-jupyter converts the executed copy to HTML (nbconvert, ~1,5 s) on every build. Its own
`cache` option keys an entry by the notebook and its options only (neither its own version nor
nbconvert's) and reads the entry unchecked (danielfrg/mkdocs-jupyter#161 asks for caching; the
option that answered it has no checks), so the site keeps the conversion in its own checked
store instead, keyed by all that produced it. mkdocs-jupyter converts inside the page's
`render`, which its on_pre_page sets on the page; `keep_conversion` wraps that one method of
that one page (tests/site/test_notebooks_cache.py).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import sys
from importlib import metadata

from anatomia_engine import messages as M
from anatomia_engine import store

log = logging.getLogger("anatomia_engine.notebooks")

# mkdocs-jupyter imports nbconvert's command-line application, whose class body lists the export
# formats for its help text: since nbconvert 6 it creates every exporter to ask whether it is
# enabled, and searches every installed distribution's entry points twice for each
# (jupyter/nbconvert#1439): 0,25 s of CPU in every build, for a help text no build shows. This
# variable, nbconvert's answer to that issue, lists the formats by name alone. It has to be set
# before mkdocs-jupyter's plugin is imported, which happens while MkDocs loads the configuration,
# before any hook runs: mkdocs.yml lists `anatomia` before it. A value the environment gives is kept.
os.environ.setdefault("NBCONVERT_DISABLE_CONFIG_EXPORTERS", "1")

# The distribution whose code, and whose requirements' code, converts.
CONVERTER = "mkdocs-jupyter"


@functools.lru_cache(maxsize=1)
def converter_versions() -> tuple[str, ...]:
    """'name==version' of mkdocs-jupyter and of everything it requires, transitively.

    nbconvert, mistune, Pygments, Markdown, …: an upgrade of any of them may change the HTML.
    Worked out once per process: the code that converts in it is the code imported at its start.
    """
    seen: dict[str, str] = {}
    todo = [CONVERTER]
    while todo:
        # Requirements name distributions loosely (`typing_extensions`, `Jinja2`): PEP 503 form.
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        # Parsed once: name, version, requirements.
        try:
            about = metadata.distribution(name).metadata
        except metadata.PackageNotFoundError:
            # A requirement for another platform.
            continue
        seen[name] = about["Version"]
        for requirement in about.get_all("Requires-Dist") or []:
            # An extra's requirements are not installed for it.
            if "extra ==" not in requirement:
                todo.append(re.match(r"[A-Za-z0-9._-]+", requirement).group())
    return tuple(f"{name}=={seen[name]}" for name in sorted(seen))


def conversion_key(executed: bytes, src_uri: str, options: dict) -> str:
    """The key of one notebook page's conversion.

    The executed copy mkdocs-jupyter reads, the page it becomes, mkdocs-jupyter's options, the
    converting libraries' versions and this module's code.
    """
    settings = json.dumps(options, sort_keys=True, default=repr)
    code = store.code_key(sys.modules[__name__])
    return store.key("conversion", src_uri, executed, settings, *converter_versions(), code)


def _toc_tokens(toc) -> list[dict]:
    """A page's table of contents as the tokens `get_toc` makes it from (the inverse of get_toc)."""
    tokens = []
    for link in toc:
        tokens.append({
            "level": link.level,
            "id": link.id,
            "name": link.title,
            "children": _toc_tokens(link.children),
        })
    return tokens


def _fill_from_store(page, entries: store.Store, name: str, where: str) -> bool:
    """Fill `page` from the stored conversion `name`; whether it was stored and sound."""
    from mkdocs.structure.toc import get_toc

    body = entries.get(name, where)
    if body is None:
        return False
    try:
        entry = json.loads(body)
        content = entry["content"]
        toc = get_toc(entry["toc"])
        title = entry["title"]
        # A sound entry of another layout would fill the page with the wrong kind of thing.
        if not isinstance(content, str) or not isinstance(title, (str, type(None))):
            raise TypeError("content or title of the wrong type")
    except (ValueError, KeyError, TypeError) as exc:
        log.warning(M.text("stored_conversion", where=where, problem=exc))
        return False
    page.content = content
    page.toc = toc
    if title is not None:
        page.title = title
    return True


def keep_conversion(page, entries: store.Store, name: str, where: str) -> None:
    """Make `page.render` (mkdocs-jupyter's conversion) fill the page from the entry `name` when
    it is stored and sound, and convert and store it otherwise."""
    # mkdocs-jupyter's, bound to this page
    convert = page.render

    def render(config, files):
        if _fill_from_store(page, entries, name, where):
            return
        # The title the conversion sets (from the notebook's first heading, or none): kept
        # apart from the one the page had, so that the entry holds the conversion's alone.
        before = page.__dict__.pop("title", None)
        convert(config, files)
        title = page.__dict__.get("title")
        if title is None and before is not None:
            page.title = before
        entry = {"content": page.content, "toc": _toc_tokens(page.toc), "title": title}
        entries.put(name, json.dumps(entry, ensure_ascii=False).encode("utf-8"))

    page.render = render
