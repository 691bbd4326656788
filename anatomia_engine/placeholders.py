"""The placeholder language of the pages: `{{ expr | filter }}` and `{% claim %}` blocks.

Pure functions over a Markdown string; anatomia_engine/markdown.py calls `render` for each page
(under MkDocs and under Zensical). Expressions are Jinja2 expressions evaluated in a sandbox
(no attributes, no filters inside the expression, StrictUndefined); the one trailing filter
is looked up in the table of anatomia_engine/numfmt.py. Placeholders inside code (fenced
blocks and `code spans`) are left as they are; inside math (`\\( \\)`, `\\[ \\]`, `$$ $$`,
`\\begin{..}..\\end{..}`) numbers use LaTeX's `0{,}35`. Every failure raises TemplateError
naming `file:line`, the placeholder and what to do.
"""

from __future__ import annotations

import difflib
import functools
import html
import math as _math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from jinja2 import StrictUndefined, Undefined, nodes
from jinja2.exceptions import SecurityError, TemplateSyntaxError, UndefinedError
from jinja2.parser import Parser
from jinja2.sandbox import SandboxedEnvironment

from anatomia_engine import numfmt as nf
from anatomia_engine.kit import Table

PLACEHOLDER = r"\{\{(?!\{)(?P<expr>(?:(?!\n[ \t]*\n).)+?)\}\}"
TAG = re.compile(PLACEHOLDER + r"|\{%-?[ \t]*(?P<block>[A-Za-z_]\w*)?(?P<cond>[^\n]*?)-?%\}", re.DOTALL)
STRAY_OPEN = re.compile(r"\{\{(?!\{)|\{%")
STRAY_CLOSE = re.compile(r"\}\}|%\}")
BLOCKS = ("claim", "endclaim")
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
    """One named value and where it comes from (for error messages and the number's popover)."""

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


class _Sandbox(SandboxedEnvironment):
    """Jinja2's sandbox with nothing but our names: no attributes (except `module.name`),
    no filters or tests inside an expression, no globals but FUNCTIONS."""

    def is_safe_attribute(self, obj, attr, value) -> bool:
        return False

    def is_safe_callable(self, obj) -> bool:
        return isinstance(obj, _Figure) or any(obj is f for f in FUNCTIONS.values())


_ENV = _Sandbox(undefined=StrictUndefined)
_ENV.filters.clear()
_ENV.tests.clear()
_ENV.globals.clear()


class _Figure:
    """`figure("name")`: a reference to a figure of the scope."""

    def __init__(self, scope: Mapping[str, Entry]):
        self._scope = scope

    def __call__(self, name) -> FigureRef:
        if not isinstance(name, str):
            raise TemplateError('write a figure as figure("name")')
        if name not in self._scope:
            raise TemplateError(_unknown(name, self._scope))
        ref = self._scope[name].value
        if not isinstance(ref, FigureRef):
            raise TemplateError(f"'{name}' is a value, not a figure")
        return ref


class _Module:
    """`module.name` inside an expression: Jinja falls back to item access for attributes."""

    __slots__ = ("_name", "_scope")

    def __init__(self, name: str, scope: Mapping[str, Entry]):
        self._name, self._scope = name, scope

    def __getitem__(self, key: str):
        qualified = f"{self._name}.{key}"
        if qualified not in self._scope:
            raise TemplateError(_unknown(qualified, self._scope))
        return self._scope[qualified].value


def _unknown(name: str, scope: Mapping[str, Entry]) -> str:
    near = difflib.get_close_matches(name, list(scope), n=3, cutoff=0.6)
    if near:
        hint = "did you mean " + " or ".join(f"'{n}'" for n in near) + "?"
    elif not any("." not in k for k in scope):
        hint = "list the module that computes it under 'computed:' in the front matter, or write module.name"
    else:
        hint = "check the name returned by the module's @values function (or write module.name)"
    return f"unknown value '{name}'; {hint}"


@functools.lru_cache(maxsize=4096)
def _parse(source: str) -> nodes.Expr:
    parser = Parser(_ENV, source, state="variable")
    expr = parser.parse_expression()
    if parser.stream.current.type != "eof":
        raise TemplateSyntaxError(f"unexpected '{parser.stream.current.value}'", parser.stream.current.lineno)
    return expr


@functools.lru_cache(maxsize=4096)
def _compile(source: str):
    return _ENV.compile_expression(source, undefined_to_none=False)


def _walk(tree: nodes.Node, kind):
    if isinstance(tree, kind):
        yield tree
    yield from tree.find_all(kind)


def names_used(tree: nodes.Node, scope: Mapping[str, Entry]) -> list[str]:
    """Scope names an expression reads, in order: `w`, `demo.p` (for `demo.p`)."""
    used: list[str] = []
    for node in _walk(tree, (nodes.Name, nodes.Getattr)):
        if isinstance(node, nodes.Getattr) and isinstance(node.node, nodes.Name):
            qualified = f"{node.node.name}.{node.attr}"
            if node.node.name not in scope and qualified in scope:
                used.append(qualified)
        elif isinstance(node, nodes.Name) and node.name in scope:
            used.append(node.name)
    return list(dict.fromkeys(used))


def evaluate(source: str, scope: Mapping[str, Entry]) -> tuple[object, list[str]]:
    """Value of the expression `source` and the scope names it used; TemplateError on any failure."""
    source = source.strip()
    try:
        tree = _parse(source)
        compiled = _compile(source)
    except TemplateSyntaxError as exc:
        raise TemplateError(f"cannot read the expression '{source}': {exc.message}; "
                            "write a name, name[i][j], module.name, arithmetic, comparisons "
                            f"or {', '.join(sorted(RESERVED))}(...)") from None
    modules = {k.split(".", 1)[0] for k in scope if "." in k}
    for node in _walk(tree, nodes.Name):
        if node.name in scope or node.name in modules or node.name in RESERVED:
            continue
        raise TemplateError(_unknown(node.name, scope))
    for node in _walk(tree, nodes.Filter):
        raise TemplateError(f"only one filter, at the end: write '{{{{ expression | {node.name} }}}}'")
    for node in _walk(tree, nodes.Test):
        raise TemplateError(f"'is {node.name}' tests are not part of the placeholder language")

    context: dict[str, object] = {m: _Module(m, scope) for m in modules}
    context.update({k: e.value for k, e in scope.items() if "." not in k})
    context.update(FUNCTIONS)
    context["figure"] = _Figure(scope)
    try:
        with np.errstate(divide="raise", invalid="raise", over="raise", under="ignore"):
            value = compiled(**context)
            if isinstance(value, Undefined):
                value._fail_with_undefined_error()
    except TemplateError:
        raise
    except SecurityError as exc:
        raise TemplateError(f"'{source}' is not allowed ({exc}); a placeholder reads values by name, "
                            "module.name or name[i][j] only") from None
    except UndefinedError as exc:
        raise TemplateError(f"'{source}': {exc} (an index out of range or a wrong key?)") from None
    except Exception as exc:  # noqa: BLE001 - every failure must name the page and line
        raise TemplateError(f"cannot evaluate '{source}': {type(exc).__name__}: {exc}") from None
    return value, names_used(tree, scope)


def _reference(tree: nodes.Node, scope: Mapping[str, Entry]) -> tuple[str, tuple[int, ...]] | None:
    """`name[i][j]` (or `name[i, j]`, `module.name[i]`) -> (scope name, (i, j)); else None."""
    index: list[int] = []
    node = tree
    while isinstance(node, nodes.Getitem):
        arg = node.arg
        items = arg.items if isinstance(arg, nodes.Tuple) else [arg]
        if not all(isinstance(a, nodes.Const) and isinstance(a.value, int) for a in items):
            return None
        index[:0] = [a.value for a in items]
        node = node.node
    if isinstance(node, nodes.Name) and node.name in scope:
        return node.name, tuple(index)
    if isinstance(node, nodes.Getattr) and isinstance(node.node, nodes.Name):
        qualified = f"{node.node.name}.{node.attr}"
        if qualified in scope:
            return qualified, tuple(index)
    return None


def describe(entry: Entry, index: tuple[int, ...] = ()) -> str | None:
    """The entry's `what`, with {i}, {j}, … filled from `axes` for an indexed element."""
    if not entry.what:
        return None
    labels = {}
    for letter, i, axis in zip("ijklmn", index, entry.axes or (), strict=False):
        try:
            labels[letter] = axis[i]
        except (IndexError, TypeError):
            return None
    try:
        return entry.what.format(**labels)
    except (KeyError, IndexError, ValueError):
        return None  # an array shown whole, or a template that needs more indices


def number_span(text: str, value, entry: Entry, what: str | None) -> str:
    """A number in prose with its provenance (the HTML contract of the number popover)."""
    attrs = [("class", "num"), ("tabindex", "0"), ("data-exact", nf.fmt_exact(value))]
    if what:
        attrs.append(("data-what", what))
    if entry.cite:
        attrs.append(("data-cite", entry.cite))
    else:
        attrs.append(("data-source", entry.source))
        if entry.function:
            attrs.append(("data-function", entry.function))
    shown = " ".join(f'{k}="{html.escape(str(v), quote=True)}"' for k, v in attrs)
    return f"<span {shown}>{text}</span>"


# --- formatting ---------------------------------------------------------------------

def _split_filter(text: str) -> tuple[str, str | None, str | None]:
    """'expr | name(args)' -> (expr, name, args text); the filter is the last top-level '|'."""
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
            m = re.fullmatch(r"([A-Za-z_]\w*)\s*(?:\((.*)\))?", filt, re.DOTALL)
            if not m:
                raise TemplateError(f"cannot read the filter '{filt}'; write e.g. | dec(2); "
                                    f"known: {nf.known()}")
            return expr, m.group(1), m.group(2)
    return text, None, None


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def format_value(value, filt: str | None, args: tuple, *, math: bool) -> str:
    """Text of `value` under `filt` (None = the default for its type), in prose or math."""
    try:
        return nf.apply(value, filt, args, math=math)
    except Exception as exc:  # noqa: BLE001 - any formatter failure is the page's error
        shown = filt or "the default format"
        raise TemplateError(f"cannot show this value with '{shown}': {exc}") from None


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


def _stray(text: str, code, math_spans, tags) -> tuple[int, str] | None:
    """The first `{{`, `{%` (outside code) or `}}`, `%}` (outside code and math) that belongs to
    no placeholder or tag: a misspelt or unbalanced one would otherwise be published verbatim."""
    found = []
    for pattern, skip in ((STRAY_OPEN, code), (STRAY_CLOSE, code + math_spans)):
        for m in pattern.finditer(text):
            a, b = m.start(), m.end() - 1
            if _inside(a, skip) or _inside(a, tags) or _inside(b, tags):
                continue
            found.append((a, m.group()))
    return min(found) if found else None


def render(text: str, scope: Mapping[str, Entry], *, where: str, first_line: int = 1,
           figure: FigureRenderer | None = None) -> str:
    """Replace placeholders in the Markdown `text`; raise TemplateError naming `where:line`."""
    code, math_spans = regions(text)
    matches = [m for m in TAG.finditer(text) if not _inside(m.start(), code)]

    def fail(at: int, message: str) -> TemplateError:
        return TemplateError(f"{where}:{first_line - 1 + _line_of(text, at)}: {message}")

    stray = _stray(text, code, math_spans, [m.span() for m in matches])
    if stray:
        at, mark = stray
        line_end = text.find("\n", at)
        snippet = text[at: line_end if line_end >= 0 else len(text)][:60].strip()
        closing = {"{{": "}}", "{%": "%}", "}}": "{{", "%}": "{%"}[mark]
        raise fail(at, f"'{mark}' without a matching '{closing}' in '{snippet}': a placeholder is "
                   "{{ name }}, a claim {% claim condition %}…{% endclaim %}; to show the braces "
                   "themselves put them in `code`")
    out: list[str] = []
    pos = 0
    claim: tuple[int, str, int] | None = None  # (position, condition, index in out)
    for m in matches:
        out.append(text[pos:m.start()])
        pos = m.end()
        block = m.group("block")
        if m.group("expr") is None and block not in BLOCKS:
            tag = m.group(0)
            near = difflib.get_close_matches(block or "", BLOCKS, n=1)
            hint = f"did you mean '{{% {near[0]} … %}}'? " if near else ""
            raise fail(m.start(), f"unknown tag '{tag}'; {hint}the only tags are "
                       "{% claim condition %} and {% endclaim %}")
        if block == "claim":
            if claim:
                raise fail(claim[0], "{% claim %} is never closed by {% endclaim %} (another claim starts "
                           f"at line {first_line - 1 + _line_of(text, m.start())}); add {{% endclaim %}} "
                           "after its sentence")
            claim = (m.start(), m.group("cond").strip(), len(out))
            continue
        if block == "endclaim":
            if not claim:
                raise fail(m.start(), "{% endclaim %} without {% claim ... %}; remove it or open the claim")
            start, cond, index = claim
            sentence = "".join(out[index:])
            _check_claim(cond, sentence, scope, lambda msg, at=start: fail(at, msg))
            claim = None
            continue
        in_math = _inside(m.start(), math_spans)
        try:
            out.append(_placeholder(m.group("expr"), scope, math=in_math, figure=figure,
                                    indent=_own_line(text, m.start(), m.end())))
        except TemplateError as exc:
            raise fail(m.start(), f"{{{{{m.group('expr')}}}}}: {exc}") from None
    if claim:
        raise fail(claim[0], "{% claim %} is never closed by {% endclaim %}; add {% endclaim %} after "
                   "its sentence")
    out.append(text[pos:])
    return "".join(out)


def _placeholder(expr_text: str, scope, *, math: bool, figure, indent: str | None) -> str:
    expr, filt, args_text = _split_filter(expr_text)
    value, used = evaluate(expr, scope)
    args: tuple = ()
    if args_text is not None and args_text.strip():
        args, _ = evaluate(f"({args_text},)", scope)
    if isinstance(value, FigureRef):
        if figure is None or indent is None:
            raise TemplateError("figure(...) must stand alone on its own line")
        return figure(value.name, indent)
    if isinstance(value, Table):
        if filt is not None:
            raise TemplateError(f"a table takes no filter (got '{filt}'); its columns carry their formats")
        if indent is None or math:
            raise TemplateError("a table must stand alone on its own line, outside math")
        return _indent(table_markdown(value, expr.strip(), scope[used[0]]), indent)
    if not used and not isinstance(value, str):
        raise TemplateError("the placeholder names no computed value; write the value's name, "
                            "e.g. {{ name | dec(2) }}")
    text = format_value(value, filt, args, math=math)
    number = nf.FILTERS[filt or nf.default_filter(value, math=math)].number
    if math or not used or not number or not (_is_number(value) or isinstance(value, np.ndarray)):
        return text
    entry = scope[used[0]]
    ref = _reference(_parse(expr.strip()), scope)
    what = describe(scope[ref[0]], ref[1]) if ref else None
    return number_span(text, value, entry, what)


def check_table(table: Table, name: str) -> None:
    """Refuse a table with NaN or infinity in any cell, naming the row and the column."""
    for r, row in enumerate(table.rows, start=1):
        for header, cell in zip(table.header, row, strict=True):
            if _is_number(cell) and not _math.isfinite(float(cell)):
                raise TemplateError(f"table '{name}', row {r} ({row[0]}), column '{header}': the value is "
                                    f"{float(cell)}; fix the computation in the module (a table never shows "
                                    "NaN or infinity)")


def table_markdown(table: Table, name: str, entry: Entry) -> str:
    """A Table as Markdown; every formatted cell carries the number span (what: column and row)."""
    check_table(table, name)
    specs = table.column_specs()
    cells = iter([(row, j) for row in table.rows for j, spec in enumerate(specs) if spec])

    def cell(value, spec):
        row, j = next(cells)
        if row[j] is not value:
            raise TemplateError(f"table '{name}': cells arrive out of order")  # kit.Table changed
        try:
            text = nf.fmt_spec(value, spec)
        except Exception as exc:  # noqa: BLE001
            raise TemplateError(f"table '{name}', row {row[0]}, column '{table.header[j]}': cannot show "
                                f"{value!r} with '{spec}': {exc}") from None
        if not _is_number(value):
            return text
        what = table.header[j] if j == 0 else f"{table.header[j]}: {row[0]}"
        return number_span(text, value, entry, what)

    return table.to_markdown(cell)


def _indent(block: str, indent: str) -> str:
    lines = block.split("\n")
    return lines[0] + "".join("\n" + (indent + line if line else "") for line in lines[1:])


def _has_nan(value) -> bool:
    if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
        return bool(np.isnan(value).any())
    return _is_number(value) and _math.isnan(float(value))


def _check_claim(cond: str, sentence: str, scope, fail: Callable[[str], TemplateError]) -> None:
    if not cond:
        raise fail("{% claim %} needs a condition, e.g. {% claim a > b %}")
    quoted = " ".join(re.sub(r"<[^>]+>", "", sentence).split())
    try:
        ok, used = evaluate(cond, scope)
    except TemplateError as exc:
        raise fail(f"claim '{cond}': {exc}") from None
    nan = [n for n in used if _has_nan(scope[n].value)]
    if nan:
        raise fail(f"claim '{cond}' uses {', '.join(nan)}, which is NaN (not a number): a comparison "
                   "with NaN is always false; fix the computation in the module")
    if isinstance(ok, np.ndarray):
        raise fail(f"claim '{cond}' compares arrays; use all(...) or any(...)")
    if not ok:
        shown = "; ".join(f"{n} = {_short(scope[n].value)}" for n in used)
        raise fail(f"false claim: \u201e{quoted}\u201d \u2014 the condition '{cond}' does not hold "
                   f"({shown}); correct the sentence (or the computation)")


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=6, separator=", ")
    return repr(value)
