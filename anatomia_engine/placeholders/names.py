"""The names an expression reads: a page's scope, looking a name up, and the reserved names.

A page's scope maps every value of the modules it reads to an `Entry`: as `module.name`, and as
`name` alone for the modules its front matter lists under `computed:`. `evaluate` compiles an
expression, looks up every name it reads (a branch not taken too: a misspelt name stops the build
even where the page would not show it), and runs it. An unknown name is answered with the
nearest known ones, or with the modules that compute it when several do.

A module's value cannot be named like a function, a filter or a word of the language:
`check_value_name` refuses it where the module returns it.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from anatomia_engine import numfmt as nf
from anatomia_engine.errors import EngineError
from anatomia_engine.placeholders.expressions import (
    FUNCTIONS,
    RESERVED,
    compile_expression,
    names_used,
    quote,
    run,
    walk,
)

# Jinja's words: an expression could not read a value named so.
JINJA_WORDS = (
    "and", "or", "not", "in", "is", "if", "else",
    "true", "false", "none", "True", "False", "None",
)


@dataclass(frozen=True)
class Entry:
    """One named value and where it comes from (for error messages and the number's popover)."""

    value: object
    source: str  # e.g. "figures_src/worked_example.py"
    function: str | None = None  # the @values function that returned it
    what: str | None = None  # what the number is, in Polish (kit.Value)
    cite: str | None = None  # a publication it is quoted from, if not computed (kit.Value)
    axes: tuple | None = None  # labels per array axis, for `what` with {i}, {j}
    # the value (same module) saying where or when this one was measured (kit.Value)
    at: str | None = None
    # a check's threshold, not a measurement: conditions read it, no page shows it
    limit: bool = False


@dataclass(frozen=True)
class FigureRef:
    """A figure a module made, as a page's scope holds it: `{{ figure("name") }}` shows it."""

    name: str


# --- the reserved names -----------------------------------------------------------------------

def reserved_names() -> list[str]:
    """Every name a module's value may not have, in the order the guide lists them."""
    return [*FUNCTIONS, "figure", *nf.FILTERS, *JINJA_WORDS]


def check_value_name(name: str, module_source: str, function: str | None) -> None:
    """Refuse a value named like a function, filter or word of the placeholder language."""
    kinds = [
        ("a function", RESERVED),
        ("a filter", nf.FILTERS),
        ("a word", JINJA_WORDS),
    ]
    # a value named `max` would be shadowed by the function in every expression that reads it
    for what, names in kinds:
        if name in names:
            raise EngineError("reserved_name", where=module_source, function=function or "@values",
                              name=name, what=what, suggestion=f"{name}_value")


# --- looking a name up ---------------------------------------------------------------------------

def unknown(name: str, scope: Mapping[str, Entry]) -> EngineError:
    """The error for a name `scope` does not hold, with the best hint there is."""
    owners = []
    for key in scope:
        module, dot, bare = key.partition(".")
        if dot and bare == name:
            owners.append(module)
    # sorted, so the message and its example are the same on every build
    owners.sort()
    # not unknown: computed by several modules, none of them listed under `computed:`
    if len(owners) > 1:
        return EngineError("value_in_modules", name=name, modules=", ".join(owners),
                           example=f"{owners[0]}.{name}")
    # 0.6: difflib's default; "wieght" finds "weight", an unrelated short name finds nothing
    near = difflib.get_close_matches(name, list(scope), n=3, cutoff=0.6)
    if near:
        quoted = " or ".join(f"'{n}'" for n in near)
        return EngineError("unknown_value_near", name=name, near=quoted)
    if not any("." not in key for key in scope):
        return EngineError("unknown_value_no_module", name=name)
    return EngineError("unknown_value", name=name)


def qualified(name: str, scope: Mapping[str, Entry]) -> str:
    """`name` as `module.name`: a claim and its sentence may write one value either way."""
    if "." in name or name not in scope:
        return name
    entry = scope[name]
    # a bare name and its module.name hold the same Entry object
    for key, other in scope.items():
        if other is entry and key.endswith("." + name):
            return key
    return name


def _check_names(form, source: str, scope: Mapping[str, Entry]) -> None:
    """Refuse a name `scope` does not hold, and `figure(...)` of a value that is not a figure."""
    for name in names_used(form):
        if name in scope:
            continue
        head, _, attr = name.partition(".")
        if attr and head in scope:
            problem = f"'{attr}' is an attribute of the value '{head}'"
            raise EngineError("not_allowed", source=source, problem=problem)
        raise unknown(name, scope)
    for part in walk(form):
        is_figure_call = isinstance(part, list) and part[0] == "figure"
        if is_figure_call and not isinstance(scope[part[1]].value, FigureRef):
            raise EngineError("not_a_figure", name=part[1])


def evaluate(source: str, scope: Mapping[str, Entry]) -> tuple[object, list[str]]:
    """The value of the expression `source` and the names it read; EngineError on any failure."""
    form = compile_expression(source)
    source = source.strip()
    _check_names(form, source, scope)
    try:
        # NumPy's warnings become errors: a division by zero must not show "inf" on a page
        with np.errstate(divide="raise", invalid="raise", over="raise", under="ignore"):
            value = run(form, scope)
    except EngineError as exc:
        # a cost limit: the message names the limit, its cause the expression
        raise EngineError("expr_cost", source=quote(source), problem=str(exc)) from exc
    except LookupError as exc:
        problem = f"{type(exc).__name__}: {exc}"
        raise EngineError("undefined", source=source, problem=problem) from exc
    except Exception as exc:  # noqa: BLE001 - every failure must name the page and line
        problem = f"{type(exc).__name__}: {exc}"
        raise EngineError("cannot_evaluate", source=source, problem=problem) from exc
    return value, names_used(form)
