"""The learner's route through the site: footer order, blog posts in it, reading times.

The MkDocs plugin `anatomia-route` (listed in mkdocs.yml after `blog`, whose posts it orders).
Three jobs, each on its own MkDocs event:

- on_nav: the footer's "previous / next" follow the route. MkDocs links the pages of `nav` in
  order; Material's blog plugin links its posts only to each other (by date) and leaves the
  first post without "previous" and the last without "next" (upstream: squidfunk/mkdocs-material
  #2357 and #8117 ask for per-page footer links; neither option exists). Here the posts, oldest
  first, are spliced into the chain just before the blog's index page, so that the last route
  step before the posts leads straight to the first post, and the index (the list of all posts)
  follows the last one.
- on_nav, too: the blog index lists its posts in the route's order, oldest first. Material sorts
  them newest first and offers only `pin` to change that, whose marker is a <span> directly in a
  <ul> (an axe "list" violation in Material 9.8's partials/post.html); the index's own list of
  posts (the view's `posts`, which it renders after on_nav) is sorted here instead.
- on_page_content: a post's reading time counts what a reader reads by default. Material counts
  every word of the HTML, including the collapsed "Dla dociekliwych" blocks, the data tables
  under each figure and the MathML of every formula; a post then claims 27 minutes for nine
  minutes of text. The post's `readtime` (a documented front-matter key of the blog plugin) is
  set before the blog plugin would compute it, with Material's own formula on the visible text.
- on_post_page: the home page shows the reading time of every step of the route. A step is an
  element `<span data-readtime="path/of/page.md"></span>`; it gets the same number the post's
  header shows, computed from the page's final content (all pages are rendered before any is
  written). An unknown page stops the build. Under `make serve` (`--dirty`) a page that is not
  rendered again keeps the reading time of the build that rendered it: the plugin lives through
  the builds of one `serve` (it has `on_startup`), and the anatomia plugin renders a page with
  markers again whenever a page it names is rendered again (incremental.py).
"""

import math
import re

import lxml.html
from material.plugins.blog.structure import Post
from mkdocs.config import base
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.pages import Page

from anatomia_engine.errors import EngineError

# Material's blog plugin default (post_readtime_words_per_minute)
WORDS_PER_MINUTE = 265

# Tags whose text a reader does not read as running text: collapsed blocks (data tables under
# figures, "Dla dociekliwych", self-check answers), formulas, scripts and drawings
HIDDEN = {"details", "math", "script", "style", "svg", "object", "template"}

MARKER = re.compile(r'<span data-readtime="([^"]+)"></span>')


# -------------------------------------------------------------------------------------------------
# Reading time
# -------------------------------------------------------------------------------------------------

class _VisibleText:
    """The text outside HIDDEN elements of an HTML fragment, run by run, and the images shown."""

    def __init__(self, html: str):
        self.text: list[str] = []
        self.images = 0
        fragment = lxml.html.fragment_fromstring(html, create_parent="div")
        self._read(fragment)

    def _read(self, element) -> None:
        if element.text:
            self.text.append(element.text)
        for child in element:
            # a comment's tag is a function: its text is not shown
            shown = isinstance(child.tag, str)
            shown = shown and child.tag not in HIDDEN
            if shown and child.tag == "img":
                self.images += 1
            if shown:
                self._read(child)
            # the text after an element (or a comment) is its parent's
            if child.tail:
                self.text.append(child.tail)


def reading_minutes(html: str) -> int:
    """Minutes to read the visible text of `html`, by Material's blog formula.

    Material (material/plugins/blog/readtime): words / words-per-minute, plus 12 s for the first
    image, 11 s for the second, … down to 3 s per image; rounded up to whole minutes.
    """
    parser = _VisibleText(html)
    words = len([w for w in re.split(r"\W+", " ".join(parser.text)) if w])
    seconds = math.ceil(words / WORDS_PER_MINUTE * 60)
    delta = 12
    for _ in range(parser.images):
        seconds += delta
        if delta > 3:
            delta -= 1
    return max(1, math.ceil(seconds / 60))


# -------------------------------------------------------------------------------------------------
# The plugin
# -------------------------------------------------------------------------------------------------

class RouteConfig(base.Config):
    """No options: the route is the nav of mkdocs.yml, with the blog's posts in it."""


def _created(post: Post):
    # a post's place on the route: the date it was written
    return post.config.date.created


def _link(chain: list) -> None:
    """Each page of `chain` leads to the one before and the one after it (the footer's links)."""
    previous_pages = [None, *chain[:-1]]
    next_pages = [*chain[1:], None]
    for previous, page, following in zip(previous_pages, chain, next_pages, strict=True):
        page.previous_page = previous
        page.next_page = following


class RoutePlugin(BasePlugin[RouteConfig]):
    """The footer's route, the blog index's order and reading times (see the module's docstring)."""

    def __init__(self):
        # src_uri -> reading minutes of every page, from the build that last rendered it
        self.minutes: dict[str, int] = {}
        self.files = None

    # Defined so that MkDocs keeps this plugin through the builds of one `serve`: a page that a
    # `--dirty` build does not render again keeps its reading time in `self.minutes`
    def on_startup(self, *, command, dirty):
        pass

    # Keep the files: on_post_page looks pages up by their source path
    def on_files(self, files, *, config):
        self.files = files
        return files

    # Splice the blog posts, oldest first, into the footer chain before the blog's index page.
    # After the blog plugin's on_nav (-50), which attaches its posts.
    @event_priority(-100)
    def on_nav(self, nav, *, config, files):
        chain = [page for page in nav.pages if isinstance(page, Page)]
        posts = [file.page for file in files.documentation_pages() if isinstance(file.page, Post)]
        posts.sort(key=_created)
        if posts:
            index = self._blog_index(chain, posts[0].parent)
            chain[index:index] = posts
            # the index's own list, which Material renders after on_nav (see the module's docstring)
            posts[0].parent.posts.sort(key=_created)
        _link(chain)
        return nav

    @staticmethod
    def _blog_index(chain: list, index_page) -> int:
        """The place of the blog's index page in the route; the build stops if it has none."""
        for number, page in enumerate(chain):
            if page is index_page:
                return number
        raise EngineError("route_no_blog_index")

    # A post shows the reading time of its visible text (see the module's docstring).
    # Before the blog plugin's on_page_content (0), which would compute its own.
    @event_priority(50)
    def _post_reading_time(self, html, *, page, config, files):
        if isinstance(page, Post):
            page.config.readtime = reading_minutes(html)
        return html

    # Keep every rendered page's reading time for the markers of on_post_page.
    # After every other plugin: the page's content as it is published.
    @event_priority(-100)
    def _count_minutes(self, html, *, page, config, files):
        self.minutes[page.file.src_uri] = reading_minutes(html)
        return html

    # One event, two moments of it (MkDocs' documented CombinedEvent)
    on_page_content = CombinedEvent(_post_reading_time, _count_minutes)

    # Fill the page's reading-time markers (see the module's docstring). Before the anatomia
    # plugin reads the final page for search and links (plugin.ORDER checks it).
    @event_priority(10)
    def on_post_page(self, output, *, page, config):

        def minutes(match: re.Match) -> str:
            path = match.group(1)
            return f'<span data-readtime="{path}">{self._minutes_of(path, page)}</span>'

        return MARKER.sub(minutes, output)

    def _minutes_of(self, path: str, page) -> int:
        """The reading minutes of the page at `path` (under docs/), for a marker on `page`."""
        file = None
        if self.files is not None:
            file = self.files.get_file_from_path(path)
        if file is None or file.src_uri not in self.minutes:
            raise EngineError("readtime_unknown_page", where=page.file.src_path, path=path)
        return self.minutes[file.src_uri]
