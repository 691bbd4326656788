"""The live worked example's inputs: random ones, as the page's JavaScript receives them, and the
values the build computes from them (the Python side every comparison with the browser's model needs)."""

from __future__ import annotations

import numpy as np

import figures_src.worked_example as we
from anatomia_engine.kit import Table, Value


def python_values(monkeypatch, w_vocab, w_q, w_k, w_v, w_ffn) -> dict:
    for name, value in (("W_VOCAB", w_vocab), ("W_Q", w_q), ("W_K", w_k), ("W_V", w_v), ("W_FFN", w_ffn)):
        monkeypatch.setattr(we, name, value)
    caches = (we._traces, we._head2_traces, we._padding_results)
    for cached in caches:
        cached.cache_clear()
    try:
        out = we.worked_example()
    finally:
        for cached in caches:
            cached.cache_clear()
    return {k: (v.value if isinstance(v, Value) else v.rows if isinstance(v, Table) else v)
            for k, v in out.items()}


def js_inputs(w_vocab, w_q, w_k, w_v, w_ffn) -> dict:
    return {"vocab": list(we.VOCAB), "W_vocab": w_vocab.tolist(), "ids": list(we.SENTENCE_IDS),
            "W_Q": w_q.tolist(), "W_K": w_k.tolist(), "W_V": w_v.tolist(), "W_FFN": w_ffn.tolist(),
            "sharpen": we.SHARPEN_FACTOR, "reordered_ids": we.REORDERED_IDS, "batch_ids": we.BATCH_IDS,
            "pad_embedding": list(we.PAD_EMBEDDING), "pad_token": we.PAD_TOKEN,
            "h2_W_Q": we.HEAD2_W_Q.tolist(), "h2_W_K": we.HEAD2_W_K.tolist(), "h2_W_V": we.HEAD2_W_V.tolist()}


def random_inputs(rng, identity: bool):
    d = 2
    w_vocab = np.round(rng.uniform(-2, 2, size=(d, len(we.VOCAB))), int(rng.integers(1, 4)))
    if identity:
        w_q = w_k = w_v = np.eye(d)
    else:
        w_q, w_k, w_v = (rng.normal(size=(d, d)) for _ in range(3))
    return w_vocab, w_q, w_k, w_v, rng.normal(size=(d, d))
