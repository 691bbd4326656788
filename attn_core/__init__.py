# Shapes: see each module's first line; T = tokens, d = d_model, h = heads, d_k = d // h.
"""attn_core: the NumPy attention maths behind every number on the site.

Imports only NumPy. float64 by default; float32 inputs give float32 outputs. Bad input is a
ValueError naming the argument and its shape.

The public names below are imported on first use (PEP 562): `from attn_core import rope`
loads attn_core/position.py (and what it imports), not the whole package. The computation
cache (anatomia_engine/runner.py) records the files a figures_src module actually loaded, so
an edit to a file it never imports does not make it run again. `softmax` is imported at once:
its name is also a submodule's, and every other module imports it anyway.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from attn_core.softmax import softmax

if TYPE_CHECKING:   # for type checkers and editors; at run time __getattr__ imports on demand
    from attn_core.attention import AttentionResult, scaled_dot_product_attention
    from attn_core.decoder import DecoderTrace, tiny_decoder
    from attn_core.experiments import (
        SaturationStats,
        dot_product_variance,
        softmax_jacobian,
        softmax_jacobian_norm,
        softmax_saturation,
        softmax_saturation_pair,
    )
    from attn_core.heads import (
        MultiHeadResult,
        grouped_query_attention,
        kv_group_of_heads,
        merge_heads,
        multi_head_attention,
        split_heads,
    )
    from attn_core.induction import INDUCTION_SCORE_SCALE, InductionResult, induction_toy
    from attn_core.io_model import (
        AttentionIO,
        flash_attention_io,
        flash_block_sizes,
        roofline_flops_per_s,
        standard_attention_io,
    )
    from attn_core.kernel_regression import KernelRegressionResult, gaussian_kernel_scores, nadaraya_watson
    from attn_core.masks import causal_mask, future_mask, masked_softmax, padding_mask
    from attn_core.memory import (
        attention_layer_params,
        attention_matrix_bytes,
        kv_cache_bytes,
        kv_cache_bytes_per_token,
    )
    from attn_core.position import embedding_lookup, learned_positions, rope, sinusoidal_positions
    from attn_core.scores import attend, bahdanau_additive, luong_concat, luong_dot, luong_general
    from attn_core.tiled import TiledStats, naive_attention_peak_bytes, tiled_attention
    from attn_core.transformer import (
        Adam,
        AttnOnlyConfig,
        AttnOnlyTrace,
        cross_entropy,
        induction_scores,
        induction_targets,
        init_params,
        next_token_loss,
        previous_token_scores,
    )

# public name -> the submodule that defines it
_SOURCES = {
    "AttentionResult": "attention",
    "scaled_dot_product_attention": "attention",
    "DecoderTrace": "decoder",
    "tiny_decoder": "decoder",
    "SaturationStats": "experiments",
    "dot_product_variance": "experiments",
    "softmax_jacobian": "experiments",
    "softmax_jacobian_norm": "experiments",
    "softmax_saturation": "experiments",
    "softmax_saturation_pair": "experiments",
    "MultiHeadResult": "heads",
    "grouped_query_attention": "heads",
    "kv_group_of_heads": "heads",
    "merge_heads": "heads",
    "multi_head_attention": "heads",
    "split_heads": "heads",
    "INDUCTION_SCORE_SCALE": "induction",
    "InductionResult": "induction",
    "induction_toy": "induction",
    "AttentionIO": "io_model",
    "flash_attention_io": "io_model",
    "flash_block_sizes": "io_model",
    "roofline_flops_per_s": "io_model",
    "standard_attention_io": "io_model",
    "KernelRegressionResult": "kernel_regression",
    "gaussian_kernel_scores": "kernel_regression",
    "nadaraya_watson": "kernel_regression",
    "causal_mask": "masks",
    "future_mask": "masks",
    "masked_softmax": "masks",
    "padding_mask": "masks",
    "attention_layer_params": "memory",
    "attention_matrix_bytes": "memory",
    "kv_cache_bytes": "memory",
    "kv_cache_bytes_per_token": "memory",
    "embedding_lookup": "position",
    "learned_positions": "position",
    "rope": "position",
    "sinusoidal_positions": "position",
    "attend": "scores",
    "bahdanau_additive": "scores",
    "luong_concat": "scores",
    "luong_dot": "scores",
    "luong_general": "scores",
    "TiledStats": "tiled",
    "naive_attention_peak_bytes": "tiled",
    "tiled_attention": "tiled",
    "Adam": "transformer",
    "AttnOnlyConfig": "transformer",
    "AttnOnlyTrace": "transformer",
    "cross_entropy": "transformer",
    "induction_scores": "transformer",
    "induction_targets": "transformer",
    "init_params": "transformer",
    "next_token_loss": "transformer",
    "previous_token_scores": "transformer",
}

__all__ = [
    "Adam",
    "AttentionIO",
    "AttentionResult",
    "AttnOnlyConfig",
    "AttnOnlyTrace",
    "DecoderTrace",
    "INDUCTION_SCORE_SCALE",
    "InductionResult",
    "KernelRegressionResult",
    "MultiHeadResult",
    "SaturationStats",
    "TiledStats",
    "attend",
    "attention_layer_params",
    "attention_matrix_bytes",
    "bahdanau_additive",
    "causal_mask",
    "cross_entropy",
    "dot_product_variance",
    "embedding_lookup",
    "flash_attention_io",
    "flash_block_sizes",
    "future_mask",
    "gaussian_kernel_scores",
    "grouped_query_attention",
    "induction_scores",
    "induction_targets",
    "induction_toy",
    "init_params",
    "kv_cache_bytes",
    "kv_cache_bytes_per_token",
    "kv_group_of_heads",
    "learned_positions",
    "luong_concat",
    "luong_dot",
    "luong_general",
    "masked_softmax",
    "merge_heads",
    "multi_head_attention",
    "nadaraya_watson",
    "naive_attention_peak_bytes",
    "next_token_loss",
    "padding_mask",
    "previous_token_scores",
    "roofline_flops_per_s",
    "rope",
    "scaled_dot_product_attention",
    "sinusoidal_positions",
    "softmax",
    "softmax_jacobian",
    "softmax_jacobian_norm",
    "softmax_saturation",
    "softmax_saturation_pair",
    "split_heads",
    "standard_attention_io",
    "tiled_attention",
    "tiny_decoder",
]


def __getattr__(name: str):
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module 'attn_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"attn_core.{module}"), name)
    globals()[name] = value   # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SOURCES))
