"""Differential builds (`mkdocs serve --dirty`): the pages a save renders again, and what the rest keep.

MkDocs' `--dirty` renders a page only when `File.is_modified()`: its output is missing or older than its
source. Alone that leaves pages stale (a changed value, title or nav shows only on the edited page), so the
plugin decides instead, from the inputs of each page:

- a page is rendered again when its key changed: its source and the results of the figures_src modules it
  names (a changed value rebuilds every page that uses it, though its file did not change);
- every page is rendered again when the site's key changed: mkdocs.yml, the list of source files, and the
  front matter and first heading of every page (titles and dates go into the navigation of every page);
- the pages that list others (the blog, the tags index) and the pages they list are rendered together;
- a page showing other pages' reading times (`data-readtime` markers, route.py) is rendered with them;
  if the tags plugin exports its tags (`export`, a file made from the pages it read), the pages with tags
  are rendered in every build.

A page to render again is marked by setting its output's modification time to 0 (its last good content
stays served until the new one is written); a page not rendered keeps its output, and the plugin keeps
its title, front matter, links and search sections from the build that rendered it. A build that is not
`--dirty`, and the first one, render every page.
"""

from __future__ import annotations

import functools
import os
import pickle
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from anatomia_engine import store

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)

# Markdown h1s (in a notebook: its Markdown and comments)
_HEADING = re.compile(r"^# .*$", re.M)

# The tags plugin's index marker
_LISTING = re.compile(r"<!--\s*material/tags")

# A page's reading time shown elsewhere (route.py)
_READTIME = re.compile(r'data-readtime="([^"]+)"')

# A page with tags, which the tags index lists
_TAGS = re.compile(r"(?m)^tags:")


def results_digest(result) -> str:
    """The key of one module's result as pages see it: its values, their descriptions and its
    figures."""
    seen = (result.values, result.meta, result.figures, result.contents)
    return store.key(pickle.dumps(seen, protocol=4))


# A run of word characters: a module's name is mentioned where it is one whole run
_WORD = re.compile(r"\w+")


# A save under serve changes one page: the others' words are those of the last build. Keyed by
# the text itself, so nothing kept can be out of date. A notebook page's text holds its executed
# copy, images included: only about three builds' texts are kept (each build asks for its nine
# pages and the titles that hold a placeholder).
@functools.lru_cache(maxsize=32)
def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text))


def _mentioned(text: str, digests: Mapping[str, str]) -> list[str]:
    """The digests of the modules whose names `text` mentions (a placeholder names its module, or the
    front matter's `computed:` lists it): a superset of those whose values the page shows."""
    # the module's name as a word: `masking` names masking, not `masking_extra` (the text is read
    # once, not once per module)
    words = _words(text)
    found = []
    for name, digest in sorted(digests.items()):
        if name in words:
            found.append(f"{name}={digest}")
    return found


def _title_part(text: str) -> str:
    """What of a page goes into the navigation of the others: its front matter and its first heading."""
    front = _FRONT_MATTER.match(text)
    parts = _HEADING.findall(text)
    if front:
        parts.insert(0, front.group(0))
    else:
        parts.insert(0, "")
    return "\n".join(parts)


@dataclass
class Kept:
    """What the build that rendered a page knew of it, for the builds that do not render it again."""

    title: str | None
    meta: dict
    url: str
    # links.Page: its links and ids, for the link check of every build
    links: object
    # its search documents (None: no search)
    sections: list | None


@dataclass
class Differential:
    """The state of differential builds, kept by the plugin between the builds of one `mkdocs serve`."""

    site_key: str | None = None
    # src_uri -> key of the last good render
    keys: dict[str, str] = field(default_factory=dict)
    # this build's keys, kept when it succeeds
    pending: dict[str, str] = field(default_factory=dict)
    # dest_uri of every file of the last good build
    outputs: set[str] = field(default_factory=set)
    # src_uri -> what a skipped page needs
    kept: dict[str, Kept] = field(default_factory=dict)
    # src_uris this build renders
    rendered: set[str] = field(default_factory=set)

    def plan(self, pages: Iterable, sources: Iterable[str], config_file: str | None,
             texts: Mapping[str, str], digests: Mapping[str, str], listing: Iterable[str],
             tags_exported: bool = False) -> set[str]:
        """The src_uris of `pages` (MkDocs Files, with their final addresses) to render again;
        marks their outputs as out of date. `texts`: src_uri -> what the page is made from (its
        source, and for a notebook its executed copy)."""
        pages = list(pages)
        site_key = self._site_key(pages, sources, config_file, texts, digests)
        self.pending = {}
        for file in pages:
            text = texts[file.src_uri]
            self.pending[file.src_uri] = store.key(text, *_mentioned(text, digests))
        # the navigation of every page changed: nothing rendered before is kept
        if site_key != self.site_key:
            self.site_key = site_key
            self.keys = {}
            self.kept = {}
        again = set()
        for uri, key in self.pending.items():
            if self.keys.get(uri) != key or uri not in self.kept:
                again.add(uri)
        folders = tuple(listing)
        group = set()
        for file in pages:
            if self._lists_or_is_listed(file.src_uri, texts[file.src_uri], folders):
                group.add(file.src_uri)
        if again & group:
            again |= group
        # a page that shows other pages' reading times (route.py) is rendered with any it names
        for file in pages:
            named = set(_READTIME.findall(texts[file.src_uri]))
            if named & again:
                again.add(file.src_uri)
        # the tags plugin writes its export from the pages it read in this build
        if tags_exported:
            for file in pages:
                if _TAGS.search(_title_part(texts[file.src_uri])):
                    again.add(file.src_uri)
        for file in pages:
            # File.is_modified(): older than its source
            if file.src_uri in again and os.path.isfile(file.abs_dest_path):
                os.utime(file.abs_dest_path, ns=(0, 0))
        self.rendered = again
        return again

    @staticmethod
    def _site_key(pages: list, sources: Iterable[str], config_file: str | None,
                  texts: Mapping[str, str], digests: Mapping[str, str]) -> str:
        """What the navigation of every page is made from: mkdocs.yml, the list of source files,
        each page's front matter and first heading (with the modules a title's placeholder names)."""
        config = b""
        if config_file:
            config = Path(config_file).read_bytes()
        site = [config, "\n".join(sorted(sources))]
        for file in pages:
            part = _title_part(texts[file.src_uri])
            site += [file.src_uri, part]
            if "{{" in part:
                site += _mentioned(part, digests)
        return store.key(*site)

    @staticmethod
    def _lists_or_is_listed(uri: str, text: str, folders: tuple[str, ...]) -> bool:
        """A page of the blog's folders, the tags index, or a page with tags (which the index lists)."""
        if folders and uri.startswith(folders):
            return True
        return bool(_LISTING.search(text) or _TAGS.search(_title_part(text)))

    def restore(self, pages: Iterable) -> None:
        """Give the pages this build does not render their title and front matter (their navigation
        entries in the pages it renders show them, as a full build would)."""
        for page in pages:
            kept = self.kept.get(page.file.src_uri)
            if page.file.src_uri not in self.rendered and kept is not None:
                page.meta = dict(kept.meta)
                # a render may replace the nav's title (mkdocs-jupyter: the h1)
                page.title = kept.title

    def done(self, site_dir: Path, outputs: set[str]) -> None:
        """After a good build: keep its keys; remove what the previous build wrote and this one did not
        (a deleted page, a figure no module draws any more)."""
        for dest in sorted(self.outputs - outputs):
            path = site_dir / dest
            if path.is_file():
                path.unlink()
            for folder in path.parents:   # and the folders it leaves empty, as a clean build has none
                if folder == site_dir or not folder.is_dir() or any(folder.iterdir()):
                    break
                folder.rmdir()
        self.outputs = outputs
        self.keys.update(self.pending)
        for uri in set(self.keys) - set(self.pending):
            del self.keys[uri]
            self.kept.pop(uri, None)
