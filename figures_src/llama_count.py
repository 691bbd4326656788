"""Counting a real model's attention: the weights and the per-head matrices of Llama 3 8B.

Page: docs/posty/posts/llm-mechanizm-uwagi.md (section "Policzmy prawdziwy model").

Inputs: the Llama 3 8B configuration from figures_src/gqa_kv_cache.py (`MODELS`: 32 layers,
32 query heads, 8 KV heads, hidden 4096, context 8192; sources there), `BYTES_PER_VALUE` = 2
(16-bit weights and scores).

Values: `l3_name`, `l3_layers`, `l3_heads`, `l3_kv_heads`, `l3_hidden`, `l3_head_dim`,
`l3_context`, `l3_group` (query heads per KV head); per layer `l3_wq`, `l3_wk`, `l3_wv`,
`l3_wo`, `l3_layer_params` (sum), `l3_layer_params_mha` (the same layer with K/V for every
head), `l3_layer_saving` (= mha - gqa); whole model `l3_attn_params` (all layers),
`l3_attn_params_mha`; per-head matrices `l3_patterns` (heads x layers n x n weight matrices
per forward pass), `l3_pattern_entries` (n^2 at full context), `l3_pattern_bytes` (one matrix,
16-bit), `l3_layer_pattern_bytes` (all heads of one layer), `l3_all_pattern_bytes` (all
heads of all layers), `l3_count_table` (the four matrices: shape and weights).
Figures: none.
"""

from __future__ import annotations

from anatomia_engine.kit import Table, values
from attn_core import attention_layer_params, attention_matrix_bytes
from figures_src.gqa_kv_cache import MODELS

BYTES_PER_VALUE = 2
MODEL = next(m for m in MODELS if m.name == "Llama 3 8B")


@values
def llama_count() -> dict:
    m = MODEL
    gqa = attention_layer_params(m.hidden, m.heads, m.kv_heads, m.head_dim)
    mha = attention_layer_params(m.hidden, m.heads, m.heads, m.head_dim)
    one = int(attention_matrix_bytes(m.context, BYTES_PER_VALUE, heads=1))
    kv_width = m.kv_heads * m.head_dim
    q_width = m.heads * m.head_dim
    return {
        "l3_name": m.name,
        "l3_layers": m.layers,
        "l3_heads": m.heads,
        "l3_kv_heads": m.kv_heads,
        "l3_hidden": m.hidden,
        "l3_head_dim": m.head_dim,
        "l3_context": m.context,
        "l3_group": m.heads // m.kv_heads,
        "l3_wq": gqa["W_Q"],
        "l3_wk": gqa["W_K"],
        "l3_wv": gqa["W_V"],
        "l3_wo": gqa["W_O"],
        "l3_layer_params": gqa["total"],
        "l3_layer_params_mha": mha["total"],
        "l3_layer_saving": mha["total"] - gqa["total"],
        "l3_attn_params": m.layers * gqa["total"],
        "l3_attn_params_mha": m.layers * mha["total"],
        "l3_patterns": m.layers * m.heads,
        "l3_pattern_entries": m.context * m.context,
        "l3_pattern_bytes": one,
        "l3_layer_pattern_bytes": int(attention_matrix_bytes(m.context, BYTES_PER_VALUE,
                                                             heads=m.heads)),
        "l3_all_pattern_bytes": m.layers * int(attention_matrix_bytes(
            m.context, BYTES_PER_VALUE, heads=m.heads)),
        "l3_count_table": Table(
            header=["macierz", "wymiary", "parametry w jednej warstwie", "we wszystkich warstwach"],
            rows=[["zapytań (Q)", f"{m.hidden} × {q_width}", gqa["W_Q"], m.layers * gqa["W_Q"]],
                  ["kluczy (K)", f"{m.hidden} × {kv_width}", gqa["W_K"], m.layers * gqa["W_K"]],
                  ["wartości (V)", f"{m.hidden} × {kv_width}", gqa["W_V"], m.layers * gqa["W_V"]],
                  ["wyjściowa (O)", f"{q_width} × {m.hidden}", gqa["W_O"], m.layers * gqa["W_O"]],
                  ["razem", "", gqa["total"], m.layers * gqa["total"]]],
            formats=[None, None, "int", "int"]),
    }
