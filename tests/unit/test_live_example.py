"""The live worked example's computation (docs/javascripts/explorer.js, workedExample) equals
figures_src/worked_example.py (attn_core.tiny_decoder) on random inputs."""

from __future__ import annotations

import numpy as np
import pytest

import figures_src.worked_example as we
from anatomia_engine.kit import Table
from tests.live_inputs import js_inputs, python_values, random_inputs
from tests.unit.live_js import call_many

ROUNDS = 25


def _as_array(v):
    if isinstance(v, str):
        return {"-inf": -np.inf, "inf": np.inf}.get(v, v)
    if isinstance(v, list):
        return np.array([_as_array(x) for x in v], dtype=float)
    return v


@pytest.mark.parametrize("identity", [True, False])
def test_whole_chain_equals_the_build(monkeypatch, identity):
    rng = np.random.default_rng(25 + identity)
    cases = [random_inputs(rng, identity) for _ in range(ROUNDS)]
    cases.append((we.W_VOCAB, we.W_Q, we.W_K, we.W_V, we.W_FFN))       # the page's own numbers
    results = call_many([("workedExample", [js_inputs(*c)]) for c in cases])
    compared = set()
    for case, result in zip(cases, results, strict=True):
        assert "ok" in result, result
        js, py = result["ok"], python_values(monkeypatch, *case)
        for name, got in js.items():
            assert name in py, f"the JS computes {name}, which the build does not publish"
            want = py[name]
            if isinstance(want, str) or (isinstance(want, list) and all(isinstance(w, str) for w in want)):
                assert got == want, name
                compared.add(name)
                continue
            if name.endswith("_table"):   # rows: words equal, numbers as the other values
                assert len(got) == len(want), name
                for g_row, w_row in zip(got, want, strict=True):
                    for g, w in zip(g_row, w_row, strict=True):
                        assert g == w if isinstance(w, str) else abs(g - float(w)) <= 1e-12, (name, g, w)
                compared.add(name)
                continue
            got, want = np.asarray(_as_array(got), dtype=float), np.asarray(want, dtype=float)
            assert got.shape == want.shape, name
            finite = np.isfinite(want)
            assert np.array_equal(np.isfinite(got), finite), name
            assert np.array_equal(got[~finite], want[~finite]), name
            error = np.abs(got[finite] - want[finite]) / np.maximum(1.0, np.abs(want[finite]))
            assert np.all(error <= 1e-12), (name, got, want)   # absolute, relative above 1
            compared.add(name)
    # every value of the chain the issue lists is mirrored, not a subset that happens to agree
    assert {"E", "Q", "K", "V", "scores", "scaled", "masked", "weights", "attn_out", "residual",
            "ffn_out", "logits", "probs", "pad_weights", "vocab_table", "prob_table", "h2_Q", "h2_K",
            "h2_V", "h2_scores", "h2_weights", "h2_weights_enc", "h2_out", "h2_residual", "hand_row",
            "hand_dim", "hand_av", "hand_av_rounded", "hand_exact_rounded"} <= compared


def _words(rows) -> list[tuple[int, int, str]]:
    """(row, column, text) of every cell of `rows` that is a word, not a number."""
    found = []
    for r, row in enumerate(rows):
        for j, cell in enumerate(row):
            if isinstance(cell, str):
                found.append((r, j, cell))
    return found


def test_the_words_of_a_live_table_do_not_follow_the_readers_numbers(monkeypatch):
    """A live page recomputes a table's numbers (each is a span) but shows its words as built: every
    word of every table the browser model recomputes must be the same whatever the reader's numbers
    (a table sorted by probability would put other tokens in its rows, under the built names)."""
    built = we.worked_example()
    tables = {name for name, value in built.items() if isinstance(value, Table)}
    page_words = {name: _words(built[name].rows) for name in tables}
    rng = np.random.default_rng(7)
    cases = [random_inputs(rng, identity) for identity in (True, False) for _ in range(ROUNDS)]
    results = call_many([("workedExample", [js_inputs(*c)]) for c in cases])
    recomputed = set()
    for result in results:
        js = result["ok"]
        for name in tables & set(js):
            recomputed.add(name)
            assert _words(js[name]) == page_words[name], name
    # not vacuous: the model recomputes tables, and they hold words
    assert recomputed
    assert all(page_words[name] for name in recomputed)
