"""The blog post's computed additions, checked against independent computations.

Page: docs/posty/posts/llm-mechanizm-uwagi.md. Modules: figures_src/rope_positions.py,
flash_io.py, llama_count.py, and the additions to scaling.py, flash_attention.py,
multi_head.py, induction_heads.py, gqa_kv_cache.py; attn_core.position.rope, attn_core.io_model,
attn_core.memory.attention_layer_params; the heatmap colour policy of figures_src/_shared/charts.py.
Every golden value here is recomputed by other means (complex numbers for RoPE, an explicit
block loop for FlashAttention's IO, shapes for parameter counts), never copied from the module.
"""

from __future__ import annotations

import math

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from numpy.testing import assert_allclose

from anatomia_engine.kit import KIND, Value
from anatomia_engine.plot import DARK, LIGHT, new_figure
from attn_core import (
    attention_layer_params,
    flash_attention_io,
    roofline_flops_per_s,
    rope,
    scaled_dot_product_attention,
    softmax_jacobian_norm,
    softmax_saturation_pair,
    standard_attention_io,
    tiled_attention,
)
from figures_src import (
    flash_attention,
    flash_io,
    gqa_kv_cache,
    induction_heads,
    llama_count,
    multi_head,
    rope_positions,
    scaling,
)
from figures_src._shared.charts import heatmap


def values_of(module) -> dict:
    out: dict = {}
    for fn in vars(module).values():
        if getattr(fn, KIND, None) == "values" and fn.__module__ == module.__name__:
            out.update({k: v.value if isinstance(v, Value) else v for k, v in fn().items()})
    return out


# --- RoPE ------------------------------------------------------------------------------------

def rope_complex(x: np.ndarray, positions, base: float) -> np.ndarray:
    """RoPE as complex multiplication: (x_2i + i x_2i+1) * exp(i m theta_i)."""
    d = x.shape[1]
    z = x[:, 0::2] + 1j * x[:, 1::2]
    theta = base ** (-np.arange(d // 2) * 2.0 / d)
    z = z * np.exp(1j * np.outer(positions, theta))
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def test_rope_equals_complex_rotation():
    rng = np.random.default_rng(7)
    x = rng.uniform(-10, 10, (9, 16))
    pos = rng.integers(0, 5000, 9)
    assert_allclose(rope(x, pos, 10000.0), rope_complex(x, pos, 10000.0), rtol=1e-12, atol=1e-9)


def test_rope_keeps_norms_and_position_zero_is_identity():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((5, 8))
    assert_allclose(np.linalg.norm(rope(x, np.arange(5) * 37), axis=1), np.linalg.norm(x, axis=1),
                    rtol=1e-13)
    assert_allclose(rope(x, np.zeros(5)), x, rtol=0, atol=0)


def test_rope_score_depends_only_on_the_offset():
    rng = np.random.default_rng(9)
    q, k = rng.standard_normal((2, 1, 32))
    for m, n, shift in ((5, 2, 100), (0, 7, 13), (40, 40, 1)):
        a = rope(q, [m]) @ rope(k, [n]).T
        b = rope(q, [m + shift]) @ rope(k, [n + shift]).T
        assert_allclose(a, b, rtol=1e-10)


def test_rope_rejects_odd_width():
    with pytest.raises(ValueError, match="even"):
        rope(np.ones((2, 3)), [0, 1])


def rope_query_and_key() -> tuple[np.ndarray, np.ndarray]:
    """The module's RoPE query and key, drawn from its inputs (docstring) in its order: after the
    order test's three tokens, from one generator seeded with SEED."""
    rng = np.random.default_rng(rope_positions.SEED)
    rng.standard_normal((3, rope_positions.D_ORDER))
    return rng.standard_normal(rope_positions.D_ROPE), rng.standard_normal(rope_positions.D_ROPE)


def test_rope_section_values():
    v = values_of(rope_positions)
    q, k = rope_query_and_key()
    qa = rope_complex(q[None], [v["rope_pos_a"][0]], rope_positions.ROPE_BASE)
    ka = rope_complex(k[None], [v["rope_pos_a"][1]], rope_positions.ROPE_BASE)
    assert_allclose(v["rope_score_a"], float((qa @ ka.T)[0, 0]), rtol=1e-12)
    assert v["rope_pos_a"][0] - v["rope_pos_a"][1] == v["rope_pos_b"][0] - v["rope_pos_b"][1]
    assert v["rope_same_offset_spread"] < 1e-12 < 1 < v["rope_offset_range"]
    # Without positions swapping the prefix leaves the last output unchanged; with RoPE not.
    assert v["pos_perm_diff_plain"] < 1e-12 and v["pos_perm_diff_rope"] > 1e-3
    assert_allclose(v["rope_theta"], [1.0, 0.1, 0.01, 0.001], rtol=1e-12)


# --- FlashAttention's IO model ----------------------------------------------------------------

def flash_io_by_loop(n: int, d: int, m_elements: int) -> tuple[int, int]:
    """(reads, writes) of Algorithm 1 of Dao et al. (2022), walking its loops literally."""
    b_c = math.ceil(m_elements / (4 * d))
    b_r = min(b_c, d)
    reads = writes = 0
    writes += n * d + 2 * n                              # initialise O, l, m in HBM
    for j0 in range(0, n, b_c):                          # outer loop: blocks of K and V
        rows_kv = min(b_c, n - j0)
        reads += 2 * rows_kv * d                         # load K_j, V_j
        for i0 in range(0, n, b_r):                      # inner loop: blocks of Q, O, l, m
            rows_q = min(b_r, n - i0)
            reads += 2 * rows_q * d + 2 * rows_q          # Q_i, O_i, l_i, m_i
            writes += rows_q * d + 2 * rows_q             # O_i, l_i, m_i
    return reads, writes


@pytest.mark.parametrize(("n", "d", "sram"), [(4096, 64, 192 * 1024), (1000, 128, 192 * 1024),
                                               (512, 64, 64 * 1024), (33, 16, 4096)])
def test_flash_io_matches_the_algorithm_loop(n, d, sram):
    io = flash_attention_io(n, d, sram, bytes_per_value=2)
    assert (io.hbm_reads, io.hbm_writes) == flash_io_by_loop(n, d, sram // 2)


def test_standard_io_is_4nd_plus_4n2():
    for n, d in ((4096, 64), (100, 7)):
        io = standard_attention_io(n, d, bytes_per_value=4)
        assert io.hbm_elements == 4 * n * d + 4 * n * n
        assert io.hbm_bytes == 4 * io.hbm_elements
        assert io.flops == 2 * n * n * d + 2 * n * n * d


def test_flash_io_grows_as_n2_d2_over_m():
    """Theorem 2 of Dao et al. (2022): Theta(N^2 d^2 / M); the constant settles near 12."""
    m = 192 * 1024 // 2
    ratios = [flash_attention_io(n, 64, 192 * 1024).hbm_elements / (n * n * 64 * 64 / m)
              for n in (2**14, 2**16, 2**18)]
    assert max(ratios) / min(ratios) < 1.05
    assert 10 < ratios[-1] < 14


def test_roofline_is_the_minimum_of_peak_and_bandwidth_line():
    assert roofline_flops_per_s(10.0, 312e12, 1555e9) == 10.0 * 1555e9
    assert roofline_flops_per_s(1e4, 312e12, 1555e9) == 312e12


def test_flash_io_section_values():
    v = values_of(flash_io)
    n, d = v["io_n"], v["io_d"]
    std_bytes = 2 * (4 * n * d + 4 * n * n)
    reads, writes = flash_io_by_loop(n, d, 192 * 1024 // 2)
    assert v["io_std_bytes"] == std_bytes
    assert v["io_flash_bytes"] == 2 * (reads + writes)
    assert_allclose(v["io_bytes_ratio"], std_bytes / (2 * (reads + writes)), rtol=1e-12)
    flops = 4 * n * n * d
    assert_allclose(v["io_std_intensity"], flops / std_bytes, rtol=1e-12)
    assert_allclose(v["gpu_ridge"], 312e12 / 1555e9, rtol=1e-12)
    t_std = max(flops / 312e12, std_bytes / 1555e9)
    t_fl = max(flops / 312e12, 2 * (reads + writes) / 1555e9)
    assert_allclose(v["io_time_ratio"], t_std / t_fl, rtol=1e-12)
    assert v["io_std_intensity"] < v["gpu_ridge"] < v["io_flash_intensity"]


def test_gpu_figures_are_quoted_with_their_source():
    out = {}
    for fn in vars(flash_io).values():
        if getattr(fn, KIND, None) == "values":
            out.update(fn())
    for name in ("gpu_bandwidth_gbs", "gpu_peak_tflops", "gpu_sram_kb", "gpu_sms"):
        assert isinstance(out[name], Value) and "NVIDIA" in out[name].cite, name
    assert (out["gpu_bandwidth_gbs"].value, out["gpu_peak_tflops"].value) == (1555, 312)


# --- counting Llama 3 8B --------------------------------------------------------------------

def test_llama3_8b_counts_from_the_matrix_shapes():
    v = values_of(llama_count)
    hidden, heads, kv, layers, ctx = 4096, 32, 8, 32, 8192           # FACTS: Llama 3 8B
    hd = hidden // heads
    shapes = {"W_Q": (hidden, heads * hd), "W_K": (hidden, kv * hd), "W_V": (hidden, kv * hd),
              "W_O": (heads * hd, hidden)}
    sizes = {k: int(np.prod(s)) for k, s in shapes.items()}
    assert (v["l3_wq"], v["l3_wk"], v["l3_wv"], v["l3_wo"]) == tuple(sizes.values())
    assert v["l3_layer_params"] == sum(sizes.values())
    assert v["l3_attn_params"] == layers * sum(sizes.values())
    assert v["l3_layer_params_mha"] == 4 * hidden * hidden
    assert v["l3_patterns"] == layers * heads
    assert v["l3_pattern_bytes"] == ctx * ctx * 2 == 128 * 2**20
    assert v["l3_all_pattern_bytes"] == layers * heads * ctx * ctx * 2


def test_attention_layer_params_rejects_uneven_groups():
    with pytest.raises(ValueError, match="divisible"):
        attention_layer_params(64, 6, 4, 8)


def test_llama32_1b_head_width():
    v = values_of(gqa_kv_cache)
    assert v["llama32_1b_head_dim"] == 2048 // 32 == 64
    assert v["llama_head_dim"] == 128


# --- corrections in the existing sections ------------------------------------------------------

def test_saturation_series_share_draws_and_coincide_at_d_k_1():
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    unscaled, scaled = softmax_saturation_pair(rng_a, [1, 4], 8, 50)
    assert unscaled.max_weight[0] == scaled.max_weight[0]
    assert unscaled.jacobian_norm[0] == scaled.jacobian_norm[0]
    # Independently: the same draws, by hand (drawn in float32 at the largest d_k, 4; d_k = 1
    # takes the first coordinate).
    q = rng_b.standard_normal((50, 4), dtype=np.float32).astype(np.float64)
    k = rng_b.standard_normal((50, 8, 4), dtype=np.float32).astype(np.float64)
    s = np.einsum("sd,snd->sn", q[:, :1], k[:, :, :1])
    p = np.exp(s - s.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    assert_allclose(unscaled.max_weight[0], p.max(1).mean(), rtol=1e-6)
    v = values_of(scaling)
    assert v["sat_first_gap"] == 0


def test_jacobian_norm_closed_forms():
    n = 16
    assert_allclose(softmax_jacobian_norm(np.full(n, 1 / n)), math.sqrt(n - 1) / n, rtol=1e-12)
    assert_allclose(softmax_jacobian_norm(np.r_[0.5, 0.5, np.zeros(n - 2)]), 0.5, rtol=1e-12)
    assert softmax_jacobian_norm(np.r_[1.0, np.zeros(n - 1)]) == 0
    v = values_of(scaling)
    assert v["jac_norm_uniform"] < v["sat_jac_unscaled_peak"] < v["jac_norm_two_halves"]


def test_flash_relative_error_and_ulps():
    v = values_of(flash_attention)
    assert_allclose(v["flash_rel_float32"], v["flash_diff_float32"] / v["flash_max_abs_output"],
                    rtol=1e-12)
    # the module's inputs (docstring): drawn in float64, cast to float32
    rng = np.random.default_rng(flash_attention.SEED)
    drawn = flash_attention.random_qkv(rng, flash_attention.N, flash_attention.D)
    qkv = [x.astype(np.float32) for x in drawn]
    out = tiled_attention(*qkv, block_size=flash_attention.BLOCK_SIZE)
    plain = scaled_dot_product_attention(*qkv).output
    ulp = np.abs(np.nextafter(np.abs(plain), np.float32(np.inf)) - np.abs(plain))
    ulps = np.abs(out.astype(np.float64) - plain) / ulp.astype(np.float64)
    assert_allclose(v["flash_ulp_median_float32"], np.median(ulps), rtol=1e-12)
    assert v["flash_rel_in_eps_float32"] < 10


def test_per_head_score_memory_grows_h_times():
    v = values_of(multi_head)
    n, h = v["base_score_n"], v["base_heads"]
    assert v["base_score_bytes_one"] == n * n * 4
    assert v["base_score_bytes_heads"] == h * n * n * 4


def test_induction_prediction_as_probability():
    v = values_of(induction_heads)
    n_vocab = len(induction_heads.VOCAB)
    assert_allclose(v["induction_prob_top"], math.e / (math.e + n_vocab - 1), rtol=1e-7)  # the 1e-8 leak
    t = len(induction_heads.WORDS)
    assert_allclose(v["induction_leak_formula"], (t - 1) / (math.exp(20) + t - 1), rtol=1e-12)
    assert_allclose(v["prev_head_leak"], v["induction_leak_formula"], rtol=1e-9)


# --- heatmap colour policy ----------------------------------------------------------------------

@pytest.mark.parametrize("style", [LIGHT, DARK], ids=["light", "dark"])
def test_heatmap_quantity_picks_map_range_and_colourbar(style):
    m = np.array([[0.2, -1.5], [0.7, 0.1]])
    with matplotlib.rc_context(style.rc()):
        fig, ax = new_figure(style)
        image = heatmap(ax, m, ["a", "b"], ["c", "d"], style=style, quantity="scores")
        assert image.cmap.name == style.cmap_scores
        assert image.norm.vmin == -1.5 and image.norm.vmax == 1.5
        assert image.colorbar is not None and image.colorbar.ax in fig.axes
        plt.close(fig)
        fig, ax = new_figure(style)
        image = heatmap(ax, np.abs(m) / 2, ["a", "b"], ["c", "d"], style=style,
                        quantity="weights")
        assert image.cmap.name == style.cmap and (image.norm.vmin, image.norm.vmax) == (0, 1)
        assert image.colorbar is not None and image.colorbar.ax in fig.axes
        plt.close(fig)
        fig, ax = new_figure(style)
        image = heatmap(ax, m, ["a", "b"], ["c", "d"], style=style)         # old call
        assert image.colorbar is None and fig.axes == [ax]
        with pytest.raises(ValueError, match="quantity"):
            heatmap(ax, m, ["a", "b"], ["c", "d"], style=style, quantity="logits")
        plt.close(fig)


def test_kv_cache_dot_plot_ticks_do_not_collide():
    with matplotlib.rc_context(LIGHT.rc()):
        plot = gqa_kv_cache.kv_cache_sizes(LIGHT)
    ax = plot.fig.axes[0]
    ticks = ax.get_xticks()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert all(",00" not in text for text in labels), labels
    assert np.all(np.diff(np.log2(ticks)) >= 4), "major ticks at least 16x apart"
    assert not ax.patches, "a dot plot, not bars"
    plt.close(plot.fig)
