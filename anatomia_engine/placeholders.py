"""The placeholder language of the pages: `{{ expr | filter }}` and `{% claim %}` blocks.

`scan` replaces every tag by an inert token; anatomia_engine/markdown.py asks `fill` for each token's
text by where Python-Markdown put it (prose, math, plain text, code). Expressions are Jinja2's
expression syntax evaluated by `_eval`, with one numfmt filter; failures name `file:line`.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import html
import json
import math as _math
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

import numpy as np
from jinja2 import Environment, nodes
from jinja2.exceptions import TemplateSyntaxError
from jinja2.parser import Parser
from mkdocs.exceptions import BuildError

from anatomia_engine import messages as M
from anatomia_engine import numfmt as nf
from anatomia_engine import sentinels
from anatomia_engine.kit import Table

PLACEHOLDER = r"\{\{(?!\{)(?P<expr>(?:(?!\n[ \t]*\n).)+?)\}\}"
TAG = re.compile(PLACEHOLDER + r"|\{%-?[ \t]*(?P<block>[A-Za-z_]\w*)?(?P<cond>[^\n]*?)-?%\}", re.DOTALL)
BLOCKS = ("claim", "endclaim")
# {% nocompare %}: shows nothing; marks a sentence judged to compare nothing (unchecked.py)
MARKS = ("nocompare",)
TOKEN = re.compile("\ue000p(?P<page>\\d+)t(?P<tag>\\d+)\ue001")


class TemplateError(BuildError):
    """A placeholder could not be rendered; the message starts with `file:line:`."""


@dataclass(frozen=True)
class Entry:
    """One named value and where it comes from (for error messages and the number's popover)."""

    value: object
    source: str  # e.g. "figures_src/worked_example.py"
    function: str | None = None  # the @values function that returned it
    what: str | None = None  # what the number is, in Polish (kit.Value)
    cite: str | None = None  # a publication it is quoted from, if not computed (kit.Value)
    axes: tuple | None = None  # labels per array axis, for `what` with {i}, {j}
    at: str | None = None  # the value (same module) saying where/when this one was measured (kit.Value)
    limit: bool = False  # a check's threshold, not a measurement: conditions read it, no page shows it


@dataclass(frozen=True)
class FigureRef:
    name: str


# --- expressions --------------------------------------------------------------------

FUNCTIONS: dict[str, Callable] = {
    "abs": lambda x: np.abs(x) if isinstance(x, np.ndarray) else abs(x),
    "max": lambda *a: np.max(a[0]) if len(a) == 1 else max(a),
    "min": lambda *a: np.min(a[0]) if len(a) == 1 else min(a),
    "len": len, "sum": lambda x: np.sum(x), "sqrt": _math.sqrt, "exp": _math.exp,
    "argmax": lambda x: int(np.argmax(x)), "argmin": lambda x: int(np.argmin(x)),
    "sorted": lambda x: sorted(np.asarray(x).tolist()),  # no round(): rounding is for display only
    "all": lambda x: bool(np.all(x)), "any": lambda x: bool(np.any(x)),
}
RESERVED = set(FUNCTIONS) | {"figure"}
_ENV = Environment()  # only its expression parser is used: evaluation is `_eval` below

# --- what an expression may cost ------------------------------------------------------------
# A page's expression runs inside the build: each limit keeps one placeholder from hanging it or
# filling memory (10 ** (10 ** 10), "x" * 10 ** 8, a thousand nested brackets). Each is far above
# what a page shows: a whole number a reader can read, a sentence, a short list.
MAX_DEPTH = 40  # operations nested inside one another
MAX_INT_BITS = 1024  # a whole number: about 308 digits, a double's range
MAX_LENGTH = 10_000  # characters of a text, items of a list (its nested lists counted too)
MAX_ELEMENTS = 1_000_000  # elements of an array an operation makes from smaller ones


class CostLimit(Exception):
    """An operation would exceed one of the limits above; its message comes from the catalogue."""


def _size(x) -> int:
    """Characters of a text, items of a list or tuple counted with their nested items; else 1."""
    if isinstance(x, str):
        return len(x)
    if isinstance(x, (list, tuple)):
        total = len(x)
        for item in x:
            total += _size(item) - 1 if isinstance(item, (str, list, tuple)) else 0
            if total > MAX_LENGTH:  # stop counting: a list repeated by itself is large only by reference
                break
        return total
    return 1


def _bits(x) -> int:
    """Binary digits of a whole number (or of a fraction's larger part); 0 for anything else."""
    if isinstance(x, bool):
        return 0
    if isinstance(x, int):
        return x.bit_length()
    if isinstance(x, Fraction):
        return max(x.numerator.bit_length(), x.denominator.bit_length())
    return 0


def _bounded(result):
    """`result` if it is within the limits, else CostLimit."""
    if _bits(result) > MAX_INT_BITS:
        raise CostLimit(M.text("expr_integer", bits=_bits(result), most=MAX_INT_BITS))
    if isinstance(result, (str, list, tuple)) and _size(result) > MAX_LENGTH:
        raise CostLimit(M.text("expr_length", length=_size(result), most=MAX_LENGTH))
    return result


def _whole(result):
    """`result` of a function: a list it makes has the size of a module's array, a number is checked."""
    if _bits(result) > MAX_INT_BITS:  # sum() of whole numbers each within the limit
        raise CostLimit(M.text("expr_integer", bits=_bits(result), most=MAX_INT_BITS))
    return result


def _checked(fn: Callable) -> Callable:
    """A binary operation refused before it runs if it would cost too much, its result checked after."""

    def run(a, b):
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            shapes = [np.shape(x) for x in (a, b)]
            elements = int(np.prod(np.broadcast_shapes(*shapes)))
            if elements > max(MAX_ELEMENTS, *(int(np.prod(s)) for s in shapes)):
                raise CostLimit(M.text("expr_elements", elements=elements, most=MAX_ELEMENTS))
        if fn is operator.pow and not isinstance(b, bool) and isinstance(b, int) and _bits(a) > 1:
            if _bits(a) * abs(b) > 2 * MAX_INT_BITS:  # the result's size, known before computing it
                raise CostLimit(M.text("expr_power", base=_short(a), exponent=_short(b), most=MAX_INT_BITS))
        if fn is operator.mul:
            times, seq = (b, a) if isinstance(a, (str, list, tuple)) else (a, b)
            if isinstance(seq, (str, list, tuple)) and isinstance(times, (int, np.integer)):
                if _size(seq) * int(times) > MAX_LENGTH:
                    raise CostLimit(M.text("expr_length", length=_size(seq) * int(times), most=MAX_LENGTH))
        if fn is operator.mod and isinstance(a, str):  # "%09999999d" % 1: Python's printf, not arithmetic
            raise CostLimit(M.text("expr_text_format"))
        return _bounded(fn(a, b))

    return run


def _short(x) -> str:
    """A number as a message quotes it: its digits, or how many there are."""
    text = repr(x)
    return text if len(text) <= 20 else f"a number of {len(text)} digits"


# Jinja's operator names; docs/javascripts/explorer.js names the operations of the compiled form by them too.
OPERATORS = {"+": _checked(operator.add), "-": _checked(operator.sub), "*": _checked(operator.mul),
             "/": _checked(operator.truediv), "//": _checked(operator.floordiv), "%": _checked(operator.mod),
             "**": _checked(operator.pow), "neg": operator.neg, "pos": operator.pos, "not": operator.not_}
_COMPARISON = {name: _checked(fn) for name, fn in {
    "eq": operator.eq, "ne": operator.ne, "gt": operator.gt, "gteq": operator.ge, "lt": operator.lt,
    "lteq": operator.le, "in": lambda a, b: a in b, "notin": lambda a, b: a not in b}.items()}


def _unknown(name: str, scope: Mapping[str, Entry]) -> str:
    owners = sorted(k.split(".", 1)[0] for k in scope if "." in k and k.split(".", 1)[1] == name)
    if len(owners) > 1:   # not unknown: computed by several modules, none of them listed
        return M.text("value_in_modules", name=name, modules=", ".join(owners), example=f"{owners[0]}.{name}")
    near = difflib.get_close_matches(name, list(scope), n=3, cutoff=0.6)
    if near:
        return M.text("unknown_value_near", name=name, near=" or ".join(f"'{n}'" for n in near))
    if not any("." not in k for k in scope):
        return M.text("unknown_value_no_module", name=name)
    return M.text("unknown_value", name=name)


@functools.lru_cache(maxsize=4096)
def compile_expression(source: str):
    """The expression `source` (Jinja2's syntax) in the compact form `_eval` and docs/javascripts/explorer.js
    evaluate: a name with constant indices is one string ("w 2 1" for w[2][1] or w[2, 1]); a constant is
    itself, a string ["s", text]; an operation a list, its name first: ["+", a, b], ["cmp", a, [["gt", b]]],
    ["f", "abs", [x]], ["i", obj, key], … Never mutate it."""
    source = source.strip()
    try:
        parser = Parser(_ENV, source, state="variable")
        tree = parser.parse_expression()
        rest = parser.stream.current
        if rest.type != "eof":
            raise TemplateSyntaxError(f"unexpected '{rest.value}'", rest.lineno)
    except TemplateSyntaxError as exc:
        raise TemplateError(M.text("bad_expression", source=source, problem=exc.message,
                                   functions=", ".join(sorted(RESERVED)))) from None
    except RecursionError:  # Jinja's parser recurses for each bracket and unary sign
        raise TemplateError(M.text("expr_depth", source=_quote(source), depth=f"more than {MAX_DEPTH}",
                                   most=MAX_DEPTH)) from None
    depth = _depth(tree)
    if depth > MAX_DEPTH:  # `_compile` and `_eval` recurse once per level
        raise TemplateError(M.text("expr_depth", source=_quote(source), depth=depth, most=MAX_DEPTH))
    return _compile(tree, source)


def _quote(source: str) -> str:
    return source if len(source) <= 60 else source[:57] + "..."


def _depth(tree: nodes.Node) -> int:
    """How deep the operations of a parsed expression nest, counted without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node.iter_child_nodes())
    return deepest


def _compile(node: nodes.Node, source: str):
    c = functools.partial(_compile, source=source)
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr) and isinstance(node.node, nodes.Name):
        return f"{node.node.name}.{node.attr}"
    if isinstance(node, nodes.Getitem):
        obj, key = c(node.node), c(node.arg)
        keys = key[1] if isinstance(node.arg, nodes.Tuple) else [key]
        if isinstance(obj, str) and all(type(k) is int for k in keys):
            return " ".join([obj, *map(str, keys)])
        if isinstance(node.arg, nodes.Tuple):
            problem = "name[i, j] takes constant indices; write name[i][j]"
            raise TemplateError(M.text("not_allowed", source=source, problem=problem))
        return ["i", obj, key]
    if isinstance(node, nodes.Const):
        return ["s", node.value] if isinstance(node.value, str) else node.value
    if isinstance(node, nodes.Slice):
        return ["slice", *(None if n is None else c(n) for n in (node.start, node.stop, node.step))]
    if isinstance(node, (nodes.Tuple, nodes.List)):
        return ["list", [c(i) for i in node.items]]
    if isinstance(node, nodes.BinExpr):  # arithmetic, `and`, `or`
        return [node.operator, c(node.left), c(node.right)]
    if isinstance(node, nodes.UnaryExpr):
        return [type(node).__name__.lower(), c(node.node)]
    if isinstance(node, nodes.Compare):
        return ["cmp", c(node.expr), [[o.op, c(o.expr)] for o in node.ops]]
    if isinstance(node, nodes.CondExpr) and node.expr2 is not None:
        return ["if", c(node.test), c(node.expr1), c(node.expr2)]
    if isinstance(node, nodes.Filter):
        raise TemplateError(M.text("one_filter", name=node.name))
    if isinstance(node, nodes.Test):
        raise TemplateError(M.text("no_tests", name=node.name))
    function = node.node.name if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name) else None
    if function and not (node.kwargs or node.dyn_args or node.dyn_kwargs):
        if function not in RESERVED:
            raise TemplateError(M.text("unknown_value", name=function))
        if function != "figure":
            return ["f", function, [c(a) for a in node.args]]
        name = node.args[0] if len(node.args) == 1 else None
        if not isinstance(name, nodes.Const) or not isinstance(name.value, str):
            raise TemplateError(M.text("figure_by_name"))
        return ["figure", name.value]
    problem = f"{type(node).__name__} is not part of the placeholder language"
    raise TemplateError(M.text("not_allowed", source=source, problem=problem))


def _parts(form) -> list:
    """The sub-expressions of a compiled expression: none for a name or a constant."""
    if not isinstance(form, list) or form[0] == "s":
        return []
    if form[0] in ("f", "list"):
        return form[-1]
    if form[0] == "cmp":
        return [form[1], *(right for _, right in form[2])]
    return form[1:]


def _walk(form):
    yield form
    for part in _parts(form):
        yield from _walk(part)


def names_used(form) -> list[str]:
    """The names a compiled expression reads, in order: `w`, `demo.p` (for `demo.p[0]`)."""
    return list(dict.fromkeys(part.split(" ")[0] for part in _walk(form) if isinstance(part, str)))


def evaluate(source: str, scope: Mapping[str, Entry]) -> tuple[object, list[str]]:
    """Value of the expression `source` and the scope names it used; TemplateError on any failure."""
    form, source = compile_expression(source), source.strip()
    for name in names_used(form):  # every name, also those of a branch not taken
        head, _, attr = name.partition(".")
        if name not in scope and attr and head in scope:
            problem = f"'{attr}' is an attribute of the value '{head}'"
            raise TemplateError(M.text("not_allowed", source=source, problem=problem))
        if name not in scope:
            raise TemplateError(_unknown(name, scope))
    for part in _walk(form):
        if isinstance(part, list) and part[0] == "figure" and not isinstance(scope[part[1]].value, FigureRef):
            raise TemplateError(M.text("not_a_figure", name=part[1]))
    try:
        with np.errstate(divide="raise", invalid="raise", over="raise", under="ignore"):
            return _eval(form, scope), names_used(form)
    except CostLimit as exc:
        raise TemplateError(M.text("expr_cost", source=_quote(source), problem=exc)) from None
    except Exception as exc:  # noqa: BLE001 - every failure must name the page and line
        problem = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, LookupError):
            raise TemplateError(M.text("undefined", source=source, problem=problem)) from None
        raise TemplateError(M.text("cannot_evaluate", source=source, problem=problem)) from None


def _compare(ev, left, comparisons):
    """A chained comparison (a < b < c), stopping at the first false one; arrays compare elementwise."""
    left = ev(left)
    for name, right in comparisons:
        right = ev(right)
        result = _COMPARISON[name](left, right)
        if isinstance(result, np.ndarray) or not result:
            return result
        left = right
    return result


# How `_eval` computes each operation of the compiled form, from its evaluator and its operands.
_OPS: dict[str, Callable] = {
    **{op: functools.partial(lambda fn, ev, *args: fn(*map(ev, args)), fn) for op, fn in OPERATORS.items()},
    "s": lambda ev, text: text, "i": lambda ev, obj, key: ev(obj)[ev(key)],
    "slice": lambda ev, *bounds: slice(*map(ev, bounds)),
    "list": lambda ev, items: _bounded([ev(item) for item in items]),
    "and": lambda ev, left, right: ev(left) and ev(right),
    "or": lambda ev, left, right: ev(left) or ev(right),
    "if": lambda ev, test, yes, no: ev(yes) if ev(test) else ev(no), "cmp": _compare,
    "f": lambda ev, name, args: _whole(FUNCTIONS[name](*map(ev, args))), "figure": lambda ev, name: ev(name),
}


def _eval(form, scope: Mapping[str, Entry], shown: Mapping[str, Fraction] | None = None):
    """Evaluate a compiled expression with Python's semantics; with `shown` (repr of an operand -> the
    number a reader reads), each comparison a reader can redo uses those, exactly (0,35 − 0,34 is 0,01)."""
    if shown is not None:
        if repr(form) in shown:
            return shown[repr(form)]
        if isinstance(form, float):
            return Fraction(repr(form))
        if isinstance(form, list) and form[0] == "cmp" and not all(_covered(p, shown) for p in _parts(form)):
            shown = None  # the reader cannot redo this comparison: it holds for the exact values
    if isinstance(form, str):  # "w 1 0": w[1][0]
        name, *index = form.split(" ")
        return functools.reduce(lambda value, i: value[int(i)], index, scope[name].value)
    if not isinstance(form, list):
        return form
    return _OPS[form[0]](functools.partial(_eval, scope=scope, shown=shown), *form[1:])


def _covered(form, shown: Mapping[str, Fraction]) -> bool:
    """Is every value `form` reads shown in the sentence (so a reader can redo it)?"""
    if repr(form) in shown:
        return True
    return not isinstance(form, str) and all(_covered(part, shown) for part in _parts(form))


def compiled(source: str) -> str:
    """The compiled expression `source` as compact JSON (an attribute's value), for a live page."""
    form = compile_expression(source)
    unknown = next((p[0] for p in _walk(form) if isinstance(p, list) and p[0] in ("slice", "figure")), None)
    if unknown:
        raise TemplateError(M.text("not_allowed", source=source.strip(), problem=f"{unknown}: a live page "
                                   "recomputes it in the browser, which does not know it"))
    return json.dumps(form, ensure_ascii=False, separators=(",", ":"))


# --- tags, tokens and their text ----------------------------------------------------

@dataclass
class Tag:
    """One `{{ … }}` or `{% … %}` of a page, as written, and what became of its token."""

    index: int
    source: str  # the tag as written, e.g. "{{ p | dec(2) }}"
    start: int  # offset in the page text handed to `scan`
    where: str  # the page's file, for messages
    line: int  # line in the page's file
    expr: str | None  # the placeholder's text between the braces; None for a {% %} tag
    block: str | None  # the {% %} tag's name ('claim', 'endclaim', or a misspelt one)
    cond: str = ""
    contexts: list[str] = field(default_factory=list)  # where its token was found, in order
    shown: Shown | None = None  # what a placeholder in running text showed

    def error(self, message: str) -> TemplateError:
        return TemplateError(f"{self.where}:{self.line}: {message}")


@dataclass(frozen=True)
class Shown:
    """A placeholder's text in one context; `span` holds the attributes of its number's <span>."""

    text: str
    span: dict[str, str] | None = None
    value: object = None
    expr: str = ""
    filter: str | None = None  # the one it is shown with (the default for its type if none is named)
    args: tuple = ()
    markup: str | None = None  # raw HTML standing for the tag (a claim's element on a live page)

    def number(self, decimals: int | None = None) -> Fraction | None:
        """The number a reader reads, or reads with `decimals` places if the filter has places."""
        args = self.args if decimals is None or self.filter not in nf.PLACES else (decimals,)
        number = nf.shown_value(self.value, self.filter, args)
        return None if number is None else Fraction(number)


def scan(text: str, page: int, first_line: int = 1, where: str = "the page") -> tuple[str, list[Tag]]:
    """`text` with each tag replaced by its token, and the tags. Braces that run into a code span (a
    backtick) stay as written: the output check finds them outside code."""
    tags: list[Tag] = []

    def token(m: re.Match) -> str:
        if "`" in m.group(0) or "\ue000" in m.group(0):
            return m.group(0)
        tags.append(Tag(len(tags), m.group(0), m.start(), where, first_line + text.count("\n", 0, m.start()),
                        m.group("expr"), m.group("block"), (m.group("cond") or "").strip()))
        return f"\ue000p{page}t{len(tags) - 1}\ue001"

    return TAG.sub(token, text), tags


def value_of(tag: Tag, scope: Mapping[str, Entry]) -> tuple[object, list[str], str, str | None, tuple]:
    """(value, names used, expression, filter, its arguments) of a placeholder (filter after the last '|')."""
    expr, bar, filt = tag.expr.rpartition("|")
    m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*", filt, re.DOTALL)
    if not bar:
        expr, m = tag.expr, None
    elif not m:
        raise TemplateError(M.text("bad_filter", filter=filt.strip(), known=", ".join(nf.FILTERS)))
    value, used = evaluate(expr, scope)
    args = tuple(evaluate(f"({m.group(2)},)", scope)[0]) if m and m.group(2) and m.group(2).strip() else ()
    if isinstance(value, Table) and m:
        raise TemplateError(M.text("table_no_filter", filter=m.group(1)))
    return value, used, expr.strip(), m and m.group(1), args


def fill(tag: Tag, scope: Mapping[str, Entry], *, context: str, live: bool = False) -> Shown:
    """The text of `tag` in `context`: 'prose' (a number gets its provenance span), 'math' (LaTeX), 'plain'
    (attributes, titles) or 'code' (as written); on a `live` page with its compiled expression."""
    if context == "code":
        return Shown(tag.source)
    if tag.expr is None:
        return _claim_markup(tag, live and context == "prose")
    math = context == "math"
    try:
        value, used, expr, filt, args = value_of(tag, scope)
        if isinstance(value, FigureRef):
            raise TemplateError(M.text("figure_alone"))
        if isinstance(value, Table):
            raise TemplateError(M.text("table_alone"))
        if not used and not isinstance(value, str):
            raise TemplateError(M.text("no_value"))
        try:
            name = filt or nf.default_filter(value, math=math)
            text = nf.apply(value, filt, args, math=math)
        except Exception as exc:  # noqa: BLE001 - any formatter failure is the page's error
            shown_with = filt or "the default format"
            raise TemplateError(M.text("cannot_show", filter=shown_with, problem=exc)) from None
        shown = Shown(text, None, value, expr, name, args)
        if context == "prose" and used and nf.FILTERS[name].number and (
                nf.is_number(value) or isinstance(value, np.ndarray)):
            entry, form, what = scope[used[0]], compile_expression(expr), None
            # `what`, its {i}, {j} filled from `axes`; none for an expression, or an array shown whole
            with contextlib.suppress(AttributeError, LookupError):
                index = [int(i) for i in form.split(" ")[1:]]  # AttributeError for an expression
                labels = {k: axis[i] for k, i, axis in zip("ijklmn", index, entry.axes or (), strict=False)}
                # only {i}, {j} … are filled: any other brace is the description's own text
                fill_axis = lambda m: str(labels.get(m[1], m[0]))  # noqa: E731, B023 - used at once
                what = entry.what and re.sub(r"\{([ijklmn])\}", fill_axis, entry.what)
            shown = replace(shown, span=number_attrs(value, entry, what))
        if live and context == "prose" and shown.span is None and used and isinstance(value, str):
            # a computed word follows the reader's numbers
            shown = replace(shown, span={"class": "live-word"})
        if not live or (shown.span is None and not math):
            return shown
        if len(args) > 1 or (args and ":" in str(args[0])):
            raise TemplateError(M.text("not_allowed", source=f"{name}{args}",
                                       problem="a live page names a number's format as 'filter:argument'"))
        code, spec = compiled(expr), f"{name}:{args[0]}" if args else name
    except TemplateError as exc:
        raise tag.error(f"{{{{{tag.expr}}}}}: {exc}") from None
    if math:  # mathml.py lifts it out of the TeX into the formula's template
        return Shown(sentinels.slot(code, spec, shown.text))
    return replace(shown, span={**shown.span, "data-expr": code, "data-fmt": spec})


def _claim_markup(tag: Tag, live: bool) -> Shown:
    """A {% %} tag shows nothing; on a live page a claim in prose becomes the span holding its sentence."""
    if tag.block in MARKS:
        return Shown("")
    if tag.block not in BLOCKS:
        near = difflib.get_close_matches(tag.block or "", BLOCKS + MARKS, n=1)
        hint = f"did you mean '{{% {near[0]} … %}}'? " if near else ""
        raise tag.error(M.text("unknown_tag", tag=tag.source, hint=hint))
    if not live:
        return Shown("")
    if tag.block == "endclaim":
        return Shown("", markup="</span>")
    expr = html.escape(claim_expression(tag))
    return Shown("", markup=f'<span class="claim" data-claim="true" data-claim-expr="{expr}">')


def claim_expression(claim: Tag) -> str:
    """The compiled condition of a claim on a live page (the browser recomputes it)."""
    try:
        return compiled(claim_parts(claim)[0])
    except TemplateError as exc:
        raise claim.error(M.text("claim_error", cond=claim.cond, problem=exc)) from None


CONTEXT = re.compile(r";\s*context\s*:(?P<names>[^;]*)$")


def claim_parts(claim: Tag) -> tuple[str, list[str]]:
    """A claim's condition and the names it declares as context: `{% claim a > b; context: step, who %}`
    (values its sentence shows that label what the condition compares, not take part in it)."""
    m = CONTEXT.search(claim.cond)
    if m is None:
        return claim.cond, []
    names = [n.strip() for n in m.group("names").split(",")]
    if not all(re.fullmatch(r"[A-Za-z_][\w.]*", n) for n in names):
        raise claim.error(M.text("claim_context_syntax", cond=claim.cond))
    return claim.cond[:m.start()].strip(), names


def number_attrs(value, entry: Entry, what: str | None) -> dict[str, str]:
    """The attributes of a number's <span> (the HTML contract of the number popover)."""
    attrs = {"class": "num", "tabindex": "0", "data-exact": nf.fmt_exact(value), "data-what": what,
             "data-cite": entry.cite, "data-source": None if entry.cite else entry.source,
             "data-function": None if entry.cite else entry.function}
    return {key: value for key, value in attrs.items() if value}


def span_html(shown: Shown) -> str:
    """`shown` as HTML: its markup, the number's span, or escaped text."""
    if shown.markup is not None:
        return shown.markup
    if shown.span is None:
        return html.escape(shown.text, quote=False)
    attrs = " ".join(f'{k}="{html.escape(str(v), quote=True)}"' for k, v in shown.span.items())
    return f"<span {attrs}>{html.escape(shown.text, quote=False)}</span>"


def table_markdown(table: Table, name: str, entry: Entry, *, live: bool = False,
                   stash: Callable[[str], str] = lambda markup: markup) -> str:
    """A Table as Markdown, each number in its span (what: column and row; on a `live` page `name[r][j]`);
    `stash` sets the span's markup aside from Markdown (a row's label in its attribute stays as written)."""
    specs = table.column_specs()
    # a number's popover names its row by the first text column (a token), else by the first column,
    # written as the table shows it ("klucz xⱼ: 1,0", not "1.0")
    label = next((j for j, spec in enumerate(specs) if spec is None), 0)

    def row_label(row) -> str:
        return nf.fmt_spec(row[label], specs[label]) if specs[label] else str(row[label])

    cells = iter([(r, row, j) for r, row in enumerate(table.rows) for j, spec in enumerate(specs) if spec])

    def cell(value, spec):
        r, row, j = next(cells)  # kit.Table.to_markdown calls it row by row, left to right
        try:
            text = nf.fmt_spec(value, spec)
        except Exception as exc:  # noqa: BLE001
            raise TemplateError(M.text("table_cell", name=name, row=row[0], column=table.header[j],
                                       value=repr(value), spec=spec, problem=exc)) from None
        if not nf.is_number(value):
            return text
        attrs = number_attrs(value, entry, table.header[j] if j == label else f"{table.header[j]} "
                             f"({table.header[label]}: {row_label(row)})")
        if live:
            attrs |= {"data-expr": compiled(f"{name}[{r}][{j}]"), "data-fmt": spec}
        return stash(span_html(Shown(text, attrs)))

    return table.to_markdown(cell)


# --- claims, and the sums a reader can redo -------------------------------------------

def check_claims(tags: Iterable[Tag], text: str, scope: Mapping[str, Entry]) -> None:
    """Pair the {% claim %} tags outside code and check each on the exact values, then on the numbers its
    sentence shows (`text`: the page as handed to `scan`)."""
    claim: Tag | None = None
    inside: list[Tag] = []
    claims: list[tuple[Tag, Tag, list[Tag]]] = []
    for tag in sorted(tags, key=lambda t: t.index):
        if not tag.contexts or "code" in tag.contexts:
            continue
        if tag.block == "claim":
            if claim:
                raise claim.error(M.text("claim_open_again", line=tag.line))
            claim, inside = tag, []
        elif tag.block == "endclaim":
            if not claim:
                raise tag.error(M.text("endclaim_alone"))
            claims.append((claim, tag, inside))
            claim = None
        elif claim:
            inside.append(tag)
    if claim:
        raise claim.error(M.text("claim_never_closed"))
    # the values shown outside every claim (a value another claim shows is checked by that one)
    shown = [t for t in tags if t.expr is not None and _visible(t)
             and not any(c.start < t.start < e.start for c, e, _ in claims)]
    for claim, end, inside in claims:
        _check_claim(claim, end, inside, text, scope, shown)


def _visible(tag: Tag) -> bool:
    """Did the placeholder show its value to a reader (running text or math, not code or an attribute)?"""
    return any(c in ("prose", "math") for c in tag.contexts)


def canonical(form, scope: Mapping[str, Entry]):
    """`form` with every name written as `module.name`, however the page wrote it (`name` or
    `module.name`), so a claim and its sentence name one value alike."""
    if isinstance(form, str):
        name, *index = form.split(" ")
        return " ".join([_qualified(name, scope), *index])
    if not isinstance(form, list) or form[0] == "s":
        return form
    if form[0] == "cmp":
        return ["cmp", canonical(form[1], scope), [[op, canonical(r, scope)] for op, r in form[2]]]
    if form[0] == "f":
        return ["f", form[1], [canonical(a, scope) for a in form[2]]]
    if form[0] == "list":
        return ["list", [canonical(a, scope) for a in form[1]]]
    if form[0] == "figure":
        return form
    return [form[0], *(canonical(part, scope) for part in form[1:])]


def _qualified(name: str, scope: Mapping[str, Entry]) -> str:
    if "." in name or name not in scope:
        return name
    entry = scope[name]
    return next((key for key, e in scope.items() if e is entry and key.endswith("." + name)), name)


def expression_of(tag: Tag) -> str:
    """A placeholder's expression without its filter."""
    expr, bar, filt = tag.expr.rpartition("|")
    return expr if bar and re.fullmatch(r"\s*[A-Za-z_]\w*\s*(?:\(.*\))?\s*", filt, re.DOTALL) else tag.expr


def _reads(source: str, scope: Mapping[str, Entry]) -> list[str]:
    """The values (as `module.name`) the expression `source` reads."""
    return [_qualified(n, scope) for n in names_used(compile_expression(source))]


def is_statement(form) -> bool:
    """A comparison, `and`/`or`/`not` of statements, or all()/any() of a comparison or a list of them."""
    if not isinstance(form, list):
        return False
    if form[0] == "cmp":
        return True
    if form[0] in ("and", "or"):
        return all(is_statement(part) for part in form[1:])
    if form[0] == "not":
        return is_statement(form[1])
    if form[0] == "f" and form[1] in ("all", "any") and len(form[2]) == 1:
        arg = form[2][0]
        items = arg[1] if isinstance(arg, list) and arg[0] == "list" else [arg]
        return bool(items) and all(is_statement(item) for item in items)
    return False


def _paragraph(text: str, start: int, end: int) -> tuple[int, int]:
    """The offsets of the paragraph (text between blank lines, list items, table rows) holding
    text[start:end]."""
    blank = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]|\d+\.)[ \t]|[ \t]*\|)")
    before = [m.end() for m in blank.finditer(text, 0, start)]
    after = blank.search(text, end)
    return (before[-1] if before else 0), (after.start() if after else len(text))


def _check_coverage(claim: Tag, cond: str, context: list[str], inside: list[Tag], outside: list[Tag],
                    scope: Mapping[str, Entry]) -> None:
    """Every value the sentence shows takes part in the condition or is declared context; every value
    the condition compares that its paragraph shows is shown inside the claim; a value measured at a
    step (panel, token: its `at`) has that step related by the condition; a check's limit is never shown."""
    read = set(_reads(cond, scope))
    declared = {}
    for name in context:
        if name not in scope:
            raise claim.error(M.text("claim_error", cond=claim.cond, problem=_unknown(name, scope)))
        declared[_qualified(name, scope)] = name
    shown_inside: dict[str, Tag] = {}
    for tag in (t for t in inside if t.expr is not None and _visible(t)):
        for name in _reads(expression_of(tag), scope):
            shown_inside.setdefault(name, tag)
            if name not in read and name not in declared:
                raise tag.error(M.text("claim_unrelated", value=tag.source, name=name.split(".", 1)[1],
                                       cond=cond))
    for name, written in declared.items():
        if name not in shown_inside:
            raise claim.error(M.text("claim_context_unshown", name=written, cond=claim.cond))
        if name in read:
            raise claim.error(M.text("claim_context_read", name=written, cond=claim.cond))
    compared = {repr(part) for part in _walk(canonical(compile_expression(cond), scope))}
    inside_forms = {repr(canonical(compile_expression(expression_of(t)), scope)) for t in inside if t.expr}
    for tag in outside:
        form = repr(canonical(compile_expression(expression_of(tag)), scope))
        if form in compared and form not in inside_forms:
            raise tag.error(M.text("claim_number_outside", value=tag.source, cond=cond, line=claim.line))
    for name in sorted(read | set(shown_inside)):
        entry = scope[name]
        if entry.limit and name in shown_inside:
            raise shown_inside[name].error(M.text("limit_shown", name=name.split(".", 1)[1]))
        if entry.at:
            companion = f"{name.split('.', 1)[0]}.{entry.at}"
            if companion not in read:
                where = shown_inside.get(name, claim)
                raise where.error(M.text("claim_at_unrelated", name=name.split(".", 1)[1], at=entry.at,
                                         cond=cond))


def _numbers_shown(tags: Iterable[Tag], scope: Mapping[str, Entry] | None = None) -> dict[str, Shown]:
    """The repr of each expression `tags` show as one number in running text -> how it is shown (with a
    `scope`, its names written as `module.name`)."""
    numbers: dict[str, Shown] = {}
    for tag in tags:
        if tag.shown is not None and tag.shown.number() is not None:
            form = compile_expression(tag.shown.expr)
            numbers.setdefault(repr(form if scope is None else canonical(form, scope)), tag.shown)
    return numbers


def _places(shown: Iterable[Shown], works: Callable[[int], bool]) -> int | None:
    """The fewest decimal places, more than any of `shown` shows, for which `works`."""
    most = max((s.args[0] if s.args else nf.PLACES[s.filter] for s in shown if s.filter in nf.PLACES),
               default=0)
    return next((n for n in range(most + 1, nf.MAX_DECIMALS + 1) if works(n)), None)


def _check_claim(claim: Tag, end: Tag, inside: list[Tag], text: str, scope, shown: list[Tag]) -> None:
    """Check one claim; its sentence is quoted as a reader sees it (tags as shown, no markup); `shown`:
    the page's placeholders outside every claim."""
    out, pos = [], claim.start + len(claim.source)
    for tag in inside:
        out += [text[pos:tag.start], tag.shown.text if tag.shown else tag.source]
        pos = tag.start + len(tag.source)
    sentence = " ".join(re.sub(r"<[^>]+>", "", "".join(out) + text[pos:end.start]).split())
    cond, context = claim_parts(claim)
    if not cond:
        raise claim.error(M.text("claim_needs_condition"))
    try:
        tree = compile_expression(cond)
    except TemplateError as exc:
        raise claim.error(M.text("claim_error", cond=cond, problem=exc)) from None
    if not is_statement(tree):
        raise claim.error(M.text("claim_not_statement", cond=cond))
    first, last = _paragraph(text, claim.start, end.start)
    outside = [t for t in shown if first <= t.start < last]
    try:
        ok, used = evaluate(cond, scope)
    except TemplateError as exc:
        raise claim.error(M.text("claim_error", cond=cond, problem=exc)) from None
    if isinstance(ok, np.ndarray):
        raise claim.error(M.text("claim_arrays", cond=cond))
    if not ok:
        shown_values = "; ".join(f"{n} = " + (np.array2string(scope[n].value, precision=6, separator=", ")
                                 if isinstance(scope[n].value, np.ndarray) else repr(scope[n].value))
                                 for n in used)
        raise claim.error(M.text("false_claim", sentence=sentence, cond=cond, values=shown_values))
    _check_coverage(claim, cond, context, inside, outside, scope)
    tree, numbers = canonical(tree, scope), _numbers_shown(inside, scope)

    def holds(decimals: int | None) -> bool:
        try:
            with np.errstate(divide="raise", invalid="raise", over="raise", under="ignore"):
                return bool(_eval(tree, scope, {k: s.number(decimals) for k, s in numbers.items()}))
        except Exception:  # noqa: BLE001 - the condition as shown cannot be evaluated: the exact one holds
            return True

    if not numbers or holds(None):
        return
    read = [s for key, s in numbers.items() if key in {repr(n) for n in _walk(tree)}]
    n = _places(numbers.values(), holds)
    fix = "reword the sentence: the numbers agree to 12 decimal places"
    if n is not None:
        more = dict.fromkeys(nf.apply(s.value, s.filter, (n,)) if s.filter in nf.PLACES else s.text
                             for s in read)
        fix = f"show the numbers with {n} decimal places ({', '.join(more)}), or reword the sentence"
    texts = ", ".join(dict.fromkeys(s.text for s in read))
    raise claim.error(M.text("shown_claim", cond=cond, shown=texts, sentence=sentence, fix=fix))


def check_shown_sums(group: list[Tag]) -> None:
    """A shown `a - b` (`a + b - c`, …) whose terms a block also shows must equal what a reader gets from
    the terms as shown: 0,57 − 0,11 next to 0,45 stops the build."""
    numbers = _numbers_shown(group)
    for tag in group:  # every tag of a group showed text in prose
        total, tree = tag.shown, compile_expression(tag.shown.expr)
        others = {k: s for k, s in numbers.items() if k != repr(tree)}
        terms = _terms(tree, others) if total.number() is not None else None   # None: no sum of others
        if terms is None:
            continue

        def reader(decimals, terms=terms, total=total):
            value = sum(sign * shown.number(decimals) for sign, shown in terms)
            return nf.apply(float(value), total.filter, total.args)

        got = reader(None)
        if got == total.text:
            continue
        parts = "".join(("" if i == 0 and sign > 0 else " + " if sign > 0 else " \u2212 ") + shown.text
                        for i, (sign, shown) in enumerate(terms))
        shown_terms = [shown for _, shown in terms]
        n = _places(shown_terms, lambda n, reader=reader, total=total: reader(n) == total.text)
        raise tag.error(f"{{{{{tag.expr}}}}}: " + M.text(
            "shown_difference", shown=total.text, reader=parts, reader_result=got,
            digits="more decimal places" if n is None else f"{n} decimal places"))


def _terms(tree, shown: dict[str, Shown], sign: int = 1) -> list[tuple[int, Shown]] | None:
    """The shown expressions `tree` adds up (with their signs), or None if a term is not shown."""
    if repr(tree) in shown:
        return [(sign, shown[repr(tree)])]
    if isinstance(tree, list) and tree[0] in ("+", "-"):
        left = _terms(tree[1], shown, sign)
        right = _terms(tree[2], shown, sign if tree[0] == "+" else -sign)
        if left is not None and right is not None:
            return left + right
    return None


# --- what modules return, and the lab notebook ------------------------------------

JINJA_WORDS = ("and", "or", "not", "in", "is", "if", "else", "true", "false", "none", "True", "False", "None")


def reserved_names() -> list[str]:
    """Every name a module's value may not have, in the order the guide lists them."""
    return [*FUNCTIONS, "figure", *nf.FILTERS, *JINJA_WORDS]


def check_value_name(name: str, module_source: str, function: str | None) -> None:
    """Refuse a value named like a function, filter or word of the placeholder language."""
    kinds = (("a function", RESERVED), ("a filter", nf.FILTERS), ("a word", JINJA_WORDS))
    what = next((kind for kind, names in kinds if name in names), None)
    if what:
        raise TemplateError(f"{module_source}: " + M.text("reserved_name", function=function or "@values",
                                                          name=name, what=what, suggestion=f"{name}_value"))


def refuse_in_notebook(source: Path, where: str) -> None:
    """Stop at file:line on `{{` or `{%` outside code in a Markdown cell of a jupytext percent notebook
    (mkdocs-jupyter fills no placeholder)."""
    in_markdown = fenced = False   # the kind of the cell ("Markdown", "raw") when not code
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("# %%"):
            kinds = {"[markdown]": "Markdown", "[md]": "Markdown", "[raw]": "raw"}
            in_markdown, fenced = next((k for mark, k in kinds.items() if mark in line), False), False
            continue
        body = line[2:] if line.startswith("# ") else line.lstrip("#")
        if in_markdown and re.match(r"[ \t]*(`{3,}|~{3,})", body):
            fenced = not fenced
            continue
        m = re.search(r"\{\{|\{%", re.sub(r"(`+).+?\1", lambda c: " " * len(c.group(0)), body))
        if in_markdown and not fenced and m:
            raise TemplateError(f"{where}:{number}: " + M.text("notebook_placeholder", mark=m.group(0),
                                                                         kind=in_markdown))
