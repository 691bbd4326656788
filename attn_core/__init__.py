# Shapes: see each module's first line; T = tokens, d = d_model, h = heads, d_k = d // h.
"""attn_core: the NumPy attention maths behind every number on the site.

Imports only NumPy. float64 by default; float32 inputs give float32 outputs. Bad input is a
ValueError naming the argument and its shape.
"""

from attn_core.attention import AttentionResult, scaled_dot_product_attention
from attn_core.decoder import DecoderTrace, tiny_decoder
from attn_core.experiments import (
    SaturationStats,
    dot_product_variance,
    softmax_jacobian,
    softmax_saturation,
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
from attn_core.masks import causal_mask, future_mask
from attn_core.memory import attention_matrix_bytes, kv_cache_bytes, kv_cache_bytes_per_token
from attn_core.position import embedding_lookup, learned_positions, sinusoidal_positions
from attn_core.scores import attend, bahdanau_additive, luong_concat, luong_dot, luong_general
from attn_core.softmax import softmax
from attn_core.tiled import TiledStats, naive_attention_peak_bytes, tiled_attention

__all__ = [
    "INDUCTION_SCORE_SCALE",
    "AttentionResult",
    "DecoderTrace",
    "InductionResult",
    "MultiHeadResult",
    "SaturationStats",
    "TiledStats",
    "attend",
    "attention_matrix_bytes",
    "bahdanau_additive",
    "causal_mask",
    "dot_product_variance",
    "embedding_lookup",
    "future_mask",
    "grouped_query_attention",
    "induction_toy",
    "kv_cache_bytes",
    "kv_cache_bytes_per_token",
    "kv_group_of_heads",
    "learned_positions",
    "luong_concat",
    "luong_dot",
    "luong_general",
    "merge_heads",
    "multi_head_attention",
    "naive_attention_peak_bytes",
    "scaled_dot_product_attention",
    "sinusoidal_positions",
    "softmax",
    "softmax_jacobian",
    "softmax_saturation",
    "split_heads",
    "tiled_attention",
    "tiny_decoder",
]

# Added for the blog post's sections on positions (RoPE), counting a real model's attention and
# the IO cost of FlashAttention.
from attn_core.experiments import softmax_jacobian_norm, softmax_saturation_pair  # noqa: E402
from attn_core.io_model import (  # noqa: E402
    AttentionIO,
    flash_attention_io,
    flash_block_sizes,
    roofline_flops_per_s,
    standard_attention_io,
)
from attn_core.memory import attention_layer_params  # noqa: E402
from attn_core.position import rope  # noqa: E402

__all__ += [
    "AttentionIO",
    "attention_layer_params",
    "flash_attention_io",
    "flash_block_sizes",
    "rope",
    "roofline_flops_per_s",
    "softmax_jacobian_norm",
    "softmax_saturation_pair",
    "standard_attention_io",
]

# Padding masks and kernel regression (attention as a soft lookup).
from attn_core.kernel_regression import (  # noqa: E402
    KernelRegressionResult,
    gaussian_kernel_scores,
    nadaraya_watson,
)
from attn_core.masks import masked_softmax, padding_mask  # noqa: E402

__all__ += [
    "KernelRegressionResult",
    "gaussian_kernel_scores",
    "masked_softmax",
    "nadaraya_watson",
    "padding_mask",
]

from attn_core.transformer import (  # noqa: E402  (appended: the attention-only Transformer)
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

__all__ += [
    "Adam",
    "AttnOnlyConfig",
    "AttnOnlyTrace",
    "cross_entropy",
    "induction_scores",
    "induction_targets",
    "init_params",
    "next_token_loss",
    "previous_token_scores",
]
