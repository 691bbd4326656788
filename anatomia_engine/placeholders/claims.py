"""Claims: a sentence that compares numbers is checked at build time, as a reader sees it.

    {% claim loss_before > 4 * loss_end; context: step %}Strata spada ponad cztery razy …{% endclaim %}

A claim's condition must be a statement: a comparison, `and`/`or`/`not` of statements, or
all()/any() of them. The build stops at the claim's line when

- the condition is false on the exact values (`false_claim`);
- it is true on the exact values but false on the numbers as the sentence shows them
  (0,3501 > 0,3499 shown as 0,35 and 0,35: `shown_claim`, with the places that would do);
- the sentence shows a value the condition does not read and that is not declared a label
  with `; context: name, …` (`claim_unrelated`); a declared label must be shown and not compared;
- its paragraph shows, outside the claim, a number the condition compares
  (`claim_number_outside`): the words that compare it would then stand apart from it;
- a value measured at a step (its Entry's `at`) is shown or read without its step related by the
  condition (`claim_at_unrelated`); a check's limit is shown (`limit_shown`).

A page also gets its shown sums checked: an `a - b` shown beside its terms must equal what a
reader computes from the terms as shown (`check_shown_sums`).

A value is one value however the page names it: `module.name` and `name` compare alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from anatomia_engine import numfmt as nf
from anatomia_engine.errors import EngineError
from anatomia_engine.placeholders.expressions import compile_expression, names_used, run, walk
from anatomia_engine.placeholders.fill import Shown
from anatomia_engine.placeholders.names import Entry, evaluate, qualified, unknown
from anatomia_engine.placeholders.tags import Tag, claim_parts, expression_of

# what a paragraph ends at: a blank line, a list item, a table row
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]|\d+\.)[ \t]|[ \t]*\|)")
_HTML_TAG = re.compile(r"<[^>]+>")


@dataclass
class Claim:
    """One `{% claim %}` … `{% endclaim %}` of a page and the tags between them."""

    start: Tag
    end: Tag
    inside: list[Tag]


# --- pairing the claims of a page -----------------------------------------------------------

def check_claims(tags: Iterable[Tag], text: str, scope: Mapping[str, Entry]) -> None:
    """Pair the {% claim %} tags outside code and check each claim.

    `text` is the page as handed to `scan`: a claim's sentence is quoted from it, and its
    paragraph is searched for numbers shown outside the claim.
    """
    tags = list(tags)
    claims = _pair(tags)
    # the values shown outside every claim (a value another claim shows is checked by that one)
    shown = []
    for tag in tags:
        if tag.expr is None or not _visible(tag):
            continue
        if not any(c.start.start < tag.start < c.end.start for c in claims):
            shown.append(tag)
    for claim in claims:
        _check_claim(claim, text, scope, shown)


def _pair(tags: list[Tag]) -> list[Claim]:
    """The claims of `tags`, each opened and closed once; code shows its tags as written."""
    open_claim: Claim | None = None
    claims: list[Claim] = []
    # the tags in the page's order: Python-Markdown fills them in the order of its tree
    for tag in sorted(tags, key=_position):
        # a tag no processor reached (an unused link definition) is the output check's to report
        if not tag.contexts or "code" in tag.contexts:
            continue
        if tag.block == "claim":
            # claims do not nest: a second opening means the first was never closed
            if open_claim:
                raise EngineError("claim_open_again", where=open_claim.start.place, line=tag.line)
            open_claim = Claim(tag, tag, [])
        elif tag.block == "endclaim":
            if not open_claim:
                raise EngineError("endclaim_alone", where=tag.place)
            open_claim.end = tag
            claims.append(open_claim)
            open_claim = None
        elif open_claim:
            open_claim.inside.append(tag)
    if open_claim:
        raise EngineError("claim_never_closed", where=open_claim.start.place)
    return claims


def _position(tag: Tag) -> int:
    return tag.index


def _visible(tag: Tag) -> bool:
    """Did the placeholder show its value to a reader (running text or math, not code or an
    attribute)?"""
    return any(c in ("prose", "math") for c in tag.contexts)


# --- one value, however the page names it -----------------------------------------------------

def canonical(form, scope: Mapping[str, Entry]):
    """`form` with every name written as `module.name`, however the page wrote it (`name` or
    `module.name`), so a claim and its sentence name one value alike."""
    if isinstance(form, str):
        name, *index = form.split(" ")
        return " ".join([qualified(name, scope), *index])
    # a text and a figure's name are not values of the scope
    if not isinstance(form, list) or form[0] in ("s", "figure"):
        return form
    if form[0] == "cmp":
        comparisons = [[op, canonical(right, scope)] for op, right in form[2]]
        return ["cmp", canonical(form[1], scope), comparisons]
    if form[0] == "f":
        return ["f", form[1], [canonical(arg, scope) for arg in form[2]]]
    if form[0] == "list":
        return ["list", [canonical(item, scope) for item in form[1]]]
    return [form[0], *[canonical(part, scope) for part in form[1:]]]


def _canonical_repr(source: str, scope: Mapping[str, Entry]) -> str:
    # compiled forms are lists: their repr is what sets and dicts compare them by
    return repr(canonical(compile_expression(source), scope))


def _reads(source: str, scope: Mapping[str, Entry]) -> list[str]:
    """The values (as `module.name`) the expression `source` reads."""
    return [qualified(name, scope) for name in names_used(compile_expression(source))]


def _bare(name: str) -> str:
    """A `module.name` as the page's sentence names it."""
    return name.split(".", 1)[1]


def is_statement(form) -> bool:
    """A comparison, `and`/`or`/`not` of statements, or all()/any() of a comparison or a list
    of them."""
    if not isinstance(form, list):
        return False
    if form[0] == "cmp":
        return True
    if form[0] in ("and", "or"):
        return all(is_statement(part) for part in form[1:])
    if form[0] == "not":
        return is_statement(form[1])
    # all(a > b) of arrays, or all([a > b, c < d]): a list of statements
    if form[0] == "f" and form[1] in ("all", "any") and len(form[2]) == 1:
        arg = form[2][0]
        items = [arg]
        if isinstance(arg, list) and arg[0] == "list":
            items = arg[1]
        # all([]) is true and says nothing
        return bool(items) and all(is_statement(item) for item in items)
    return False


def _paragraph(text: str, start: int, end: int) -> tuple[int, int]:
    """The offsets of the paragraph (text between blank lines, list items, table rows) holding
    text[start:end]."""
    first = 0
    for m in _PARAGRAPH_END.finditer(text, 0, start):
        first = m.end()
    after = _PARAGRAPH_END.search(text, end)
    last = len(text)
    if after:
        last = after.start()
    return first, last


# --- what a claim's sentence shows ------------------------------------------------------------

def _declared_context(claim: Tag, context: list[str], scope: Mapping[str, Entry]) -> dict[str, str]:
    """The labels a claim declares, as `module.name` -> the name as written."""
    declared = {}
    for name in context:
        # a misspelt label would otherwise excuse nothing and pass unnoticed
        if name not in scope:
            problem = str(unknown(name, scope))
            raise EngineError("claim_error", where=claim.place, cond=claim.cond, problem=problem)
        declared[qualified(name, scope)] = name
    return declared


def _check_coverage(claim: Claim, cond: str, context: list[str], outside: list[Tag],
                    scope: Mapping[str, Entry]) -> None:
    """Every value the sentence shows takes part in the condition or is declared context; every
    value the condition compares that its paragraph shows is shown inside the claim; a value
    measured at a step (panel, token: its `at`) has that step related by the condition; a
    check's limit is never shown."""
    start = claim.start
    read = set(_reads(cond, scope))
    declared = _declared_context(start, context, scope)
    shown_inside: dict[str, Tag] = {}
    for tag in claim.inside:
        # an attribute or code inside the sentence is not read as part of it
        if tag.expr is None or not _visible(tag):
            continue
        for name in _reads(expression_of(tag), scope):
            shown_inside.setdefault(name, tag)
            if name not in read and name not in declared:
                raise EngineError("claim_unrelated", where=tag.place, value=tag.source,
                                  name=_bare(name), cond=cond)
    # a label must label something the reader sees, and a compared value is no label
    for name, written in declared.items():
        if name not in shown_inside:
            raise EngineError("claim_context_unshown", where=start.place, name=written,
                              cond=start.cond)
        if name in read:
            raise EngineError("claim_context_read", where=start.place, name=written,
                              cond=start.cond)
    # the words that compare a number must stand with it: a claim around "jest większa niż"
    # alone, with the numbers outside, would check the comparison but not the sentence
    compared = {repr(part) for part in walk(canonical(compile_expression(cond), scope))}
    inside_forms = set()
    for tag in claim.inside:
        if tag.expr:
            inside_forms.add(_canonical_repr(expression_of(tag), scope))
    for tag in outside:
        form = _canonical_repr(expression_of(tag), scope)
        if form in compared and form not in inside_forms:
            raise EngineError("claim_number_outside", where=tag.place, value=tag.source, cond=cond,
                              line=start.line)
    # sorted: the first error a page gets does not depend on a set's order
    for name in sorted(read | set(shown_inside)):
        _check_entry(name, scope[name], read, shown_inside, start, cond)


def _check_entry(name: str, entry: Entry, read: set[str], shown_inside: dict[str, Tag],
                 claim: Tag, cond: str) -> None:
    """A limit is not shown; a value measured at a step has its step read by the condition."""
    if entry.limit and name in shown_inside:
        raise EngineError("limit_shown", where=shown_inside[name].place, name=_bare(name))
    if not entry.at:
        return
    # the step is a value of the same module (kit.Value(at=...) names it so)
    companion = f"{name.split('.', 1)[0]}.{entry.at}"
    if companion not in read:
        holder = shown_inside.get(name, claim)
        raise EngineError("claim_at_unrelated", where=holder.place, name=_bare(name), at=entry.at,
                          cond=cond)


def _numbers_shown(tags: Iterable[Tag],
                   scope: Mapping[str, Entry] | None = None) -> dict[str, Shown]:
    """The repr of each expression `tags` show as one number in running text -> how it is shown
    (with a `scope`, its names written as `module.name`)."""
    numbers: dict[str, Shown] = {}
    for tag in tags:
        # a text, a vector or a table cell is not one number a reader compares
        if tag.shown is None or tag.shown.number() is None:
            continue
        form = compile_expression(tag.shown.expr)
        if scope is not None:
            form = canonical(form, scope)
        # the first showing counts: a value shown twice reads the same both times
        numbers.setdefault(repr(form), tag.shown)
    return numbers


def _places(shown: Iterable[Shown], works: Callable[[int], bool]) -> int | None:
    """The fewest decimal places, more than any of `shown` shows, for which `works`."""
    most = 0
    for s in shown:
        if s.filter in nf.PLACES:
            most = max(most, s.args[0] if s.args else nf.PLACES[s.filter])
    # more places than the formatter keeps would not be a fix a page can show
    for n in range(most + 1, nf.MAX_DECIMALS + 1):
        if works(n):
            return n
    return None


# --- checking one claim ---------------------------------------------------------------------

def _sentence(claim: Claim, text: str) -> str:
    """The claim's sentence as a reader sees it: its tags as shown, no markup, one line."""
    out = []
    pos = claim.start.start + len(claim.start.source)
    for tag in claim.inside:
        out.append(text[pos:tag.start])
        # a tag that showed nothing in prose (a mark, code) is quoted as written
        out.append(tag.shown.text if tag.shown else tag.source)
        pos = tag.start + len(tag.source)
    out.append(text[pos:claim.end.start])
    return " ".join(_HTML_TAG.sub("", "".join(out)).split())


def _values(used: list[str], scope: Mapping[str, Entry]) -> str:
    """The values a false condition read, as its message lists them."""
    listed = []
    for name in used:
        value = scope[name].value
        if isinstance(value, np.ndarray):
            written = np.array2string(value, precision=6, separator=", ")
        else:
            written = repr(value)
        listed.append(f"{name} = {written}")
    return "; ".join(listed)


def _check_claim(claim: Claim, text: str, scope: Mapping[str, Entry], shown: list[Tag]) -> None:
    """Check one claim on the exact values, on what its sentence shows, and as shown.

    `shown`: the page's placeholders outside every claim.
    """
    start = claim.start
    sentence = _sentence(claim, text)
    cond, context = claim_parts(start)
    if not cond:
        raise EngineError("claim_needs_condition", where=start.place)
    try:
        tree = compile_expression(cond)
    except EngineError as exc:
        raise EngineError("claim_error", where=start.place, cond=cond, problem=str(exc)) from exc
    if not is_statement(tree):
        raise EngineError("claim_not_statement", where=start.place, cond=cond)
    first, last = _paragraph(text, start.start, claim.end.start)
    outside = [tag for tag in shown if first <= tag.start < last]
    try:
        ok, used = evaluate(cond, scope)
    except EngineError as exc:
        raise EngineError("claim_error", where=start.place, cond=cond, problem=str(exc)) from exc
    # an array is true or false only element by element: the author says all() or any()
    if isinstance(ok, np.ndarray):
        raise EngineError("claim_arrays", where=start.place, cond=cond)
    if not ok:
        raise EngineError("false_claim", where=start.place, sentence=sentence, cond=cond,
                          values=_values(used, scope))
    _check_coverage(claim, cond, context, outside, scope)
    _check_as_shown(claim, canonical(tree, scope), cond, sentence, scope)


def _check_as_shown(claim: Claim, tree, cond: str, sentence: str,
                    scope: Mapping[str, Entry]) -> None:
    """The condition `tree` (its names as `module.name`) must hold for the numbers as the
    claim's sentence shows them, not only for the exact values."""
    numbers = _numbers_shown(claim.inside, scope)

    def holds(decimals: int | None) -> bool:
        shown = {key: s.number(decimals) for key, s in numbers.items()}
        try:
            with np.errstate(divide="raise", invalid="raise", over="raise", under="ignore"):
                return bool(run(tree, scope, shown))
        except Exception:  # noqa: BLE001 - the condition as shown cannot be evaluated
            # the exact one holds, which is what the build could check
            return True

    # nothing shown as a number: only the exact values can be checked, and were
    if not numbers or holds(None):
        return
    forms = {repr(part) for part in walk(tree)}
    read = [s for key, s in numbers.items() if key in forms]
    n = _places(numbers.values(), holds)
    # no number of places shows the difference: the sentence must say something else
    fix = "reword the sentence: the numbers agree to 12 decimal places"
    if n is not None:
        more = []
        for s in read:
            if s.filter in nf.PLACES:
                more.append(nf.apply(s.value, s.filter, (n,)))
            else:
                more.append(s.text)
        more = ", ".join(dict.fromkeys(more))
        fix = f"show the numbers with {n} decimal places ({more}), or reword the sentence"
    texts = ", ".join(dict.fromkeys(s.text for s in read))
    raise EngineError("shown_claim", where=claim.start.place, cond=cond, shown=texts,
                      sentence=sentence, fix=fix)


# --- shown sums ----------------------------------------------------------------------------------

def check_shown_sums(group: list[Tag]) -> None:
    """A shown `a - b` (`a + b - c`, …) whose terms a block also shows must equal what a reader
    gets from the terms as shown: 0,57 − 0,11 next to 0,45 stops the build.

    `group`: the tags of one block of text, each of which showed text in prose.
    """
    numbers = _numbers_shown(group)
    for tag in group:
        total = tag.shown
        if total.number() is None:
            continue
        tree = compile_expression(total.expr)
        others = {key: s for key, s in numbers.items() if key != repr(tree)}
        terms = _terms(tree, others)
        # None: not a sum of other shown numbers
        if terms is not None:
            _check_sum(tag, total, terms)


def _check_sum(tag: Tag, total: Shown, terms: list[tuple[int, Shown]]) -> None:
    def reader(decimals: int | None) -> str:
        # exact fractions: 0,57 − 0,11 is 0,46, without a float's 0,45999…
        value = sum(sign * shown.number(decimals) for sign, shown in terms)
        return nf.apply(float(value), total.filter, total.args)

    got = reader(None)
    if got == total.text:
        return
    written = []
    for i, (sign, shown) in enumerate(terms):
        # a first positive term has no sign; a minus is the typographic one the page shows
        if i > 0 or sign < 0:
            written.append(" + " if sign > 0 else " \u2212 ")
        written.append(shown.text)

    def agrees(n: int) -> bool:
        return reader(n) == total.text

    n = _places([shown for _, shown in terms], agrees)
    digits = "more decimal places"
    if n is not None:
        digits = f"{n} decimal places"
    error = EngineError("shown_difference", shown=total.text, reader="".join(written),
                        reader_result=got, digits=digits)
    raise tag.located(error)


def _terms(tree, shown: dict[str, Shown], sign: int = 1) -> list[tuple[int, Shown]] | None:
    """The shown expressions `tree` adds up (with their signs), or None if a term is not shown."""
    if repr(tree) in shown:
        return [(sign, shown[repr(tree)])]
    if not isinstance(tree, list) or tree[0] not in ("+", "-"):
        return None
    left = _terms(tree[1], shown, sign)
    right_sign = sign
    if tree[0] == "-":
        right_sign = -sign
    right = _terms(tree[2], shown, right_sign)
    if left is None or right is None:
        return None
    return left + right
