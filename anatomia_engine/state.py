"""The state of one build: owned by the plugin, handed to the Markdown
extension and the math renderer.

One object holds what the steps of a build share: the pages whose
placeholders are tokens (the Markdown extension resolves them), the
math renderer (with its store), and the stores of the pages' derived
HTML, their search documents and the notebooks' conversions. The
plugin makes a new one for every build (on_config, which MkDocs runs
again for each build of `serve`); nothing of one build's pages
reaches the next through a module's globals.

Without MkDocs, `BuildState()` is a state without stores: the Markdown
extension and the renderer work the same, and keep nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from anatomia_engine import store
from anatomia_engine.markdown import PageRegistry, PlaceholderExtension
from anatomia_engine.mathml import MathRenderer


@dataclass
class BuildState:
    """What the steps of one build share (see the module's docstring)."""

    # the pages registered by on_page_markdown, by number
    pages: PageRegistry = field(default_factory=PageRegistry)
    # Temml, and the store of its pages' formulas
    math: MathRenderer = field(default_factory=MathRenderer)
    # a page's derived HTML and parses: notebook HTML in Material's
    # form, links, search documents; the formulas' MathML too
    rendered: store.Store | None = None
    # the search index's entries
    search: store.Store | None = None
    # the notebooks' HTML as mkdocs-jupyter converted it
    conversions: store.Store | None = None
    # the theme's compiled templates (templates.py)
    templates: store.Store | None = None

    @classmethod
    def for_project(cls, root: Path) -> BuildState:
        """A new build's state, its stores under the project's cache folder."""
        rendered = store.Store(store.folder(root, "pages"))
        return cls(
            pages=PageRegistry(),
            math=MathRenderer(rendered),
            rendered=rendered,
            search=store.Store(store.folder(root, "search"), ".json"),
            conversions=store.Store(store.folder(root, "notebooks"), ".html"),
            templates=store.Store(store.folder(root, "templates")),
        )

    def extension(self) -> PlaceholderExtension:
        """The Markdown extension of this build's pages, typesetting
        math with its renderer."""
        return PlaceholderExtension(self.pages, self.math)

    def prune(self, every_notebook: bool) -> None:
        """After a good build: drop the entries it did not use.

        The notebooks' conversions and the compiled templates only when
        `every_notebook` page was rendered: a --dirty build renders only
        some pages, with some of the templates.
        """
        kept = [self.rendered, self.search]
        if every_notebook:
            kept.append(self.conversions)
            kept.append(self.templates)
        for stored in kept:
            if stored is not None:
                stored.prune()
