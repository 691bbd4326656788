"""The claims of docs/krok-po-kroku.md, compiled for the browser (placeholders.compile_expression)
and evaluated by docs/javascripts/explorer.js, hold exactly when the build's evaluator says they
do, on random inputs of the worked example."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from anatomia_engine import numfmt as nf
from anatomia_engine import placeholders as ph
from anatomia_engine.errors import EngineError
from tests.live_inputs import js_inputs, python_values, random_inputs
from tests.unit.live_js import call_many

PAGE = Path(__file__).resolve().parents[2] / "docs" / "krok-po-kroku.md"


def _claims() -> list[str]:
    _, tags = ph.scan(PAGE.read_text(encoding="utf-8"), 1)
    return [ph.claim_parts(t)[0] for t in tags if t.block == "claim"]


def _python_truth(cond: str, values: dict):
    scope = {k: ph.Entry(v, "test") for k, v in values.items()}
    try:
        return bool(ph.evaluate(cond, scope)[0])
    except EngineError:
        return None


def test_claims_hold_alike_in_python_and_in_the_browser(monkeypatch):
    rng = np.random.default_rng(7)
    cases = [random_inputs(rng, identity=bool(i % 2)) for i in range(30)]
    examples = call_many([("workedExample", [js_inputs(*c)]) for c in cases])
    claims = _claims()
    checked, flips = set(), set()
    calls, expected = [], []
    for case, example in zip(cases, examples, strict=True):
        js_scope = example["ok"]
        py = python_values(monkeypatch, *case)
        for cond in claims:
            form = ph.compile_expression(cond)
            if not set(ph.names_used(form)) <= set(js_scope):
                continue        # reads values the inputs do not change (the soft lookup)
            calls.append(("evaluate", [form, js_scope]))
            expected.append((cond, _python_truth(cond, py)))
    got = call_many(calls)
    for (cond, want), result in zip(expected, got, strict=True):
        js = bool(result["ok"]) if "ok" in result else None
        assert js == want, (cond, want, result)
        checked.add(cond)
        if want is False:
            flips.add(cond)
    assert "weights[1][1] > weights[1][0]" in checked
    assert len(checked) >= 20 and len(flips) >= 10    # random inputs do make claims false


def test_a_claim_on_the_page_own_numbers_holds():
    import figures_src.worked_example as we
    from anatomia_engine.kit import Value

    values = {k: (v.value if isinstance(v, Value) else v) for k, v in we.worked_example().items()}
    claims = [ph.compile_expression(c) for c in _claims()]
    claims = [c for c in claims if set(ph.names_used(c)) <= set(values)]
    got = call_many([("evaluate", [c, _jsonable(values)]) for c in claims])
    failed = [(c, r) for c, r in zip(claims, got, strict=True) if r.get("ok") is not True]
    assert not failed, failed


def _jsonable(values: dict) -> dict:
    """The page's values as the browser's scope (arrays as lists, -inf as "-inf")."""
    def plain(x):
        if isinstance(x, list):
            return [plain(v) for v in x]
        return "-inf" if x == -np.inf else x

    return {k: plain(v.tolist() if isinstance(v, (np.ndarray, np.generic)) else v) for k, v in values.items()
            if isinstance(v, (np.ndarray, np.generic, int, float, str))}


@pytest.mark.parametrize("source", ["x[0:2]", 'figure("f")'])
def test_what_the_browser_cannot_evaluate_stops_the_build(source):
    with pytest.raises(EngineError) as info:
        ph.compiled(source)
    assert (info.value.id, info.value.fields["source"]) == ("not_allowed", source)


def _numbers() -> list:
    """Every placeholder of the page, once."""
    _, tags = ph.scan(PAGE.read_text(encoding="utf-8"), 1)
    return list({" ".join(t.expr.split()): t for t in tags if t.expr is not None}.values())


def test_every_number_of_the_page_shows_alike_in_python_and_in_the_browser(monkeypatch):
    rng = np.random.default_rng(11)
    cases = [random_inputs(rng, identity=bool(i % 2)) for i in range(10)]
    examples = call_many([("workedExample", [js_inputs(*c)]) for c in cases])
    calls, expected = [], []
    for case, example in zip(cases, examples, strict=True):
        py = python_values(monkeypatch, *case)
        scope = {k: ph.Entry(v, "test") for k, v in py.items()}
        for tag in _numbers():
            try:
                value, names, expr, filt, args = ph.value_of(tag, scope)
            except EngineError:
                assert set(py) - set(example["ok"]), tag.source  # only inputs the browser refuses too
                continue
            if not names or not set(names) <= set(example["ok"]) or filt in ("bmatrix", "json"):
                continue
            if not isinstance(value, (int, float, str, np.ndarray, np.number)):
                continue    # a figure or a table (their cells are checked in test_live_example)
            name = filt or nf.default_filter(value, math=False)
            try:
                want = nf.apply(value, name, args)
            except EngineError:
                want = None
            spec = f"{name}:{args[0]}" if args else name
            calls.append(("show", [ph.compile_expression(expr), example["ok"], spec]))
            expected.append((expr, want))
    got = call_many(calls)
    assert len(expected) >= 60
    for (expr, want), result in zip(expected, got, strict=True):
        assert result.get("ok") == want, (expr, want, result)
