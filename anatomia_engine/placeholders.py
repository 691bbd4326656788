"""The placeholder language of the pages: `{{ expr | filter }}` and `{% claim %}` blocks.

Pure functions over a Markdown string; hooks/computed.py calls `render` for each page.
Placeholders inside code (fenced blocks and `code spans`) are left as they are; inside
math (`\\( \\)`, `\\[ \\]`, `$$ $$`, `\\begin{..}..\\end{..}`) numbers use LaTeX's `0{,}35`.
"""

from __future__ import annotations

import ast
import html
import json
import math as _math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from anatomia_engine import numfmt as nf
from anatomia_engine.kit import Table

TAG = re.compile(r"\{\{(?!\{)(?P<expr>.+?)\}\}|\{%\s*(?P<block>claim|endclaim)\b(?P<cond>.*?)%\}",
                 re.DOTALL)
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,}).*?$\n(?:.*?\n)*?(?P=indent)?[ \t]*(?P=fence)[ \t]*$",
                   re.MULTILINE)
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
MATH = re.compile(
    r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|\\begin\{(?P<env>[a-zA-Z*]+)\}.+?\\end\{(?P=env)\}",
    re.DOTALL,
)


class TemplateError(Exception):
    """A placeholder could not be rendered; the message starts with `file:line:`."""


@dataclass(frozen=True)
class Entry:
    """One named value and where it comes from (for error messages and tooltips)."""

    value: object
    source: str  # e.g. "figures_src/worked_example.py"
    function: str | None = None  # the @values function that returned it
    what: str | None = None  # what the number is, in Polish (kit.Value)
    cite: str | None = None  # a publication it is quoted from, if not computed (kit.Value)
    axes: tuple | None = None  # labels per array axis, for `what` with {i}, {j}


@dataclass(frozen=True)
class FigureRef:
    name: str


# --- regions ------------------------------------------------------------------------

def _spans(pattern: re.Pattern, text: str, skip: list[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    out = []
    for m in pattern.finditer(text):
        if not _inside(m.start(), skip):
            out.append((m.start(), m.end()))
    return out


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def regions(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(code spans, math spans) as character ranges of `text`."""
    code = _spans(FENCE, text)
    code += _spans(CODE_SPAN, text, code)
    math = _spans(MATH, text, code)
    return code, math


# --- expressions --------------------------------------------------------------------

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.Pow: operator.pow, ast.Mod: operator.mod,
           ast.FloorDiv: operator.floordiv}
_CMPOPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
           ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.In: lambda a, b: a in b,
           ast.NotIn: lambda a, b: a not in b}
FUNCTIONS: dict[str, Callable] = {
    "abs": lambda x: np.abs(x) if isinstance(x, np.ndarray) else abs(x),
    "max": lambda *a: np.max(a[0]) if len(a) == 1 else max(a),
    "min": lambda *a: np.min(a[0]) if len(a) == 1 else min(a),
    "len": len, "sum": lambda x: np.sum(x), "sqrt": _math.sqrt, "exp": _math.exp,
    "argmax": lambda x: int(np.argmax(x)), "argmin": lambda x: int(np.argmin(x)),
    "sorted": lambda x: sorted(np.asarray(x).tolist()),  # no round(): rounding is for display only
    "all": lambda x: bool(np.all(x)), "any": lambda x: bool(np.any(x)),
}


class Evaluator:
    """Evaluates the small expression language against a scope of named values."""

    def __init__(self, scope: Mapping[str, Entry]):
        self.scope = scope
        self.used: list[str] = []

    def __call__(self, text: str):
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            raise TemplateError(f"cannot parse '{text.strip()}': {exc.msg}") from None
        return self.visit(tree.body)

    def lookup(self, name: str):
        if name not in self.scope:
            near = ", ".join(sorted(self.scope)[:40]) or "(none: list modules under 'computed:' in the front matter)"
            raise TemplateError(f"unknown value '{name}'; known: {near}")
        self.used.append(name)
        return self.scope[name].value

    def visit(self, node):  # noqa: C901 - one small dispatcher reads best
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
            return node.value
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return self.lookup(f"{node.value.id}.{node.attr}")
        if isinstance(node, ast.Subscript):
            return self._index(self.visit(node.value), self.visit(node.slice))
        if isinstance(node, ast.Tuple):
            return tuple(self.visit(e) for e in node.elts)
        if isinstance(node, ast.List):
            return [self.visit(e) for e in node.elts]
        if isinstance(node, ast.UnaryOp):
            operand = self.visit(node.operand)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return +operand
            if isinstance(node.op, ast.Not):
                return not operand
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](self._num(self.visit(node.left)),
                                          self._num(self.visit(node.right)))
        if isinstance(node, ast.BoolOp):
            values = (self.visit(v) for v in node.values)
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.Compare):
            left = self.visit(node.left)
            results = []
            for op, right_node in zip(node.ops, node.comparators):
                if type(op) not in _CMPOPS:
                    raise TemplateError(f"the comparison '{ast.unparse(node)}' is not supported")
                right = self.visit(right_node)
                results.append(_CMPOPS[type(op)](self._num(left), self._num(right)))
                left = right
            if len(results) == 1:
                return results[0]
            if any(isinstance(x, np.ndarray) for x in results):
                raise TemplateError("chained comparisons work on numbers only; use all(...)")
            return all(results)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "figure":
            if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
                raise TemplateError('write a figure as figure("name")')
            ref = self.lookup(str(node.args[0].value))
            if not isinstance(ref, FigureRef):
                raise TemplateError(f"'{node.args[0].value}' is a value, not a figure")
            return ref
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            if node.func.id not in FUNCTIONS:
                raise TemplateError(f"unknown function '{node.func.id}'; known: figure, {', '.join(sorted(FUNCTIONS))}")
            return FUNCTIONS[node.func.id](*(self.visit(a) for a in node.args))
        raise TemplateError(f"'{ast.unparse(node)}' is not allowed in a placeholder")

    @staticmethod
    def _num(x):
        return np.asarray(x) if isinstance(x, list) else x

    @staticmethod
    def _index(container, key):
        if isinstance(container, Table):
            raise TemplateError("a Table cannot be indexed; publish the number as its own value")
        try:
            if isinstance(container, np.ndarray):
                return container[key]
            if isinstance(key, tuple):
                for k in key:
                    container = container[k]
                return container
            return container[key]
        except (IndexError, KeyError, TypeError) as exc:
            raise TemplateError(f"index {key!r} is out of range or wrong ({exc})") from None


# --- formatting ---------------------------------------------------------------------

def _split_filter(text: str) -> tuple[str, str | None, tuple]:
    depth, quote = 0, None
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in ")]":
            depth += 1
        elif ch in "([":
            depth -= 1
        elif ch == "|" and depth == 0:
            expr, filt = text[:i], text[i + 1:].strip()
            m = re.fullmatch(r"([a-z_]+)\s*(?:\((.*)\))?", filt)
            if not m:
                raise TemplateError(f"cannot read the filter '{filt}'")
            args = ast.literal_eval(f"({m.group(2)},)") if m.group(2) else ()
            return expr, m.group(1), args
    return text, None, ()


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def format_value(value, filt: str | None, args: tuple, *, math: bool) -> str:
    """Text of `value` under `filt` (None = the default for its type), in prose or math."""
    if filt is None:
        if isinstance(value, (bool, np.bool_)):
            raise TemplateError("a true/false value is not shown; use it in a claim")
        if isinstance(value, (int, np.integer)):
            filt = "int"
        elif _is_number(value):
            filt = "dec"
        elif isinstance(value, str):
            return value if math else html.escape(value)
        elif isinstance(value, np.ndarray):
            filt = "bmatrix" if math or value.ndim == 2 else "vec"
        else:
            raise TemplateError(f"a value of type {type(value).__name__} needs a filter")
    try:
        if filt == "dec":
            return nf.fmt_dec(value, *args, math=math)
        if filt == "pct":
            return nf.fmt_pct(value, *args, math=math)
        if filt == "sci":
            return nf.fmt_sci(value, *args, math=math)
        if filt == "int":
            return nf.fmt_int(value, math=math)
        if filt == "bytes":
            return nf.fmt_bytes(value, *args, math=math)
        if filt == "vec":
            return nf.fmt_vec(value, *args, math=math)
        if filt == "bmatrix":
            if not math:
                raise TemplateError("bmatrix works only inside math, e.g. \\[ E = {{ E | bmatrix(1) }} \\]")
            return nf.fmt_bmatrix(value, *args)
        if filt == "json":
            return json.dumps(value if not isinstance(value, np.ndarray) else value.tolist(),
                              ensure_ascii=False, allow_nan=False).replace("</", "<\\/")
        if filt == "text":
            return html.escape(str(value))
    except (ValueError, TypeError) as exc:
        raise TemplateError(f"cannot show this value with '{filt}': {exc}") from None
    raise TemplateError(f"unknown filter '{filt}'; known: dec, pct, sci, int, bytes, vec, bmatrix, json, text")


# --- rendering ----------------------------------------------------------------------

FigureRenderer = Callable[[str, str], str]  # (figure name, indent) -> Markdown block


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _own_line(text: str, start: int, end: int) -> str | None:
    """The indentation if the tag stands alone on its line, else None."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:start], text[end:line_end]
    return before if not before.strip() and not after.strip() else None


def render(text: str, scope: Mapping[str, Entry], *, where: str, first_line: int = 1,
           figure: FigureRenderer | None = None) -> str:
    """Replace placeholders in the Markdown `text`; raise TemplateError naming `where:line`."""
    code, math_spans = regions(text)
    out: list[str] = []
    pos = 0
    claim: tuple[int, str, int] | None = None  # (line, condition, index in out)

    def fail(at: int, message: str) -> TemplateError:
        return TemplateError(f"{where}:{first_line - 1 + _line_of(text, at)}: {message}")

    for m in TAG.finditer(text):
        if _inside(m.start(), code):
            continue
        out.append(text[pos:m.start()])
        pos = m.end()
        if m.group("block") == "claim":
            if claim:
                raise fail(m.start(), "a claim cannot contain another claim")
            claim = (m.start(), m.group("cond").strip(), len(out))
            continue
        if m.group("block") == "endclaim":
            if not claim:
                raise fail(m.start(), "{% endclaim %} without {% claim ... %}")
            start, cond, index = claim
            sentence = "".join(out[index:])
            _check_claim(cond, sentence, scope, lambda msg: fail(start, msg))
            claim = None
            continue
        in_math = _inside(m.start(), math_spans)
        try:
            out.append(_placeholder(m.group("expr"), scope, math=in_math, figure=figure,
                                    indent=_own_line(text, m.start(), m.end())))
        except TemplateError as exc:
            raise fail(m.start(), f"{{{{{m.group('expr')}}}}}: {exc}") from None
    if claim:
        raise fail(claim[0], "{% claim %} is never closed by {% endclaim %}")
    out.append(text[pos:])
    return "".join(out)


def _placeholder(expr_text: str, scope, *, math: bool, figure, indent: str | None) -> str:
    expr, filt, args = _split_filter(expr_text)
    evaluator = Evaluator(scope)
    value = evaluator(expr)
    if isinstance(value, FigureRef):
        if figure is None or indent is None:
            raise TemplateError("figure(...) must stand alone on its own line")
        return figure(value.name, indent)
    if isinstance(value, Table):
        if filt is not None:
            raise TemplateError(f"a table takes no filter (got '{filt}'); its columns carry their formats")
        if indent is None or math:
            raise TemplateError("a table must stand alone on its own line, outside math")
        name = expr.strip()
        source = scope[evaluator.used[0]].source
        return _indent(value.to_markdown(lambda v, spec: _table_cell(v, spec, name, source)), indent)
    if not evaluator.used:
        raise TemplateError("the placeholder names no computed value")
    text = format_value(value, filt, args, math=math)
    if math or filt == "json" or not (_is_number(value) or isinstance(value, np.ndarray)):
        return text
    name = expr.strip()
    source = scope[evaluator.used[0]].source
    exact = repr(float(value)) if _is_number(value) else np.array2string(np.asarray(value), precision=17)
    title = html.escape(f"{name} = {exact} (obliczone w {source})", quote=True)
    return f'<span class="num" title="{title}" data-exact="{html.escape(exact)}">{text}</span>'


def _table_cell(value, spec: str | None, table: str, source: str) -> str:
    text = nf.fmt_spec(value, spec)
    exact = repr(float(value))
    title = html.escape(f"{table}: {exact} (obliczone w {source})", quote=True)
    return f'<span class="num" title="{title}" data-exact="{exact}">{text}</span>'


def _indent(block: str, indent: str) -> str:
    lines = block.split("\n")
    return lines[0] + "".join("\n" + (indent + line if line else "") for line in lines[1:])


def _check_claim(cond: str, sentence: str, scope, fail: Callable[[str], TemplateError]) -> None:
    if not cond:
        raise fail("{% claim %} needs a condition, e.g. {% claim a > b %}")
    quoted = " ".join(re.sub(r"<[^>]+>", "", sentence).split())
    try:
        evaluator = Evaluator(scope)
        ok = evaluator(cond)
    except TemplateError as exc:
        raise fail(f"claim '{cond}': {exc}") from None
    if isinstance(ok, np.ndarray):
        raise fail(f"claim '{cond}' compares arrays; use all(...) or any(...)")
    if not ok:
        shown = "; ".join(f"{n} = {_short(scope[n].value)}" for n in dict.fromkeys(evaluator.used))
        raise fail(f"false claim: \u201e{quoted}\u201d \u2014 the condition '{cond}' does not hold ({shown})")


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=6, separator=", ")
    return repr(value)
