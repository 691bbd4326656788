"""Math typeset at build time (anatomia_engine/katex.py, called by the anatomia plugin).

- the renderer itself: KaTeX's MathML for arithmatex's spans/divs (trimmed: no xmlns, no
  redundant cell styles, accented letters of `\\text{}` whole), one node round trip per batch,
  a cache by formula, the same bytes twice, and bad TeX stopping a real `mkdocs build` with the
  page, the line and the formula;
- the built site in Chromium: math readable with JavaScript off (no `\\(`…`\\)` left, every
  formula MathML that the browser lays out as math: a fraction's numerator above its
  denominator), no KaTeX script, CSS or font on any page, and no layout shift (CLS 0, measured
  with a PerformanceObserver of `layout-shift`) on every page at phone and desktop size.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import unicodedata

import pytest

from anatomia_engine import katex

PAGES = ["/", "/krok-po-kroku/", "/posty/", "/posty/llm-mechanizm-uwagi/", "/posty/tagi/",
         "/laby/lab-3/", "/llm/anatomia/", "/jak-dodac-wartosc/"]
MATH_PAGES = ["/krok-po-kroku/", "/posty/llm-mechanizm-uwagi/", "/laby/lab-3/", "/llm/anatomia/"]


# --- the renderer ---------------------------------------------------------------------------


def _math_text(html: str) -> list[str]:
    """The text of each MathML token element of `html`, the TeX annotation left out."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(f"<r>{html}</r>")
    return [el.text for el in root.iter() if el.tag in ("mi", "mn", "mo", "mtext") and el.text]


def test_bad_tex_stops_the_build_naming_page_line_and_formula(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# Strona\n\nDobry wzór \\(x^2\\).\n\nZły wzór \\(\\frac{1}\\) w zdaniu.\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(textwrap.dedent("""\
        site_name: t
        markdown_extensions:
          - pymdownx.arithmatex:
              generic: true
              inline_syntax: [round]
          - anatomia_engine.katex
        plugins: [anatomia]
        """), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode != 0, "a formula KaTeX cannot typeset did not stop the build"
    log = proc.stdout + proc.stderr
    assert "docs/index.md:5" in log, log
    assert "\\frac{1}" in log, log
    assert not (tmp_path / "site" / "index.html").exists()


# --- the built site ---------------------------------------------------------------------------

def test_no_page_ships_katex_script_css_or_fonts(built_site):
    for page in built_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "katex.min.js" not in text and "auto-render" not in text, page
        assert "katex.min.css" not in text and "KaTeX_" not in text, page
    assert not (built_site / "assets" / "katex").exists()


# Every formula is MathML the browser lays out as math: its box has a size, and a fraction's
# numerator sits above its denominator (as inline text they would sit side by side).
MATH_LAYOUT = """() => {
    const all = [...document.querySelectorAll('article .arithmatex')];   // details opened first
    const empty = all.filter(el => {
        const m = el.querySelector('math');
        if (!m) return true;
        const r = m.getBoundingClientRect();
        return !(r.width > 0 && r.height > 0);
    }).map(el => el.textContent.slice(0, 60));
    const fracs = [...document.querySelectorAll('article mfrac')].map(f => {
            const [num, den] = [...f.children].map(c => c.getBoundingClientRect());
            return num.bottom <= den.top + 1 && num.width > 0 && den.width > 0;
        });
    return {total: all.length, empty, fracs: fracs.length, stacked: fracs.filter(Boolean).length,
            family: all.length ? getComputedStyle(all[0].querySelector('math')).fontFamily : ''};
}"""


CLS_OBSERVER = """
window.__cls = 0;
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__cls += entry.value;
    window.__shifts.push(entry.sources.map((s) => s.node ? (s.node.className || s.node.nodeName) : "?"));
  }
}).observe({ type: "layout-shift", buffered: true });
"""


