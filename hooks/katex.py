"""MkDocs hook: serve KaTeX from the npm package installed at set-up (no CDN, no copies in git).

Adds `assets/katex/` (katex.min.js, katex.min.css, auto-render, WOFF2 fonts) and
`assets/katex/katex-init.js` as generated files; mkdocs.yml links them in
extra_javascript / extra_css.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "node_modules" / "katex" / "dist"
TARGET = "assets/katex"
ASSETS = ["katex.min.js", "katex.min.css", "contrib/auto-render.min.js"]


def katex_files() -> list[tuple[str, Path]]:
    """(site path, source path) pairs of everything the pages load for math."""
    if not (DIST / "katex.min.js").exists():
        raise PluginError(f"KaTeX is not installed ({DIST} is missing); run 'make docs', which runs npm ci")
    pairs = [(f"{TARGET}/{name}", DIST / name) for name in ASSETS]
    pairs += [(f"{TARGET}/fonts/{font.name}", font) for font in sorted((DIST / "fonts").glob("*.woff2"))]
    pairs.append((f"{TARGET}/katex-init.js", Path(__file__).parent / "assets" / "katex-init.js"))
    return pairs


def on_files(files, config):
    for site_path, source in katex_files():
        files.append(File.generated(config, site_path, abs_src_path=str(source)))
    return files
