"""Expressions of the placeholder language: compiled once, evaluated on a page's values.

An expression is written in Jinja2's expression syntax and read by Jinja2's parser; it is never
run by Jinja2. `compile_expression` turns the parsed tree into a compact form of JSON-like lists,
which `run` (here) and docs/javascripts/explorer.js (in the browser, on a live page) evaluate:

- a name with constant indices is one string: "w 2 1" for `w[2][1]` or `w[2, 1]`;
- a number, True, False or None is itself; a string is ["s", text];
- an operation is a list, its name first: ["+", a, b], ["cmp", a, [["gt", b]]],
  ["f", "abs", [x]], ["i", obj, key], ["if", test, yes, no], ["list", [items]], ...

The language is small: names, indices, arithmetic, comparisons, `and`/`or`/`not`, `a if c else
b`, lists and the functions of FUNCTIONS. Everything else (attributes, calls of anything else,
filters inside an expression, Jinja tests) is refused when the expression is compiled.

An expression runs inside the build, so its cost is bounded (see "What an expression may cost").
Every refusal is an EngineError with a catalogue id and no place: the caller knows the page and
line and adds them.
"""

from __future__ import annotations

import functools
import json
import math
import operator
from collections.abc import Callable, Mapping
from fractions import Fraction

import numpy as np
from jinja2 import Environment, nodes
from jinja2.exceptions import TemplateSyntaxError
from jinja2.parser import Parser

from anatomia_engine.errors import EngineError

# Only its expression parser is used: evaluation is `run` below.
_ENV = Environment()


# --- what an expression may cost ----------------------------------------------------------
# A page's expression runs inside the build: each limit keeps one placeholder from hanging it or
# filling memory (10 ** (10 ** 10), "x" * 10 ** 8, a thousand nested brackets). Each is far above
# what a page shows: a whole number a reader can read, a sentence, a short list.

MAX_DEPTH = 40  # operations nested inside one another
MAX_INT_BITS = 1024  # a whole number: about 308 digits, a double's range
MAX_LENGTH = 10_000  # characters of a text, items of a list (its nested lists counted too)
MAX_ELEMENTS = 1_000_000  # elements of an array an operation makes from smaller ones

SEQUENCES = (str, list, tuple)


def _size(x) -> int:
    """Characters of a text, items of a list or tuple counted with their nested items; else 1."""
    if isinstance(x, str):
        return len(x)
    # a number or an array counts as one: arrays have their own limit, MAX_ELEMENTS
    if not isinstance(x, (list, tuple)):
        return 1
    total = len(x)
    for item in x:
        if isinstance(item, SEQUENCES):
            total += _size(item) - 1
        # A list holding itself many times is large only by reference: stop once it is too long.
        if total > MAX_LENGTH:
            break
    return total


def _bits(x) -> int:
    """Binary digits of a whole number (or of a fraction's larger part); 0 for anything else."""
    # True is an int to Python, but no number a page grows
    if isinstance(x, bool):
        return 0
    if isinstance(x, int):
        return x.bit_length()
    if isinstance(x, Fraction):
        return max(x.numerator.bit_length(), x.denominator.bit_length())
    return 0


def _check_integer(result) -> None:
    if _bits(result) > MAX_INT_BITS:
        raise EngineError("expr_integer", bits=_bits(result), most=MAX_INT_BITS)


def bounded(result):
    """`result` if it is within the limits; else the limit it breaks."""
    _check_integer(result)
    if isinstance(result, SEQUENCES) and _size(result) > MAX_LENGTH:
        raise EngineError("expr_length", length=_size(result), most=MAX_LENGTH)
    return result


def _short(x) -> str:
    """A number as a message quotes it: its digits, or how many there are."""
    text = repr(x)
    if len(text) <= 20:
        return text
    return f"a number of {len(text)} digits"


def _refuse_costly(fn: Callable, a, b) -> None:
    """Refuse the operation `fn(a, b)` before it runs if its result would break a limit."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        shapes = [np.shape(a), np.shape(b)]
        elements = int(np.prod(np.broadcast_shapes(*shapes)))
        # an operation on one large array of a module is fine; a broadcast that multiplies is not
        largest_operand = max(int(np.prod(shape)) for shape in shapes)
        if elements > max(MAX_ELEMENTS, largest_operand):
            raise EngineError("expr_elements", elements=elements, most=MAX_ELEMENTS)
    whole_exponent = isinstance(b, int) and not isinstance(b, bool)
    if fn is operator.pow and whole_exponent and _bits(a) > 1:
        # the size of the result is known before computing it
        if _bits(a) * abs(b) > 2 * MAX_INT_BITS:
            raise EngineError("expr_power", base=_short(a), exponent=_short(b), most=MAX_INT_BITS)
    if fn is operator.mul:
        times, seq = (b, a) if isinstance(a, SEQUENCES) else (a, b)
        repeated = isinstance(seq, SEQUENCES) and isinstance(times, (int, np.integer))
        if repeated and _size(seq) * int(times) > MAX_LENGTH:
            raise EngineError("expr_length", length=_size(seq) * int(times), most=MAX_LENGTH)
    if fn is operator.mod and isinstance(a, str):
        # "%09999999d" % 1 is Python's printf, not arithmetic
        raise EngineError("expr_text_format")


def _checked(fn: Callable) -> Callable:
    """The binary operation `fn`, refused before it runs if it would cost too much, and its
    result checked after."""

    def run_checked(a, b):
        _refuse_costly(fn, a, b)
        return bounded(fn(a, b))

    return run_checked


# --- the functions and operators --------------------------------------------------------------
# Rounding is for display only, so there is no round(): a page rounds with a filter.

def _abs(x):
    if isinstance(x, np.ndarray):
        return np.abs(x)
    return abs(x)


def _max(*args):
    # max(array) is its largest element; max(a, b) the larger of two values
    if len(args) == 1:
        return np.max(args[0])
    return max(args)


def _min(*args):
    if len(args) == 1:
        return np.min(args[0])
    return min(args)


def _sum(x):
    return np.sum(x)


def _argmax(x) -> int:
    return int(np.argmax(x))


def _argmin(x) -> int:
    return int(np.argmin(x))


def _sorted(x) -> list:
    return sorted(np.asarray(x).tolist())


def _all(x) -> bool:
    return bool(np.all(x))


def _any(x) -> bool:
    return bool(np.any(x))


FUNCTIONS: dict[str, Callable] = {
    "abs": _abs,
    "max": _max,
    "min": _min,
    "len": len,
    "sum": _sum,
    "sqrt": math.sqrt,
    "exp": math.exp,
    "argmax": _argmax,
    "argmin": _argmin,
    "sorted": _sorted,
    "all": _all,
    "any": _any,
}
# Names a page cannot give a value: the functions, and `figure(...)`, which shows a figure.
RESERVED = {*FUNCTIONS, "figure"}


def _contains(a, b) -> bool:
    return a in b


def _not_contains(a, b) -> bool:
    return a not in b


# Jinja's operator names; docs/javascripts/explorer.js names the operations of the compiled form
# by them too.
OPERATORS = {
    "+": _checked(operator.add),
    "-": _checked(operator.sub),
    "*": _checked(operator.mul),
    "/": _checked(operator.truediv),
    "//": _checked(operator.floordiv),
    "%": _checked(operator.mod),
    "**": _checked(operator.pow),
    "neg": operator.neg,
    "pos": operator.pos,
    "not": operator.not_,
}
COMPARISONS = {
    "eq": _checked(operator.eq),
    "ne": _checked(operator.ne),
    "gt": _checked(operator.gt),
    "gteq": _checked(operator.ge),
    "lt": _checked(operator.lt),
    "lteq": _checked(operator.le),
    "in": _checked(_contains),
    "notin": _checked(_not_contains),
}


# --- compiling ---------------------------------------------------------------------------------

def quote(source: str) -> str:
    """An expression as a message quotes it: whole, or its first 57 characters."""
    if len(source) <= 60:
        return source
    return source[:57] + "..."


@functools.lru_cache(maxsize=4096)
def compile_expression(source: str):
    """The expression `source` in its compiled form (see the module's docstring).

    The form is cached and shared: never mutate it.
    """
    source = source.strip()
    try:
        parser = Parser(_ENV, source, state="variable")
        tree = parser.parse_expression()
        rest = parser.stream.current
        if rest.type != "eof":
            raise TemplateSyntaxError(f"unexpected '{rest.value}'", rest.lineno)
    except TemplateSyntaxError as exc:
        functions = ", ".join(sorted(RESERVED))
        raise EngineError("bad_expression", source=source, problem=exc.message,
                          functions=functions) from None
    except RecursionError:
        # Jinja's parser recurses for each bracket and unary sign
        raise EngineError("expr_depth", source=quote(source), depth=f"more than {MAX_DEPTH}",
                          most=MAX_DEPTH) from None
    depth = _depth(tree)
    # `_compile` and `run` recurse once per level: the depth is checked before either runs
    if depth > MAX_DEPTH:
        raise EngineError("expr_depth", source=quote(source), depth=depth, most=MAX_DEPTH)
    return _Compiler(source).form(tree)


def _depth(tree: nodes.Node) -> int:
    """How deep the operations of a parsed expression nest, counted without recursion."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in node.iter_child_nodes():
            stack.append((child, depth + 1))
    return deepest


class _Compiler:
    """Turns a parsed expression into its compiled form, one method per kind of node."""

    def __init__(self, source: str) -> None:
        self.source = source

    def not_allowed(self, problem: str) -> EngineError:
        return EngineError("not_allowed", source=self.source, problem=problem)

    def form(self, node: nodes.Node):
        if isinstance(node, nodes.Name):
            return node.name
        if isinstance(node, nodes.Getattr) and isinstance(node.node, nodes.Name):
            # module.name: the only attribute the language has
            return f"{node.node.name}.{node.attr}"
        if isinstance(node, nodes.Getitem):
            return self.item(node)
        if isinstance(node, nodes.Const):
            return self.constant(node.value)
        if isinstance(node, nodes.Slice):
            bounds = [node.start, node.stop, node.step]
            return ["slice", *[self.optional(bound) for bound in bounds]]
        if isinstance(node, (nodes.Tuple, nodes.List)):
            return ["list", [self.form(item) for item in node.items]]
        if isinstance(node, nodes.BinExpr):
            # arithmetic, `and`, `or`
            return [node.operator, self.form(node.left), self.form(node.right)]
        if isinstance(node, nodes.UnaryExpr):
            return [type(node).__name__.lower(), self.form(node.node)]
        if isinstance(node, nodes.Compare):
            comparisons = [[op.op, self.form(op.expr)] for op in node.ops]
            return ["cmp", self.form(node.expr), comparisons]
        if isinstance(node, nodes.CondExpr) and node.expr2 is not None:
            return ["if", self.form(node.test), self.form(node.expr1), self.form(node.expr2)]
        if isinstance(node, nodes.Filter):
            # a placeholder has one filter, after its last '|', read before the expression is
            raise EngineError("one_filter", name=node.name)
        if isinstance(node, nodes.Test):
            raise EngineError("no_tests", name=node.name)
        if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name):
            return self.call(node)
        raise self.not_allowed(f"{type(node).__name__} is not part of the placeholder language")

    def optional(self, node: nodes.Node | None):
        if node is None:
            return None
        return self.form(node)

    def constant(self, value):
        # a string is tagged, so that a name ("w 1") and a text ("w 1") differ
        if isinstance(value, str):
            return ["s", value]
        # numbers, True, False and None are JSON as they are
        return value

    def item(self, node: nodes.Getitem):
        obj = self.form(node.node)
        key = self.form(node.arg)
        several = isinstance(node.arg, nodes.Tuple)
        keys = key[1] if several else [key]
        # a name with constant whole-number indices is one string: explorer.js reads it as one path
        if isinstance(obj, str) and all(type(k) is int for k in keys):
            return " ".join([obj, *map(str, keys)])
        if several:
            raise self.not_allowed("name[i, j] takes constant indices; write name[i][j]")
        return ["i", obj, key]

    def call(self, node: nodes.Call):
        function = node.node.name
        if node.kwargs or node.dyn_args or node.dyn_kwargs:
            raise self.not_allowed("Call is not part of the placeholder language")
        if function not in RESERVED:
            raise EngineError("unknown_value", name=function)
        if function != "figure":
            return ["f", function, [self.form(arg) for arg in node.args]]
        name = node.args[0] if len(node.args) == 1 else None
        if not isinstance(name, nodes.Const) or not isinstance(name.value, str):
            raise EngineError("figure_by_name")
        return ["figure", name.value]


# --- reading a compiled form -----------------------------------------------------------------

def parts(form) -> list:
    """The sub-expressions of a compiled expression: none for a name or a constant."""
    if not isinstance(form, list) or form[0] == "s":
        return []
    if form[0] in ("f", "list"):
        return form[-1]
    if form[0] == "cmp":
        return [form[1], *[right for _, right in form[2]]]
    return form[1:]


def walk(form):
    """`form` and every sub-expression of it, outermost first."""
    yield form
    for part in parts(form):
        yield from walk(part)


def names_used(form) -> list[str]:
    """The names a compiled expression reads, in order: `w`, `demo.p` (for `demo.p[0]`)."""
    names = []
    for part in walk(form):
        if isinstance(part, str):
            names.append(part.split(" ")[0])
    return list(dict.fromkeys(names))


def compiled(source: str) -> str:
    """The compiled expression `source` as compact JSON (an attribute's value), for a live page."""
    form = compile_expression(source)
    for part in walk(form):
        # the browser's evaluator knows neither slices nor figures
        if isinstance(part, list) and part[0] in ("slice", "figure"):
            problem = f"{part[0]}: a live page recomputes it in the browser, which does not know it"
            raise EngineError("not_allowed", source=source.strip(), problem=problem)
    return json.dumps(form, ensure_ascii=False, separators=(",", ":"))


# --- evaluating ----------------------------------------------------------------------------------

def _compare(ev: Callable, left, comparisons):
    """A chained comparison (a < b < c), stopping at the first false one; arrays compare
    elementwise."""
    left = ev(left)
    for name, right in comparisons:
        right = ev(right)
        result = COMPARISONS[name](left, right)
        if isinstance(result, np.ndarray) or not result:
            return result
        left = right
    return result


def _operator(name: str) -> Callable:
    # every operand is evaluated before the operator runs (`and`, `or`, `if` are not operators)
    def apply(ev: Callable, *operands):
        return OPERATORS[name](*[ev(operand) for operand in operands])

    return apply


def _string(ev: Callable, text: str) -> str:
    return text


def _index(ev: Callable, obj, key):
    return ev(obj)[ev(key)]


def _slice(ev: Callable, *bounds) -> slice:
    return slice(*[ev(bound) for bound in bounds])


def _list(ev: Callable, items) -> list:
    return bounded([ev(item) for item in items])


def _and(ev: Callable, left, right):
    return ev(left) and ev(right)


def _or(ev: Callable, left, right):
    return ev(left) or ev(right)


def _if(ev: Callable, test, yes, no):
    # only the branch taken is evaluated, as in Python
    if ev(test):
        return ev(yes)
    return ev(no)


def _function(ev: Callable, name: str, args):
    result = FUNCTIONS[name](*[ev(arg) for arg in args])
    # sum() of whole numbers each within the limit may not be
    _check_integer(result)
    return result


def _figure(ev: Callable, name: str):
    return ev(name)


# How `run` computes each operation of the compiled form, from its evaluator and its operands.
_OPERATIONS: dict[str, Callable] = {
    **{name: _operator(name) for name in OPERATORS},
    "s": _string,
    "i": _index,
    "slice": _slice,
    "list": _list,
    "and": _and,
    "or": _or,
    "if": _if,
    "cmp": _compare,
    "f": _function,
    "figure": _figure,
}


def run(form, scope: Mapping, shown: Mapping[str, Fraction] | None = None):
    """Evaluate a compiled expression on `scope` (name -> an entry with a `.value`), with
    Python's semantics.

    With `shown` (the repr of an operand -> the number a reader reads), each comparison a
    reader can redo uses those numbers, exactly: 0,35 − 0,34 is 0,01. A comparison whose
    operands the sentence does not all show holds for the exact values.
    """
    if shown is not None:
        if repr(form) in shown:
            return shown[repr(form)]
        if isinstance(form, float):
            return Fraction(repr(form))
        is_comparison = isinstance(form, list) and form[0] == "cmp"
        if is_comparison and not all(covered(part, shown) for part in parts(form)):
            shown = None
    if isinstance(form, str):
        return _lookup(form, scope)
    # a constant compiles to itself
    if not isinstance(form, list):
        return form
    ev = functools.partial(run, scope=scope, shown=shown)
    return _OPERATIONS[form[0]](ev, *form[1:])


def _lookup(path: str, scope: Mapping):
    """The value of a name with its constant indices: "w 1 0" is w[1][0]."""
    name, *indices = path.split(" ")
    value = scope[name].value
    for index in indices:
        value = value[int(index)]
    return value


def covered(form, shown: Mapping[str, Fraction]) -> bool:
    """Is every value `form` reads shown in the sentence (so a reader can redo it)?"""
    if repr(form) in shown:
        return True
    if isinstance(form, str):
        return False
    return all(covered(part, shown) for part in parts(form))
