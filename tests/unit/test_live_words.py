"""Words chosen by computation mean the same in the browser: a name indexed by argmax, a conditional
choice of words and a ratio in words, compiled by placeholders.compile_expression, evaluated and
formatted by docs/javascripts/explorer.js, equal what the build shows, on random numbers."""

import numpy as np

from anatomia_engine import numfmt as nf
from anatomia_engine import placeholders as ph
from tests.unit.live_js import call_many

EXPRESSIONS = [
    ("names[argmax(p)]", "text"),
    ("names[argmin(p)]", "text"),
    ('"rośnie" if p[1] > p[0] else "maleje" if p[1] < p[0] else "stoi"', "text"),
    ('"większa" if a > b else "mniejsza"', "text"),
]


def test_words_chosen_by_computation_agree_in_python_and_in_the_browser():
    rng = np.random.default_rng(3)
    calls, expected = [], []
    for _ in range(25):
        p = rng.uniform(0, 1, 4)
        if rng.uniform() < 0.2:
            p[1] = p[0]
        a, b = rng.uniform(0.1, 1, 2)
        values = {"names": ["cat", "chases", "mouse", "sleeping"], "p": p, "a": float(a), "b": float(b) * 0.1}
        scope = {k: ph.Entry(v, "test") for k, v in values.items()}
        js_scope = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in values.items()}
        for source, spec in EXPRESSIONS:
            calls.append(("show", [ph.compile_expression(source), js_scope, spec]))
            expected.append(nf.apply(ph.evaluate(source, scope)[0], spec))
        ratio = values["a"] / values["b"]
        if 2 <= ratio < 21:
            calls.append(("show", [ph.compile_expression("a / b"), js_scope, "times"]))
            expected.append(nf.apply(ph.evaluate("a / b", scope)[0], "times"))
    got = call_many(calls)
    wrong = [(c[1][0], g, e) for c, g, e in zip(calls, got, expected, strict=True) if g.get("ok") != e]
    assert not wrong, wrong[:5]
    assert any("ponad" in e for e in expected) and {"rośnie", "maleje", "stoi"} <= set(expected)
