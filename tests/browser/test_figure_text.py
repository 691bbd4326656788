"""Figure text on a phone: at 375 px every figure on every page is legible on the page itself.

For each picture (SVG) shown in the article — boxes opened, the light scheme's copy — its
smallest text as the page draws it is font-size × (shown width / viewBox width) CSS pixels;
it must be at least MIN_PX, so that a reader never has to zoom. Pages come from sitemap.xml.
The dark copies have the same sizes and <img> tags (tests/site/test_site.py checks that).
"""

from __future__ import annotations

import pytest

from helpers import site_pages

PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 1}
MIN_PX = 8

MEASURE = """async () => {
  document.querySelectorAll('article details').forEach(d => { d.open = true; });
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


@pytest.fixture(scope="module")
def measured(browser, server, built_site):
    found = {}
    context = browser.new_context(color_scheme="light", **PHONE)
    page = context.new_page()
    for path in site_pages(built_site):
        page.goto(server + path, wait_until="networkidle")
        found[path] = page.evaluate(MEASURE)
    context.close()
    return found


def test_every_figure_text_is_at_least_8_css_px_at_375(measured):
    small = [f"{path} {f['src']}: {f['minFont'] * f['shown'] / f['viewWidth']:.1f} px"
             for path, figures in measured.items() for f in figures
             if f["minFont"] * f["shown"] / f["viewWidth"] < MIN_PX]
    assert not small, "figure text below 8 CSS px on a phone:\n" + "\n".join(small)


def test_the_measurement_saw_every_figure(measured, built_site):
    """Every light picture the build made was measured on some page (the test can fail)."""
    seen = {f["src"].split("#")[0] for figures in measured.values() for f in figures}
    made = {picture.name for picture in (built_site / "figures").rglob("*-light.svg")}
    assert made <= seen and len(made) > 20, sorted(made - seen)
