"""MkDocs hook for the math: KaTeX's CSS and fonts as generated files, and the notebook's formulas.

The Markdown pages get their math typeset by the `anatomia_engine.katex` Markdown extension
(mkdocs.yml, markdown_extensions). This hook
- adds `assets/katex/katex.min.css` and its WOFF2 fonts from the npm package installed at set-up
  (no CDN, no copies in git); mkdocs.yml links the CSS in extra_css. No KaTeX script ships.
- names the page being rendered, so a formula KaTeX cannot typeset stops the build with
  `docs/page.md:LINE` and the formula;
- typesets the formulas of pages that do not go through Python-Markdown (the notebook page,
  whose cells mkdocs-jupyter renders with nbconvert into arithmatex-style spans).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from anatomia_engine import katex

DIST = katex.KATEX_DIST
TARGET = "assets/katex"


def katex_files() -> list[tuple[str, Path]]:
    """(site path, source path) pairs of everything the pages load for math."""
    if not (DIST / "katex.min.css").exists():
        raise PluginError(f"KaTeX is not installed ({DIST} is missing); run 'make docs', which runs npm ci")
    pairs = [(f"{TARGET}/katex.min.css", DIST / "katex.min.css")]
    pairs += [(f"{TARGET}/fonts/{font.name}", font) for font in sorted((DIST / "fonts").glob("*.woff2"))]
    return pairs


def on_files(files, config):
    for site_path, source in katex_files():
        files.append(File.generated(config, site_path, abs_src_path=str(source)))
    return files


def on_page_markdown(markdown, page, config, files):
    katex.set_current_page(f"docs/{page.file.src_uri}", page.file.content_string)
    return markdown


def on_page_content(html, page, config, files):
    try:
        return katex.render_html(html, f"docs/{page.file.src_uri}")
    finally:
        katex.set_current_page(None)


# The two faces nearly every formula uses; fetched early so formulas above the fold are laid out
# once, in their own font (no layout shift when the font arrives late).
PRELOAD = ["KaTeX_Main-Regular.woff2", "KaTeX_Math-Italic.woff2"]


def on_post_page(output, page, config):
    if 'class="katex"' not in output or "</head>" not in output:
        return output
    links = "".join(f'<link rel="preload" href="{get_relative_url(f"{TARGET}/fonts/{name}", page.url)}" '
                    'as="font" type="font/woff2" crossorigin>' for name in PRELOAD)
    return output.replace("</head>", links + "</head>", 1)
