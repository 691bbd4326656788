"""Figure text on a phone: at 375 px every figure on every page is legible on the page itself.

For each picture (SVG) shown in the article — boxes opened, the current scheme's copy — its
smallest text as the page draws it is font-size × (shown width / viewBox width) CSS pixels;
it must be at least MIN_PX, so that a reader never has to zoom. Pages come from sitemap.xml.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest

PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 1}
MIN_PX = 8

MEASURE = """async () => {
  document.querySelectorAll('article details').forEach(d => { d.open = true; });
  // a closed box's body arrives when it is opened
  for (let i = 0; i < 50 && document.querySelector('article details > p.lazy-details'); i++)
    await new Promise(r => setTimeout(r, 100));
  const out = [];
  for (const img of document.querySelectorAll('article img')) {
    img.loading = 'eager';
    if (getComputedStyle(img).display === 'none') continue;     // the other scheme's copy
    const src = img.currentSrc || img.src;
    if (!/\\.svg(#|$)/.test(src) && !src.startsWith('data:image/svg')) continue;
    await (img.complete && img.naturalWidth ? null : new Promise(r => img.addEventListener('load', r)));
    const svg = await (await fetch(src)).text();
    const box = svg.match(/viewBox="([-\\d.]+) ([-\\d.]+) ([\\d.]+) ([\\d.]+)"/);
    const sizes = [...svg.matchAll(/font(?:-size)?:\\s*(?:[a-z]+\\s+)*([\\d.]+)px/g)]
      .map(m => parseFloat(m[1]));
    if (!box || !sizes.length) continue;
    out.push({src: src.split('/').pop(), minFont: Math.min(...sizes),
              viewWidth: parseFloat(box[3]), shown: img.getBoundingClientRect().width});
  }
  return out;
}"""


def sitemap_paths(site) -> list[str]:
    xml = (site / "sitemap.xml").read_text(encoding="utf-8")
    return [urlparse(loc).path for loc in re.findall(r"<loc>([^<]+)</loc>", xml)]


@pytest.fixture(scope="module")
def measured(browser, server, built_site):
    found = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme, **PHONE)
        page = context.new_page()
        for path in sitemap_paths(built_site):
            page.goto(server + path, wait_until="networkidle")
            found[(scheme, path)] = page.evaluate(MEASURE)
        context.close()
    return found


def test_every_figure_text_is_at_least_8_css_px_at_375(measured):
    small = [f"{scheme} {path} {f['src']}: {f['minFont'] * f['shown'] / f['viewWidth']:.1f} px"
             for (scheme, path), figures in measured.items() for f in figures
             if f["minFont"] * f["shown"] / f["viewWidth"] < MIN_PX]
    assert not small, "figure text below 8 CSS px on a phone:\n" + "\n".join(small)


def test_the_measurement_saw_the_figures(measured):
    """Both schemes and every article page with figures were measured (the test can fail)."""
    counted = {scheme: sum(len(v) for (s, _), v in measured.items() if s == scheme)
               for scheme in ("light", "dark")}
    assert counted["light"] > 20 and counted["light"] == counted["dark"], counted
