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

import re
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


# Fonts are preloaded so the formulas near the top are laid out once, in their own font (no layout
# shift when a font arrives after the first paint): the two faces nearly every formula uses, and
# those the first formulas of the page need (read from KaTeX's class names).
ALWAYS = ["KaTeX_Main-Regular.woff2", "KaTeX_Math-Italic.woff2"]
FONT_OF_CLASS = [
    (re.compile(r'class="delimsizing size1"|small-op|delimsizing mult'), "KaTeX_Size1-Regular.woff2"),
    (re.compile(r'class="delimsizing size2"|large-op'), "KaTeX_Size2-Regular.woff2"),
    (re.compile(r'class="delimsizing size3"'), "KaTeX_Size3-Regular.woff2"),
    (re.compile(r'class="delimsizing size4"'), "KaTeX_Size4-Regular.woff2"),
    (re.compile(r"mathbb|amsrm"), "KaTeX_AMS-Regular.woff2"),
    (re.compile(r"mathcal"), "KaTeX_Caligraphic-Regular.woff2"),
    (re.compile(r"mathbf"), "KaTeX_Main-Bold.woff2"),
]
FIRST_FORMULAS = 6


def fonts_to_preload(html: str) -> list[str]:
    starts = [m.start() for m in re.finditer('<span class="katex">', html)]
    if not starts:
        return []
    top = html[starts[0]:starts[FIRST_FORMULAS] if len(starts) > FIRST_FORMULAS else len(html)]
    return ALWAYS + [font for pattern, font in FONT_OF_CLASS if pattern.search(top)]


def on_post_page(output, page, config):
    fonts = fonts_to_preload(output)
    if not fonts or "</head>" not in output:
        return output
    links = "".join(f'<link rel="preload" href="{get_relative_url(f"{TARGET}/fonts/{name}", page.url)}" '
                    'as="font" type="font/woff2" crossorigin>' for name in fonts)
    return output.replace("</head>", links + "</head>", 1)
