"""Math typeset at build time (anatomia_engine/mathml.py, called by the anatomia plugin).

- the renderer itself: Temml's MathML for arithmatex's spans/divs (no xmlns, accented letters of
  `\\text{}` whole, a prefix minus, Unicode math letters), one node round trip per batch,
  a cache by formula, the same bytes twice, and bad TeX stopping a real `mkdocs build` with the
  page, the line and the formula;
- the built site in Chromium: math readable with JavaScript off (no `\\(`…`\\)` left, every
  formula MathML that the browser lays out as math: a fraction's numerator above its
  denominator), in the site's own math font, and no layout shift (CLS 0, measured
  with a PerformanceObserver of `layout-shift`) on every page at phone and desktop size.
"""

from __future__ import annotations

import html as htmlmod
import os
import re
import subprocess
import textwrap
import unicodedata

from helpers import REPO as ROOT
from helpers import core

# --- the renderer ---------------------------------------------------------------------------


def test_bad_tex_stops_the_build_naming_page_line_and_formula(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# Strona\n\nDobry wzór \\(x^2\\).\n\nZły wzór \\(\\frac{1}\\) w zdaniu.\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(textwrap.dedent("""\
        site_name: t
        theme: {name: material, font: false}
        markdown_extensions:
          - pymdownx.arithmatex:
              generic: true
              inline_syntax: [round]
        plugins: [anatomia]
        """), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(core("build", "--strict", "--site-dir", str(tmp_path / "site")),
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0, "a formula Temml cannot typeset did not stop the build"
    log = proc.stdout + proc.stderr
    assert "docs/index.md:5" in log, log
    assert "\\frac{1}" in log, log
    assert not (tmp_path / "site" / "index.html").exists()


# --- the built site ---------------------------------------------------------------------------

def _italic(char: str) -> str:
    """The letter MathML Core draws for a one-letter <mi> (text-transform: math-auto)."""
    if char == "h":
        return "\u210e"            # PLANCK CONSTANT stands where MATHEMATICAL ITALIC SMALL H would
    name = unicodedata.name(char, "")
    for word in ("LATIN ", "GREEK ", "LETTER "):
        name = name.replace(word, "")
    try:
        return unicodedata.lookup("MATHEMATICAL ITALIC " + name)
    except KeyError:
        return char


def _shown_characters(mathml: str) -> set[str]:
    """The characters a browser draws for `mathml` (the TeX annotation left out)."""
    mathml = re.sub(r"<annotation.*?</annotation>", "", mathml, flags=re.S)
    shown = set()
    for tag, attrs, text in re.findall(r"<(m[a-z]+)([^>]*)>([^<]+)<", mathml):
        if tag == "mtext":
            continue            # words in formulas are set in the prose font (math.css)
        text = htmlmod.unescape(text)
        if tag == "mi" and len(text) == 1 and "mathvariant" not in attrs:
            text = _italic(text)
        shown |= set(text)
    if re.search(r"<m(?:sqrt|root)\b", mathml):
        shown.add("\u221a")    # the radical sign is the browser's, drawn (and stretched) from the math font
    return shown - {"\n", " "}


def test_the_math_font_has_every_character_the_formulas_show(built_site):
    """The site's math font is cut to the characters of its formulas: a new symbol must be added to
    the cut, or the browser draws it in another face (the look this font is there to fix)."""
    from fontTools.ttLib import TTFont

    font = built_site / "stylesheets" / "temml" / "NotoSansMath-subset.woff2"
    covered = set(map(chr, TTFont(font).getBestCmap()))
    source = ROOT / "node_modules/@fontsource/noto-sans-math/files/noto-sans-math-latin-400-normal.woff"
    available = set(map(chr, TTFont(source).getBestCmap()))     # the rest falls back whatever we cut
    shown: set[str] = set()
    for page in built_site.rglob("*.html"):
        for mathml in re.findall(r"<math.*?</math>", page.read_text(encoding="utf-8"), flags=re.S):
            shown |= _shown_characters(mathml)
    assert len(shown) > 50, "no formulas read: the check checks nothing"
    missing = "".join(sorted((shown & available) - covered))
    codes = ",".join(f"U+{ord(c):04X}" for c in sorted(shown | covered))
    assert not missing, (
        f"not in the math font: {missing!r}; cut it again with\n.venv/bin/pyftsubset "
        f"node_modules/@fontsource/noto-sans-math/files/noto-sans-math-latin-400-normal.woff "
        f"--unicodes={codes} --layout-features='*' --flavor=woff2 "
        f"--output-file=docs/stylesheets/temml/{font.name}")


def test_every_formula_ends_with_its_tex_source(built_site):
    """math.css shows a formula once its <annotation> (the TeX source, its last part) has arrived,
    so that a formula painted while the page is still arriving never grows in place: a formula
    without one at its end would stay hidden, or be shown before it is whole."""
    formulas = [(page.relative_to(built_site), mathml) for page in built_site.rglob("*.html")
                for mathml in re.findall(r"<math\b.*?</math>", page.read_text(encoding="utf-8"), flags=re.S)]
    assert len(formulas) > 50, "no formulas read: the check checks nothing"
    ending = re.compile(r"<annotation\b[^>]*>[^<]*</annotation>\s*</semantics>\s*</math>$")
    bad = [f"{page}: {mathml[:80]}" for page, mathml in formulas if not ending.search(mathml)]
    assert not bad, "formulas that do not end with their TeX source:\n" + "\n".join(bad[:10])


def test_no_page_ships_a_math_script_on_first_load(built_site):
    for page in built_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        scripts = re.findall(r"<script[^>]*\bsrc=\"([^\"]*)\"", text)
        assert scripts and not [src for src in scripts if "temml" in src or "katex" in src], page


