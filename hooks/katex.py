"""MkDocs hook for the math: names the page being typeset, and typesets the notebook's formulas.

The Markdown pages get their math typeset by the `anatomia_engine.katex` Markdown extension
(mkdocs.yml, markdown_extensions) into MathML, which the browser lays out itself: no KaTeX
script, CSS or fonts ship with the site. This hook
- names the page being rendered, so a formula KaTeX cannot typeset stops the build with
  `docs/page.md:LINE` and the formula;
- typesets the formulas of pages that do not go through Python-Markdown (the notebook page,
  whose cells mkdocs-jupyter renders with nbconvert into arithmatex-style spans);
- after the build, drops the stored formulas of pages that no longer exist.
"""

from __future__ import annotations

from anatomia_engine import katex


def on_page_markdown(markdown, page, config, files):
    katex.set_current_page(f"docs/{page.file.src_uri}", page.file.content_string)
    return markdown


def on_page_content(html, page, config, files):
    try:
        return katex.render_html(html, f"docs/{page.file.src_uri}")
    finally:
        katex.set_current_page(None)


def on_post_build(config):
    """Keep the stored formulas of this build's pages (.cache/katex/), drop the others."""
    stored = katex.renderer().store
    if stored is not None:
        stored.prune()
