"""The formatter's JS twin (docs/javascripts/explorer.js, `format` and `fmtExact`) shows every
value of a corpus exactly as anatomia_engine/numfmt.py does, in prose and in math."""

from __future__ import annotations

import numpy as np

from anatomia_engine import numfmt as nf
from anatomia_engine.errors import EngineError
from tests.unit.live_js import call_many

# Rounding edge cases: halves (0.125, 2.675 are below the half in binary; numfmt rounds the
# shortest decimal), carries (9.995, 99999.5), grouping (five digits and more), signs of zero,
# tiny and huge magnitudes, and integers.
EDGES = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, 0.125, -0.125, 2.675, 1.005, 0.045, 9.995, -9.995, 99.995,
         99999.5, 12345.678, -12345.678, 1234567.891, 0.0004, -0.0004, 1e-7, 3.3e-16, 2.22e-16,
         1e20, 123456789012.5, 0.3543, 0.35, 0.65, 1 / 3, 2 / 3, -1 / 3, 0.1 + 0.2, 1e-12,
         4.999999999999999, 0.9999999, 1234566.5, 1234567.5, 0.00012345675, 7.0, -3.0, 100.0]


def _corpus() -> list[float]:
    rng = np.random.default_rng(2)
    rand = list(rng.normal(scale=3, size=150)) + list(rng.uniform(-1, 1, size=100))
    rand += [float(np.round(x, k)) + 5 * 10.0 ** -(k + 1)
             for k in range(1, 5) for x in rng.uniform(-5, 5, 20)]
    rand += list(10.0 ** rng.uniform(-9, 9, size=60))
    return EDGES + [float(x) for x in rand]


def _cases():
    cases = []
    for x in _corpus():
        for math in (False, True):
            for d in (0, 1, 2, 3, 4, 12):
                cases.append((x, "dec", [d], math))
            for d in (0, 1, 2):
                cases.append((x, "pct", [d], math))
            for d in (0, 1, 2):
                if x != 0 or d:
                    cases.append((x, "sci", [d], math))
            if x == int(x) and abs(x) < 1e15:
                cases.append((x, "int", [], math))
    vecs = [[0.35, -np.inf, 0.125], [2.675, 0.0, -0.004]]
    for v in vecs:
        for d in (0, 2, 3):
            cases += [(v, "vec", [d], False), (v, "vec", [d], True), ([v, v], "bmatrix", [d], True)]
    return cases


def _json(value):
    if isinstance(value, list):
        return [_json(v) for v in value]
    if value == -np.inf:
        return "-inf"
    return value


def test_format_equals_numfmt_on_the_corpus():
    cases = _cases()
    js = call_many([("format", [_json(v), f, a, m]) for v, f, a, m in cases])
    wrong = []
    for (value, filt, args, math), got in zip(cases, js, strict=True):
        try:
            want = nf.apply(np.array(value, dtype=float) if isinstance(value, list) else value, filt,
                            tuple(args), math=math)
        except EngineError:
            want = None     # refused: the twin must refuse too
        if got.get("ok") != want:
            wrong.append((value, filt, args, math, got, want))
    assert not wrong, wrong[:10]
    assert len(cases) > 4000


def test_exact_equals_numfmt_on_the_corpus():
    values = _corpus() + [-np.inf]
    js = call_many([("fmtExact", [_json(v)]) for v in values])
    wrong = [(v, got, nf.fmt_exact(v)) for v, got in zip(values, js, strict=True)
             if got.get("ok") != nf.fmt_exact(v)]
    assert not wrong, wrong[:10]


def test_what_numfmt_refuses_the_twin_refuses():
    js = call_many([("format", [None, "dec", [2], False]),
                    ("format", ["inf", "dec", [2], False]),
                    ("format", [2.5, "int", [], False])])
    assert all("error" in r for r in js), js


def test_a_format_spec_reads_as_numfmt_reads_it():
    specs = ["dec:2", "dec:0", "pct:1", "int", "sci:12", "words:biernik", "vec:3", "dec:-1"]
    got = call_many([("parseSpec", [spec]) for spec in specs])
    assert [r["ok"] for r in got] == [[n, list(a)] for n, a in map(nf.parse_spec, specs)]


def test_words_and_ratios_in_words_equal_numfmt():
    """The words a page computes (a number in words, a ratio in words) read alike in the browser."""
    cases = [(float(n), "words", [case], math)
             for n in range(2, 21) for case in nf.CASES for math in (False, True)]
    rng = np.random.default_rng(5)
    ratios = [2.0, 4.0, 4.000000000000001, 4.27, 5.42, 20.0, 20.99, *rng.uniform(2, 21, 40)]
    cases += [(float(x), "times", [], math) for x in ratios for math in (False, True)]
    js = call_many([("format", [v, f, a, m]) for v, f, a, m in cases])
    wrong = [(v, f, a, m, r) for (v, f, a, m), r in zip(cases, js, strict=True)
             if r.get("ok") != nf.apply(v, f, tuple(a), math=m)]
    assert not wrong, wrong[:5]
    refused = call_many([("format", [x, "times", [], False]) for x in (1.99, 21.0, 0.5)])
    assert all("error" in r for r in refused)
