"""Values and figures of the blog post's modules: GQA / KV-cache, quadratic cost,
FlashAttention (tiled = plain up to rounding) and the induction-head toy.

Page: docs/posty/posts/llm-mechanizm-uwagi.md.
"""

from __future__ import annotations

import importlib
import re

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
import yaml
from numpy.testing import assert_allclose

from anatomia_engine.kit import KIND, Plot, Table, Value
from anatomia_engine.plot import STYLES
from attn_core import tiled_attention
from figures_src import flash_attention, gqa_kv_cache, induction_heads, quadratic_cost
from helpers import REPO

MODULES = ("gqa_kv_cache", "quadratic_cost", "flash_attention", "induction_heads", "flash_io",
           "rope_positions", "llama_count")
KIB, MIB, GIB = 2**10, 2**20, 2**30


def _values(module) -> dict:
    fns = [f for f in vars(module).values() if getattr(f, KIND, None) == "values"]
    out: dict = {}
    for fn in fns:
        out.update({k: v.value if isinstance(v, Value) else v for k, v in fn().items()})
    return out


def _figures(module) -> dict:
    return {name: f for name, f in vars(module).items() if getattr(f, KIND, None) == "figure"}


# --- KV-cache -----------------------------------------------------------------------------------

# The configuration table of the facts sheet, typed again here so that a typo in
# figures_src/gqa_kv_cache.MODELS is caught: (layers, heads, kv_heads, hidden, context).
# Source: Hugging Face config.json / torchtune builders; context lengths: Meta model cards.
EXPECTED_CONFIGS = {
    "Llama 2 7B": (32, 32, 32, 4096, 4096),
    "Llama 2 13B": (40, 40, 40, 5120, 4096),
    "Llama 2 70B": (80, 64, 8, 8192, 4096),
    "Llama 3 8B": (32, 32, 8, 4096, 8192),
    "Llama 3 70B": (80, 64, 8, 8192, 8192),
    "Llama 3.1 8B": (32, 32, 8, 4096, 131072),
    "Llama 3.1 70B": (80, 64, 8, 8192, 131072),
    "Llama 3.1 405B": (126, 128, 8, 16384, 131072),
}


def kv_per_token_by_hand(layers: int, kv_heads: int, head_dim: int) -> int:
    """2 (K and V) x layers x kv_heads x head_dim x 2 bytes (16-bit values)."""
    return 2 * layers * kv_heads * head_dim * 2


def test_model_configs_match_the_facts_sheet():
    got = {m.name: (m.layers, m.heads, m.kv_heads, m.hidden, m.context)
           for m in gqa_kv_cache.MODELS}
    assert got == EXPECTED_CONFIGS
    assert {m.head_dim for m in gqa_kv_cache.MODELS} == {128}


def test_kv_cache_table_recomputed_from_the_formula():
    table = _values(gqa_kv_cache)["kv_cache_table"]
    assert isinstance(table, Table)
    assert len(table.rows) == len(EXPECTED_CONFIGS)
    for row in table.rows:
        name, layers, heads, context, per_token, full = row
        l_, h_, kv_, hidden, ctx = EXPECTED_CONFIGS[name]
        expected = kv_per_token_by_hand(l_, kv_, hidden // h_)
        assert (layers, context) == (l_, ctx)
        assert heads == f"{h_}/{kv_} ({'MHA' if kv_ == h_ else 'GQA'})"
        assert per_token == expected
        assert full == expected * ctx  # batch 1
    # Material gives every header cell a minimum width of 5rem (100 px): six columns fit the
    # content column next to both sidebars, seven already scroll sideways.
    assert len(table.header) <= 6


def test_kv_cache_values_for_the_prose():
    v = _values(gqa_kv_cache)
    assert v["llama2_7b_kv_per_token"] == kv_per_token_by_hand(32, 32, 128) == 512 * KIB
    assert v["llama2_7b_kv_full"] == 2 * GIB
    assert v["llama2_70b_kv_per_token"] == kv_per_token_by_hand(80, 8, 128) == 320 * KIB
    assert v["llama2_70b_kv_per_token_mha"] == kv_per_token_by_hand(80, 64, 128)
    assert v["llama2_70b_kv_per_token_mqa"] == kv_per_token_by_hand(80, 1, 128)
    assert v["llama2_70b_mha_gqa_ratio"] == 64 / 8
    assert v["llama31_405b_kv_per_token"] == kv_per_token_by_hand(126, 8, 128) == 504 * KIB
    assert v["llama31_405b_kv_full"] == kv_per_token_by_hand(126, 8, 128) * 131072 == 63 * GIB
    assert v["llama31_405b_kv_full_mha"] == kv_per_token_by_hand(126, 128, 128) * 131072
    assert v["llama31_405b_kv_full_mqa"] == kv_per_token_by_hand(126, 1, 128) * 131072
    assert v["llama31_405b_mha_gqa_ratio"] == 128 / 8
    assert v["llama31_context"] == 131072 and v["llama31_context_k"] == 128
    assert (v["llama2_context"], v["llama3_context"], v["llama3_kv_heads"]) == (4096, 8192, 8)
    # Facts: Llama 2 7B does not use GQA; only the released 70B does.
    assert v["llama2_7b_kv_heads"] == v["llama2_7b_heads"]
    assert v["llama2_70b_kv_heads"] < v["llama2_70b_heads"]
    assert v["gqa_uptrain_fraction"] == 0.05


def test_kv_variants_are_mha_released_mqa():
    for m in gqa_kv_cache.MODELS:
        variants = gqa_kv_cache.variants(m)
        ctx = m.context
        assert variants["MHA"] == kv_per_token_by_hand(m.layers, m.heads, m.head_dim) * ctx
        assert variants["released"] == kv_per_token_by_hand(m.layers, m.kv_heads, m.head_dim) * ctx
        assert variants["MQA"] == kv_per_token_by_hand(m.layers, 1, m.head_dim) * ctx
        assert variants["MQA"] <= variants["released"] <= variants["MHA"]


def test_gqa_grouping_table_shares_kv_heads_in_contiguous_groups():
    table = _plot_of(gqa_kv_cache.gqa_grouping).table
    mha = [row[1] for row in table.rows]
    gqa = [row[2] for row in table.rows]
    mqa = [row[3] for row in table.rows]
    assert mha == list(range(1, 9))
    assert gqa == [1, 1, 1, 1, 2, 2, 2, 2]
    assert mqa == [1] * 8


# --- quadratic cost -----------------------------------------------------------------------------


def test_n_4096_float32_one_head_is_64_mib():
    v = _values(quadratic_cost)
    assert v["matrix_n"] == 4096
    assert v["matrix_entries"] == 4096**2
    assert v["matrix_bytes"] == 4096**2 * 4 == 64 * MIB


def test_doubling_n_quadruples_the_matrix():
    v = _values(quadratic_cost)
    assert v["matrix_doubling_ratio"] == 4
    assert v["matrix_tenfold_ratio"] == 100
    assert_allclose(v["matrix_loglog_slope"], 2.0, rtol=1e-12)
    assert_allclose(v["q_loglog_slope"], 1.0, rtol=1e-12)
    assert v["matrix_bytes_long"] == 131072**2 * 4 == 64 * GIB
    for n, entries, size in _values(quadratic_cost)["matrix_cost_table"].rows:
        assert (entries, size) == (n * n, 4 * n * n)


# --- FlashAttention -----------------------------------------------------------------------------


def test_tiled_equals_plain_up_to_rounding():
    v = _values(flash_attention)
    scale = max(1.0, v["flash_max_abs_output"])
    # Rounding-level bounds: a few tens of ulps of the output magnitude. The difference is
    # NOT required to be zero: a different summation order rounds differently.
    assert 0 <= v["flash_diff_float32"] < 32 * np.finfo(np.float32).eps * scale
    assert 0 <= v["flash_diff_float64"] < 32 * np.finfo(np.float64).eps * scale
    assert 0 <= v["flash_diff_causal_float32"] < 32 * np.finfo(np.float32).eps * scale
    assert v["flash_eps_float32"] == np.finfo(np.float32).eps
    assert v["flash_eps_float64"] == np.finfo(np.float64).eps
    # Both float32 results are about as far from the float64 one.
    assert v["flash_err_plain_float32"] < 32 * np.finfo(np.float32).eps * scale
    assert v["flash_err_tiled_float32"] < 32 * np.finfo(np.float32).eps * scale


def flash_inputs(n: int, dtype) -> list[np.ndarray]:
    """q, k, v as flash_attention's docstring gives them: N(0, 1) of shape (n, D) drawn in float64
    from SEED, cast to `dtype`."""
    rng = np.random.default_rng(flash_attention.SEED)
    return [x.astype(dtype) for x in flash_attention.random_qkv(rng, n, flash_attention.D)]


def test_tiled_keeps_float32_and_differs_at_every_block_size_only_by_rounding():
    out = tiled_attention(*flash_inputs(flash_attention.N, np.float32), block_size=flash_attention.BLOCK_SIZE)
    assert out.dtype == np.float32
    for b in flash_attention.BLOCK_SIZES:
        assert flash_attention.max_diff("float32", b) < 32 * np.finfo(np.float32).eps
        assert flash_attention.max_diff("float64", b) < 32 * np.finfo(np.float64).eps


def test_peak_memory_plain_matrix_vs_tiled_blocks():
    v = _values(flash_attention)
    n, d, b = v["flash_n"], v["flash_d"], v["flash_block_size"]
    assert (n, d, b) == (1024, 64, 64)
    assert v["flash_peak_plain"] == n * n * 4 == 4 * MIB
    assert v["flash_peak_tiled"] == max(b * b, b * d) * 4
    assert v["flash_peak_ratio"] == v["flash_peak_plain"] / v["flash_peak_tiled"]
    assert v["flash_peak_plain_float64"] == n * n * 8
    # The tiled buffer does not grow with n: the same peak at every n of the memory figure.
    assert list(v["flash_memory_ns"]) == list(flash_attention.MEMORY_NS)
    for m in flash_attention.MEMORY_NS:
        _, stats = tiled_attention(*flash_inputs(m, np.float32), block_size=b, return_stats=True)
        assert stats.peak_bytes == v["flash_peak_tiled"], m
    assert v["flash_peak_tiled_spread"] == 0
    assert v["flash_output_bytes"] == n * d * 4
    assert v["flash2_kernel_speedup"] == 2


# --- induction heads ----------------------------------------------------------------------------


def test_induction_toy_predicts_b():
    v = _values(induction_heads)
    words = induction_heads.WORDS
    a = words[-1]
    b = words[words.index(a) + 1]
    assert v["induction_a"] == a and v["induction_b"] == b
    assert v["induction_predicted"] == b
    b_id = induction_heads.VOCAB.index(b)
    assert v["induction_predicted_id"] == v["induction_expected_id"] == b_id
    assert v["induction_top_key"] == b
    assert v["induction_top_position"] == v["induction_b_position"] == words.index(a) + 1
    assert v["induction_logit_gap"] > 0.5


def test_previous_token_head_looks_one_back():
    prev = np.asarray(induction_heads.toy().prev_token_weights)
    t = len(induction_heads.WORDS)
    assert prev.shape == (t, t)
    assert_allclose(prev.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(np.argmax(prev[1:], axis=1) == np.arange(t - 1))
    assert np.all(np.triu(prev, k=1) == 0)  # causal: nothing above the diagonal
    v = _values(induction_heads)
    assert v["prev_head_min_weight"] > 0.99 and v["prev_head_leak"] < 1e-4


def test_first_occurrences_spread_their_attention_evenly():
    """A token seen for the first time matches nothing: even weights on positions 2..i."""
    ind = np.asarray(induction_heads.toy().induction_weights)
    words = induction_heads.WORDS
    firsts = [i for i in range(1, len(words)) if words[i] not in words[:i]]
    assert firsts == induction_heads.first_occurrences()
    for i in firsts:
        assert_allclose(ind[i, 1:i + 1], 1.0 / i, atol=1e-6)
        assert ind[i, 0] < 1e-6
    assert _values(induction_heads)["induction_unmatched_spread"] < 1e-6


# --- figures and docstrings ---------------------------------------------------------------------


def _plot_of(fn, style=STYLES[0]) -> Plot:
    with matplotlib.rc_context(style.rc()):
        plot = fn(style)
    plt.close(plot.fig)
    return plot


FIGURES = [(mod, name) for mod in MODULES
           for name in _figures(importlib.import_module(f"figures_src.{mod}"))]


@pytest.mark.parametrize("style", STYLES, ids=lambda s: s.name)
@pytest.mark.parametrize(("module", "name"), FIGURES)
def test_figure_runs_in_both_styles(module, name, style):
    fn = _figures(importlib.import_module(f"figures_src.{module}"))[name]
    with matplotlib.rc_context(style.rc()):
        plot = fn(style)
    try:
        assert isinstance(plot, Plot)
        assert plot.alt.strip() and plot.caption.strip()
        assert isinstance(plot.table, Table) and len(plot.table.rows) > 0
        assert plot.table.to_markdown() and plot.table.to_csv()
    finally:
        plt.close(plot.fig)


def _placed_in_the_post() -> set[tuple[str, str]]:
    """(module, figure) of every figure the post places, as the build resolves them: a bare name
    among the modules of its front matter's `computed:`, "module.figure" in any module."""
    post = (REPO / "docs" / "posty" / "posts" / "llm-mechanizm-uwagi.md").read_text(encoding="utf-8")
    computed = yaml.safe_load(post.split("---\n")[1])["computed"]
    declared = {mod: _figures(importlib.import_module(f"figures_src.{mod}")) for mod in computed}
    placed = set()
    for ref in re.findall(r'\{\{ *figure\("([\w.]+)"\)', post):
        if "." in ref:
            module, name = ref.split(".")
            declared.setdefault(module, _figures(importlib.import_module(f"figures_src.{module}")))
        else:
            owners = [mod for mod in computed if ref in declared[mod]]
            assert len(owners) == 1, (ref, owners)
            module, name = owners[0], ref
        assert name in declared[module], f"the post places {ref!r}, which no module declares"
        placed.add((module, name))
    return placed


def test_the_blog_modules_declare_the_figures_the_post_places():
    """A figure dropped from a module (and so from the tests above), or one no page shows, fails."""
    placed = {(mod, name) for mod, name in _placed_in_the_post() if mod in MODULES}
    assert set(FIGURES) == placed


@pytest.mark.parametrize("module", MODULES)
def test_docstring_names_page_and_every_value_and_figure(module):
    mod = importlib.import_module(f"figures_src.{module}")
    doc = mod.__doc__
    assert "docs/posty/posts/llm-mechanizm-uwagi.md" in doc
    documented = set(re.findall(r"`(\w+)`", doc))
    missing = (set(_values(mod)) | set(_figures(mod))) - documented
    assert not missing, f"{module} docstring does not name {sorted(missing)}"


def test_value_names_unique_across_the_blog_modules():
    seen: dict[str, str] = {}
    for module in MODULES:
        for name in _values(importlib.import_module(f"figures_src.{module}")):
            assert name not in seen, f"{name} defined by {seen.get(name)} and {module}"
            seen[name] = module


# --- saving: one layout pass, plain-text powers on log axes ----------------------------------

@pytest.mark.parametrize(("text", "plain"), [
    (r"$\mathdefault{10^{-3}}$", "10⁻³"),
    (r"$\mathdefault{10^{12}}$", "10¹²"),
    (r"$\mathdefault{2^{5}}$", "2⁵"),
    (r"$\mathdefault{2\times10^{4}}$", "2×10⁴"),
    (r"$\mathdefault{-10^{0}}$", "−10⁰"),
    (r"$\mathdefault{0.5}$", "0,5"),
    ("0.25", "0,25"),
    ("1e−3", "1e−3"),
    ("", ""),
])
def test_tick_labels_get_the_comma_and_log_labels_become_plain_text(text, plain):
    from anatomia_engine.plot import plain_number

    assert plain_number(text) == plain


def test_log_axis_ticks_are_plain_text_after_use_decimal_comma():
    from anatomia_engine.plot import use_decimal_comma

    style = STYLES[0]
    with matplotlib.rc_context(style.rc()):
        plot = flash_attention.flash_difference(style)
        use_decimal_comma(plot.fig)
        plot.fig.canvas.draw()
        labels = [t.get_text() for ax in plot.fig.axes for t in ax.get_yticklabels()]
    plt.close(plot.fig)
    shown = [t for t in labels if t]
    assert shown and all(t.startswith("10") and "$" not in t for t in shown), labels
    assert any(set(t) & set("⁻⁰¹²³⁴⁵⁶⁷⁸⁹") for t in shown), labels


def test_a_percent_bar_label_reads_as_the_text_shows_the_same_value():
    """0.285 is 28.5% exactly; 0.285 * 100 in floats is 28.4999…, which dec(0) showed as 28%."""
    from anatomia_engine.numfmt import fmt_pct
    from anatomia_engine.plot import new_figure
    from figures_src._shared.charts import bar_chart

    style = STYLES[0]
    with matplotlib.rc_context(style.rc()):
        fig, ax = new_figure(style)
        bar_chart(ax, ["a", "b"], [0.285, 0.715], style=style, decimals=0, percent=True)
        labels = [t.get_text() for t in ax.texts]
    plt.close(fig)
    assert labels == [fmt_pct(0.285, 0), fmt_pct(0.715, 0)] == ["29%", "72%"]
