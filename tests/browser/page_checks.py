"""The checks of a loaded page of the real site, made in the desktop visits of every page that
tests/browser/test_a11y.py (light) and test_a11y_dark.py (dark) make for axe: offline (no request
to another host, none failed), math typeset, the scheme's figures load and the other scheme's stay
hidden, and in the light scheme no display formula wider than the column at 1280 px (on a phone:
test_phone.py). The same visits check the chrome's contrast and, in the light scheme, the numbers'
popovers. Here too: running axe (its options, its report) and the inputs of a text's contrast,
which the light and dark visits share."""

from __future__ import annotations

from urllib.parse import urlparse

from helpers import REPO


def watch(page) -> tuple[list[str], list[str]]:
    """Requests of `page` to another host and failed requests, as they come (only listened to: the
    page loads as a reader's would, for the layout-shift measurement of the same visit)."""
    outside: list[str] = []
    failed: list[str] = []

    def request(r):
        if not r.url.startswith(("data:", "blob:")) and urlparse(r.url).hostname != "127.0.0.1":
            outside.append(r.url)

    page.on("request", request)
    page.on("requestfailed", lambda req: failed.append(req.url))
    page.on("response", lambda res: failed.append(res.url) if res.status >= 400 else None)
    return outside, failed


def check_page(page, path: str, scheme: str, outside: list[str], failed: list[str]) -> int:
    """The checks of one loaded page; the number of its typeset formulas."""
    assert outside == [], f"{path}: requests left 127.0.0.1: {outside}"
    assert failed == [], f"{path}: failed requests: {failed}"
    raw = page.evaluate("""() => [...document.querySelectorAll('.arithmatex')]
        .filter(el => !el.querySelector('math')).map(el => el.textContent.slice(0, 80))""")
    assert raw == [], f"{path}: math left untypeset: {raw}"
    assert page.evaluate("document.querySelectorAll('merror').length") == 0
    want = "only-dark" if scheme == "dark" else "only-light"
    images = page.evaluate("""async (want) => {
        const imgs = [...document.querySelectorAll('article img')].filter(i => i.src.includes('#' + want));
        imgs.forEach(img => { img.loading = 'eager'; });
        await Promise.all(imgs.map(img => img.complete ? null : new Promise(done => {
            img.addEventListener('load', done); img.addEventListener('error', done); })));
        return imgs.map(img => img.src);
    }""", want)
    broken = page.evaluate("""(want) => [...document.querySelectorAll('article img')]
        .filter(img => img.src.includes('#' + want) && img.offsetParent !== null)
        .filter(img => !(img.complete && img.naturalWidth > 0)).map(img => img.src)""", want)
    assert broken == [], f"{path}: images that did not load: {broken}"
    hidden = page.evaluate("""(want) => [...document.querySelectorAll('article img')]
        .filter(img => img.src.includes('#' + want) && img.offsetParent === null).length""", want)
    assert hidden == 0, f"{path}: {hidden} {want} images are hidden in the {scheme} scheme"
    if images:
        other = "only-light" if scheme == "dark" else "only-dark"
        shown_other = page.evaluate("""(o) => [...document.querySelectorAll('article img')]
            .filter(img => img.src.includes('#' + o) && img.offsetParent !== null).length""", other)
        assert shown_other == 0, f"{path}: {other} images are visible in the {scheme} scheme"
    if scheme == "light":   # the schemes set colours only (tests/site/test_site.py)
        page.evaluate("document.querySelectorAll('article details').forEach(d => { d.open = true; })")
        wide = page.evaluate(WIDE_FORMULAS)
        assert not wide, f"{path}: formulas wider than the column at 1280 px: {wide}"
    return page.evaluate("document.querySelectorAll('.arithmatex > math').length")


# Every display formula shown that scrolls sideways: [how far, its TeX].
WIDE_FORMULAS = """() => [...document.querySelectorAll('article div.arithmatex')]
    .filter(b => b.offsetParent !== null && b.scrollWidth > b.clientWidth + 1)
    .map(b => [b.scrollWidth - b.clientWidth,
               (b.querySelector('annotation') || b).textContent.trim().slice(0, 60)])"""


CONTRAST = """(sel) => {
    const parse = c => { const m = c.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m[3] ?? 1]; };
    const lin = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    const lum = ([r, g, b]) => { const f = lin;
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const over = (fg, bg) => fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    return [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length).map(el => {
        let bg = null, opacity = 1;
        for (let e = el; e; e = e.parentElement) {
            opacity *= Number(getComputedStyle(e).opacity);
            const c = parse(getComputedStyle(e).backgroundColor);
            if (!bg && c[3] > 0) bg = c;
        }
        bg = bg || [255, 255, 255, 1];
        const fg = parse(getComputedStyle(el).color); fg[3] *= opacity;
        const a = lum(over(fg, bg)), b = lum(bg);
        return [el.textContent.trim().slice(0, 30), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
    });
}"""


# The chrome's texts of each page (selectors) that must keep a contrast of 4.5 in both schemes.
CHROME_TEXT = {
    "/": [".md-tabs__link", ".md-copyright"],
    "/laby/lab-3/": [".md-typeset .md-button"],                      # "Pobierz notatnik"
    "/llm/anatomia/": [".attn-x .md-button:not(:disabled)",           # "Przywróć ustawienia przykładu"
                       'table.attn-x__matrix tr.attn-x__chosen th[scope="row"]'],   # the orange label
}


def check_chrome_contrast(page, path: str, scheme: str) -> None:
    """The chrome's texts of CHROME_TEXT[path] on the loaded `page` keep a contrast of 4.5:
    tests/browser/test_a11y.py and test_a11y_dark.py call it in their visits of those pages."""
    for selector in CHROME_TEXT[path]:
        ratios = page.evaluate(CONTRAST, selector)
        assert ratios, f"nothing matches {selector}"
        low = [(text, round(r, 2)) for text, r in ratios if r < 4.5]
        assert low == [], f"{scheme} {path} {selector}: {low}"


def tip_state(page) -> dict:
    return page.evaluate("""() => {
        const t = document.getElementById('num-tip');
        return t ? {shown: !t.hidden && t.offsetParent !== null, text: t.textContent,
                    role: t.getAttribute('role'),
                    code: Array.from(t.querySelectorAll('code'), c => c.textContent).join(' '),
                    prose: Array.from(t.children).filter(c => !c.querySelector('code'))
                                .map(c => c.textContent).join(' ')} : null;
    }""")


def check_numbers(page, path: str) -> None:
    """Every number in the article of the loaded `page` is focusable, has no title and opens its
    popover (the first, middle and last are opened): tests/browser/test_a11y.py calls it on
    every page of the site that has numbers, in its light visits."""
    nums = page.evaluate("""() => [...document.querySelectorAll('article .num')].map(n => ({
        tab: n.tabIndex, title: n.getAttribute('title'), exact: n.dataset.exact || null}))""")
    assert nums, f"{path} has no numbers in its article"
    assert all(n["tab"] == 0 for n in nums), f"a number on {path} is not in the tab order"
    assert all(n["title"] is None for n in nums), f"a number on {path} still has a title attribute"
    count = len(nums)
    for i in sorted({0, count // 2, count - 1}):
        page.evaluate("(i) => document.querySelectorAll('article .num')[i].focus()", i)
        state = tip_state(page)
        assert state["shown"], f"number {i} on {path} did not open its popover"
        if nums[i]["exact"]:
            assert nums[i]["exact"] in state["text"]
    page.evaluate("document.activeElement.blur()")


AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = {"serious", "critical"}
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
WIDE, NARROW = 1280, 375


RUN_AXE = """async (options) => {
    const result = await axe.run(document, {...options, resultTypes: ['violations']});
    return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => n.target.join(' ') + (n.failureSummary ?
            ' — ' + n.failureSummary.split('\\n').slice(1, 2).join(' ').trim() : ''))}));
}"""


# What a text's contrast depends on, for every element with text of its own that axe's colour rules
# would examine (shown, not left of or above the page): its colour, whether it is large text (WCAG:
# 24 px, or bold 18,66 px), its shadow, the backgrounds behind it up to the first opaque one, and
# its opacity. Keyed by the element's place in the document.
CONTRAST_INPUTS = """() => {
    const place = (el) => {
        const steps = [];
        for (; el.parentElement; el = el.parentElement) {
            steps.unshift(el.tagName + [...el.parentElement.children].indexOf(el));
        }
        return steps.join('>');
    };
    const found = {};
    for (const el of document.body.querySelectorAll('*')) {
        if (![...el.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim())) continue;
        const box = el.getBoundingClientRect();
        if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})
            || box.right <= 0 || box.bottom <= 0) continue;
        const style = getComputedStyle(el);
        const size = parseFloat(style.fontSize);
        const inputs = [style.color, size >= 24 || (parseInt(style.fontWeight) >= 700 && size >= 18.66),
                        style.textShadow];
        let opacity = 1;
        for (let e = el; e; e = e.parentElement) {
            const s = getComputedStyle(e);
            opacity *= parseFloat(s.opacity);
            if (s.backgroundImage !== 'none') inputs.push(s.backgroundImage);
            if (s.backgroundColor !== 'rgba(0, 0, 0, 0)') {
                inputs.push(s.backgroundColor);
                if (!s.backgroundColor.startsWith('rgba')) break;
            }
        }
        found[place(el)] = [...inputs, opacity].join(' | ');
    }
    return found;
}"""


def load(page, url: str) -> None:
    """`url` loaded fresh in `page` as a reader's browser would show it, with axe added."""
    page.goto(url, wait_until="networkidle")
    page.evaluate("document.fonts.ready.then(() => true)")
    # Let the page's own scripts finish their idle-time work (phone.js's scrolling boxes).
    page.evaluate("new Promise(done => requestIdleCallback(() => setTimeout(done, 50), {timeout: 3000}))")
    page.add_script_tag(path=str(AXE))


def options(colour: bool, other: bool) -> dict | None:
    """axe.run's options for its default rules: the colour rules, the others, both, or none."""
    if colour and other:
        return {}
    if colour:
        return {"runOnly": {"type": "rule", "values": COLOUR_RULES}}
    return {"rules": {rule: {"enabled": False} for rule in COLOUR_RULES}} if other else None


def report(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['impact']}: {v['id']} ({v['help']}), {len(v['nodes'])} element(s):")
        lines += [f"    {node}" for node in v["nodes"][:8]]
    return "\n".join(lines)


def unseen_contrast(narrow: dict, wide: dict) -> list[str]:
    """The elements whose contrast inputs at phone width the desktop run did not see."""
    return [place for place, inputs in narrow.items() if wide.get(place) != inputs]


def blocking(page, chosen: dict | None) -> list[dict]:
    """axe's serious and critical violations on `page` with the options `chosen` (None: no run)."""
    violations = page.evaluate(RUN_AXE, chosen) if chosen is not None else []
    return [v for v in violations if v["impact"] in BLOCKING]
