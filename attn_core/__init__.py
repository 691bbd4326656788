# Shapes: see each module's first line; T = tokens, d = d_model, h = heads, d_k = d // h.
"""attn_core: the NumPy attention maths behind every number on the site.

Imports only NumPy. float64 by default; float32 inputs give float32 outputs. Bad input is a
ValueError naming the argument and its shape.

`_PUBLIC` is the one list of the public names, by the submodule that defines them; they are
imported on first use (PEP 562): `from attn_core import rope` loads attn_core/position.py
(and what it imports), not the whole package. The computation cache records the files a
figures_src module actually loaded, so an edit to a file it never imports does not make it
run again. (softmax and log_softmax live in stable_softmax.py: a submodule named `softmax`,
once imported, would take the place of the function `softmax` in this package.)
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "attention": ("AttentionResult", "scaled_dot_product_attention"),
    "decoder": ("DecoderTrace", "tiny_decoder"),
    "experiments": ("SaturationStats", "dot_product_variance", "softmax_jacobian",
                    "softmax_jacobian_norm", "softmax_saturation", "softmax_saturation_pair"),
    "heads": ("MultiHeadResult", "grouped_query_attention", "kv_group_of_heads", "merge_heads",
              "multi_head_attention", "split_heads"),
    "induction": ("INDUCTION_SCORE_SCALE", "InductionResult", "induction_toy"),
    "io_model": ("AttentionIO", "flash_attention_io", "flash_block_sizes", "roofline_flops_per_s",
                 "standard_attention_io"),
    "kernel_regression": ("KernelRegressionResult", "gaussian_kernel_scores", "nadaraya_watson"),
    "masks": ("causal_mask", "future_mask", "masked_softmax", "padding_mask"),
    "memory": ("attention_layer_params", "attention_matrix_bytes", "kv_cache_bytes",
               "kv_cache_bytes_per_token"),
    "position": ("embedding_lookup", "learned_positions", "rope", "sinusoidal_positions"),
    "scores": ("attend", "bahdanau_additive", "luong_concat", "luong_dot", "luong_general"),
    "stable_softmax": ("log_softmax", "softmax"),
    "tiled": ("TiledStats", "naive_attention_peak_bytes", "tiled_attention"),
    "transformer": ("Adam", "AttnOnlyConfig", "AttnOnlyTrace", "cross_entropy", "induction_scores",
                    "induction_targets", "init_params", "next_token_loss", "previous_token_scores"),
}
_SOURCES = {name: module for module, names in _PUBLIC.items() for name in names}  # name -> module
__all__ = sorted(_SOURCES)


def __getattr__(name: str):
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module 'attn_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"attn_core.{module}"), name)
    globals()[name] = value   # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SOURCES))
