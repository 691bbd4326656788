"""Page weight on first load, before the reader scrolls: every page of site/ in Chromium.

Opens each page of the built site (default: site/, or the directory given as argument) on a
phone-sized screen (375×812) in a fresh browser context (empty cache), waits until the network is
idle and the fonts are ready, and adds up every response: its raw (decoded) size and its size
as a gzip-compressing server sends it (gzip -6 of text; fonts and images as they are, being
compressed already). Lazy figures below the fold are not requested, so they do not count, and
neither does anything fetched only later (e.g. the search index when search is opened).
Prints one line per page with both sizes and the heaviest resources; exits 1 if a page is over
the budget of what the reader downloads (≤ 150 KiB gzip), so `make weight` can gate. The raw size
is reported, not gated: Material's own stylesheet and bundle ship as Material builds them, not
re-minified or purged by this project.

    .venv/bin/python tests/bench/weight.py [--no-search-index] [site_dir]

--no-search-index leaves out search/search_index.json (for a site that still fetches it on load:
the weight the page will have once search loads it only when opened).
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers import REPO, chromium, serving  # noqa: E402

GZIP_BUDGET = 150 * 1024
COMPRESSED = ("font/", "image/png", "image/jpeg", "image/webp", "image/avif", "image/gif")


def pages(site: Path) -> list[str]:
    found = []
    for index in sorted(site.rglob("index.html")):
        rel = index.parent.relative_to(site).as_posix()
        found.append("/" if rel == "." else f"/{rel}/")
    if (site / "404.html").exists():
        found.append("/404.html")
    return found


def measure(browser, url: str, skip_search: bool = False) -> list[tuple[str, int, int]]:
    """(url, raw bytes, gzip bytes) of every response of a first load of `url`."""
    context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True,
                                  has_touch=True, device_scale_factor=2)
    page = context.new_page()
    responses = []
    page.on("response", lambda response: responses.append(response))
    try:
        page.goto(url, wait_until="networkidle")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.wait_for_load_state("networkidle")
        rows = []
        for response in responses:
            if response.url.startswith("data:") or response.status >= 300:
                continue
            if skip_search and response.url.endswith("search_index.json"):
                continue
            try:
                body = response.body()
            except Exception:  # noqa: BLE001 - a response without a body (e.g. aborted)
                continue
            kind = response.headers.get("content-type", "")
            packed = len(body) if kind.startswith(COMPRESSED) else len(gzip.compress(body, 6, mtime=0))
            rows.append((response.url, len(body), packed))
        return rows
    finally:
        context.close()


def within_budget(rows: list[tuple[str, int, int]]) -> bool:
    """Whether a page's first load, as `measure` returns it, is within the gzip budget."""
    return sum(r[2] for r in rows) <= GZIP_BUDGET


def main() -> int:
    args = sys.argv[1:]
    skip_search = "--no-search-index" in args
    args = [a for a in args if a != "--no-search-index"]
    site = Path(args[0]) if args else REPO / "site"
    if not (site / "index.html").exists():
        print(f"{site} has no index.html: run 'make docs' first", file=sys.stderr)
        return 2
    over = []
    with serving(site) as base, chromium() as browser:
        print(f"first load at 375×812, before scrolling; budget ≤ {GZIP_BUDGET // 1024} KiB gzip"
              + ("; search index left out" if skip_search else ""))
        print(f"{'page':34} {'requests':>8} {'raw KiB':>9} {'gzip KiB':>9}  heaviest (raw KiB)")
        for path in pages(site):
            rows = measure(browser, base + path, skip_search)
            raw = sum(r[1] for r in rows)
            packed = sum(r[2] for r in rows)
            ok = within_budget(rows)
            if not ok:
                over.append(path)
            heavy = sorted(rows, key=lambda r: -r[1])[:3]
            names = ", ".join(f"{r[0].rsplit('/', 1)[-1] or 'index.html'} {r[1] / 1024:.0f}"
                              for r in heavy)
            print(f"{path:34} {len(rows):>8} {raw / 1024:>9.1f} {packed / 1024:>9.1f}  "
                  f"{'ok  ' if ok else 'OVER'} {names}")
    if over:
        print(f"over budget: {', '.join(over)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
