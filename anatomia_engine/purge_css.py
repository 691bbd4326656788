"""Material's stylesheets cut down, after the build, to the rules the built site can use.

Material for MkDocs ships one stylesheet for every feature it has (about 134 KiB of main CSS and
12 KiB of palettes on every page); this site uses a fraction of them. After a build,
`purge_site(site)` hands the theme's two stylesheets to PurgeCSS (npm `purgecss`, run on the
build's own node) together with everything that can put a class, id or attribute into a page:
- every built HTML page (read with `purgecss-from-html`, so attribute values such as
  `id="fnref:4"` are seen whole and `[id^="fnref:"]` stays),
- every script the site ships except lunr's language files (Material's bundle and our own), read
  word by word: a class a script writes as a literal stays;
- class names a script builds by joining a literal prefix with a variable (Material's bundle
  writes `"md-tooltip--" + state`): every such prefix found in the shipped scripts keeps every
  selector that contains it (`dynamic_prefixes`).
Custom properties no stylesheet, page or script reads (`used_variables`), unused keyframes and
font faces go too. The trimmed file gets a name of its own (`main.<sha256[:8]>.min.css`), every
page is pointed at it and the old file and its source map (which no longer match) are removed, so a browser can never pair a page with a stylesheet
cached from another build. The site's own stylesheets (docs/stylesheets) keep every rule (hooks/slim.py
only takes out their comments and indentation).

What PurgeCSS returns is stored (.cache/purge_css/, keyed by the stylesheets, every content file
and this module), so a build whose pages did not change does not start node. `mkdocs serve`
skips the step (hooks/purge_css.py): the served pages keep the whole stylesheet, a superset.
Zensical runs no MkDocs hooks and publishes the whole stylesheet as well.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

from anatomia_engine import store
from anatomia_engine.katex import ROOT, node_executable

THEME_CSS = ("assets/stylesheets/main.*.min.css", "assets/stylesheets/palette.*.min.css")
SKIPPED_SCRIPTS = ("assets/javascripts/lunr/",)   # lunr's stemmers put no class into a page
NODE_MODULES = ROOT / "node_modules"

# Reads one JSON request on stdin, writes the trimmed stylesheets (a list, in order) on stdout.
NODE_SCRIPT = r"""
const [purgecssPath, fromHtmlPath] = process.argv.slice(1);
const { PurgeCSS } = require(purgecssPath);
const fromHtml = require(fromHtmlPath);
const READ = /var\(\s*(--[\w-]+)/g;
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", async () => {
  const request = JSON.parse(input);
  const purge = async (css, content, greedy, variables) => (await new PurgeCSS().purge({
    css: css.map((raw) => ({ raw })),   // text, not files: no source map is read
    content,
    extractors: [{ extractor: fromHtml.default || fromHtml, extensions: ["html"] }],
    safelist: { greedy, variables: variables || [] },
    variables: variables !== null,
    keyframes: variables === null,
    fontFace: variables === null,
  })).map(({ css }) => css);
  // Rules first (against the site's pages and scripts); then, every rule kept (/./ matches any
  // selector, so no content needs reading again), the custom properties that neither the kept
  // rules nor the rest of the site read.
  const rules = await purge(request.css, request.content, request.greedy.map((s) => new RegExp(s)), null);
  const read = new Set(request.variables);
  for (const css of rules) for (const m of css.matchAll(READ)) read.add(m[1]);
  const trimmed = await purge(rules, [{ raw: "", extension: "html" }], [/./], [...read]);
  process.stdout.write(JSON.stringify(trimmed));
});
"""

_VAR = re.compile(r"var\(\s*(--[\w-]+)")
_PREFIX = re.compile(r"""["'`](md-[\w-]*?-)(?:["'`]|\$\{)""")
_SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/\s*$")


class PurgeError(Exception):
    """The stylesheets could not be trimmed; the message says why."""


def dynamic_prefixes(scripts: list[bytes]) -> list[str]:
    """Class-name prefixes the scripts complete at run time (`"md-tooltip--" + state`)."""
    found: set[str] = set()
    for text in scripts:
        found.update(_PREFIX.findall(text.decode("utf-8", "replace")))
    return sorted(found)


def used_variables(texts: list[bytes]) -> list[str]:
    """Custom properties read (`var(--md-x)`) in `texts`: the site's own stylesheets, the pages'
    inline styles and the scripts. PurgeCSS looks at one stylesheet at a time and would drop a
    variable set in palette.css and read only in main.css or docs/stylesheets; so the node script
    keeps these and those the trimmed theme rules read."""
    found: set[str] = set()
    for text in texts:
        found.update(_VAR.findall(text.decode("utf-8", "replace")))
    return sorted(found)


def _scripts(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.js")
                  if not p.relative_to(site).as_posix().startswith(SKIPPED_SCRIPTS))


def _run_purgecss(css: list[Path], content: list[Path], greedy: list[str],
                  variables: list[str]) -> dict[str, str]:
    request = {"css": [p.read_text(encoding="utf-8") for p in css], "content": [str(p) for p in content],
               "greedy": [re.escape(prefix) for prefix in greedy], "variables": variables}
    try:
        proc = subprocess.run(
            [node_executable(), "-e", NODE_SCRIPT, str(NODE_MODULES / "purgecss"),
             str(NODE_MODULES / "purgecss-from-html")],
            input=json.dumps(request), capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PurgeError(f"PurgeCSS could not run: {exc}") from None
    if proc.returncode != 0:
        raise PurgeError(f"PurgeCSS failed (exit status {proc.returncode}); run 'make docs' to "
                         f"install node_modules:\n{proc.stderr.strip()[-2000:]}")
    try:
        trimmed = json.loads(proc.stdout)
    except ValueError as exc:
        raise PurgeError(f"PurgeCSS answered something unreadable: {exc}") from None
    if not (isinstance(trimmed, list) and len(trimmed) == len(css)
            and all(isinstance(t, str) for t in trimmed)):
        raise PurgeError(f"PurgeCSS returned {type(trimmed).__name__} for {len(css)} stylesheets")
    return {p.name: text for p, text in zip(css, trimmed)}


def purge_site(site: Path, cache: Path | None = None) -> dict[str, tuple[str, int, int]]:
    """Trim the theme's stylesheets in the built `site`; {old name: (new name, bytes before,
    bytes after)}. Raises PurgeError if PurgeCSS fails (before any file is changed)."""
    site = Path(site)
    css = sorted(p for pattern in THEME_CSS for p in site.glob(pattern))
    if not css:
        raise PurgeError(f"{site}: none of {', '.join(THEME_CSS)} was built; is the theme still Material?")
    pages = sorted(site.rglob("*.html"))
    scripts = _scripts(site)
    own_css = [p for p in site.rglob("*.css") if p not in css]
    data = {p: p.read_bytes() for p in (*css, *pages, *scripts, *own_css)}   # each file read once
    greedy = dynamic_prefixes([data[p] for p in scripts])
    variables = used_variables([data[p] for p in (*own_css, *pages, *scripts)])
    parts: list[str | bytes] = [Path(__file__).read_bytes(), json.dumps([greedy, variables])]
    for path in (*css, *pages, *scripts):
        parts += [path.relative_to(site).as_posix(), data[path]]
    kept = store.Store(cache or ROOT / ".cache" / "purge_css", ".json")
    name = store.key(*parts)
    stored = kept.get(name, "PurgeCSS result")
    if stored is not None:
        results = json.loads(stored)
    else:
        results = _run_purgecss(css, [*pages, *scripts], greedy, variables)
        kept.put(name, json.dumps(results, sort_keys=True).encode("utf-8"))
    kept.prune()

    renamed: dict[str, tuple[str, int, int]] = {}
    for path in css:
        trimmed = _SOURCE_MAP.sub("", results[path.name]).encode("utf-8")
        stem = path.name.split(".", 1)[0]                       # "main" of main.57a0d79d.min.css
        new = f"{stem}.{hashlib.sha256(trimmed).hexdigest()[:8]}.min.css"
        (path.parent / new).write_bytes(trimmed)
        renamed[path.name] = (new, len(data[path]), len(trimmed))
    removed = [old for old, (new, _, _) in renamed.items() if old != new]
    stale = []
    for page in pages:
        text = data[page].decode("utf-8")
        changed = text
        for old, (new, _, _) in renamed.items():
            changed = changed.replace(f"assets/stylesheets/{old}", f"assets/stylesheets/{new}")
        if changed != text:
            page.write_text(changed, encoding="utf-8")
        if any(old in changed for old in removed):
            stale.append(page.relative_to(site).as_posix())
    for path in css:
        if renamed[path.name][0] != path.name:
            path.unlink()
        path.with_name(path.name + ".map").unlink(missing_ok=True)
    if stale:
        raise PurgeError(f"pages still name a removed stylesheet: {', '.join(stale[:5])}")
    return renamed
