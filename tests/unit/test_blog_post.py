"""The blog post "Anatomia LLM: mechanizm uwagi" and its own modules.

Page: docs/posty/posts/llm-mechanizm-uwagi.md -> /posty/llm-mechanizm-uwagi/.
Modules checked here: figures_src/luong_bahdanau.py, scaling.py, masking.py, multi_head.py
(their maths, recomputed independently with NumPy), and the built page: front matter, tags,
date, excerpt, "Dla dociekliwych" blocks, footnotes, links, figures, and every number shown
in prose or in a table against the value the modules compute.
"""

from __future__ import annotations

import datetime
import importlib
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import yaml
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose, assert_array_equal

from anatomia_engine.kit import KIND, Plot, Table, Value
from anatomia_engine.plot import STYLES
from figures_src import luong_bahdanau, multi_head, scaling
from helpers import whole_page
from tests.blog_post_facts import ALL_MODULES, OWN_MODULES, SEED_TAGS, figures_of, module_values

REPO = Path(__file__).resolve().parents[2]
POST = REPO / "docs" / "posty" / "posts" / "llm-mechanizm-uwagi.md"


# --- helpers ------------------------------------------------------------------------------------


@cache
def module_citations(name: str) -> dict:
    """Names of a module's values that are quoted (Value with cite) -> the citation."""
    module = importlib.import_module(f"figures_src.{name}")
    out: dict = {}
    for fn in vars(module).values():
        if getattr(fn, KIND, None) == "values" and fn.__module__ == module.__name__:
            out.update({k: v.cite for k, v in fn().items() if isinstance(v, Value) and v.cite})
    return out


def front_matter() -> tuple[dict, str]:
    text = POST.read_text(encoding="utf-8")
    m = re.match(r"^---\n(.*?)\n---\n", text, re.DOTALL)
    assert m, "the post must start with YAML front matter"
    return yaml.safe_load(m.group(1)), text[m.end():]


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.fixture(scope="module")
def page(built_site) -> BeautifulSoup:
    path = built_site / "posty" / "llm-mechanizm-uwagi" / "index.html"
    assert path.exists(), "the post must be built at /posty/llm-mechanizm-uwagi/"
    return BeautifulSoup(whole_page(path), "html.parser")   # closed boxes put back


@pytest.fixture(scope="module")
def article(page):
    found = page.select_one("article.md-content__inner")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def scope():
    """Bare names of the modules in the front matter, as the page sees them."""
    from anatomia_engine.placeholders import Entry

    out = {}
    for name in ALL_MODULES:
        for key, value in module_values(name).items():
            assert key not in out, f"value name {key!r} is defined by two modules"
            out[key] = Entry(value, f"figures_src/{name}.py")
    return out


# --- front matter, excerpt, structure -----------------------------------------------------------

def test_front_matter_title_date_slug_tags_modules():
    meta, _ = front_matter()
    assert meta["title"] == "Anatomia LLM: mechanizm uwagi"
    assert meta["date"] == datetime.date(2026, 6, 12)
    assert meta["slug"] == "llm-mechanizm-uwagi"
    assert meta["tags"] == SEED_TAGS
    assert meta["computed"] == list(ALL_MODULES)
    assert len(meta["description"]) > 80
    assert "categories" not in meta  # the source post has none


def test_excerpt_separator_follows_the_intro():
    _, body = front_matter()
    assert body.count("<!-- more -->") == 1
    before, after = body.split("<!-- more -->")
    intro = "## :material-rocket-launch: Wstęp"
    assert intro in before and "## " not in before.replace(intro, "")
    # a short excerpt on the blog index: the intro's first paragraph, no boxes
    paragraphs = [p for p in before.split(intro, 1)[1].split("\n\n")[1:] if p.strip()]
    assert len(paragraphs) == 1 and "!!!" not in before
    assert "## :material-clipboard-text-outline: W skrócie { #tldr }" in after
    assert "[^" not in before, "footnote references in the excerpt break on the blog index"


def test_sections_in_the_order_of_the_source():
    _, body = front_matter()
    headings = [h.split(" ", 1)[1] for h in re.findall(r"^## (.+?)(?: \{ #[^}]+ \})?$", body, re.M)]
    # The source's sections, in its order, with the computed sections added in between.
    source = ["Wstęp", "Zanim powstał Transformer: skąd wzięła się uwaga",
              "Serce mechanizmu: Query, Key, Value",
              "Na co wolno patrzeć: self-, cross- i uwaga przyczynowa", "Wiele głów naraz",
              "Kwadratowy koszt i problem długiego kontekstu",
              "Nowoczesne warianty: jak ujarzmiono długi kontekst",
              "Co naprawdę robią głowy uwagi", "Uczenie, którego nikt nie zaprogramował",
              "Co dalej"]
    assert [h for h in headings if h in source] == source
    positions = [h for h in headings if "RoPE" in h]
    assert len(positions) == 1
    assert headings.index(positions[0]) > headings.index("Wiele głów naraz")


# --- numbers in the page ------------------------------------------------------------------------


def test_quoted_numbers_carry_their_citation():
    """Facts quoted from papers and datasheets are Values with cite, not computed numbers."""
    assert module_citations("flash_attention")["flash2_kernel_speedup"] == "Dao (2023)"
    assert module_citations("gqa_kv_cache")["gqa_uptrain_fraction"] == "Ainslie i in. (2023)"
    assert module_citations("multi_head")["base_heads"] == "Vaswani i in. (2017)"
    gpu = module_citations("flash_io")
    assert {"gpu_bandwidth_gbs", "gpu_peak_tflops", "gpu_sram_kb", "gpu_sms"} <= set(gpu)


# --- the modules' maths, recomputed -------------------------------------------------------------

def test_luong_scores_by_hand():
    v = module_values("luong_bahdanau")
    h_t, h_s = luong_bahdanau.LUONG_H_T, luong_bahdanau.LUONG_H_S
    w_g, w_c, v_c = (luong_bahdanau.LUONG_W_GENERAL, luong_bahdanau.LUONG_W_CONCAT,
                     luong_bahdanau.LUONG_V_CONCAT)
    dot = np.array([h_t @ h for h in h_s])
    general = np.array([h_t @ w_g @ h for h in h_s])
    concat = np.array([v_c @ np.tanh(w_c @ np.concatenate([h_t, h])) for h in h_s])
    for name, scores in (("dot", dot), ("general", general), ("concat", concat)):
        assert_allclose(v[f"luong_{name}_scores"], scores, rtol=1e-13)
        assert_allclose(v[f"luong_{name}_weights"], softmax(scores), rtol=1e-13)
        assert v[f"luong_{name}_weights"].sum() == pytest.approx(1.0, abs=1e-15)
    assert_allclose(v["luong_concat_hidden"],
                    np.tanh(w_c @ np.concatenate([h_t, h_s[2]])), rtol=1e-13)


def test_bahdanau_alignment_is_soft_and_mostly_diagonal():
    v = module_values("luong_bahdanau")
    w = v["bahdanau_weights"]
    assert w.shape == (len(v["bahdanau_target"]), len(v["bahdanau_source"]))
    assert_allclose(w.sum(axis=1), 1.0, rtol=1e-14)
    assert np.all(w > 0), "additive attention is soft: no weight is exactly zero"
    assert [int(i) for i in w.argmax(axis=1)] == [0, 1, 2, 2, 3]
    article_row = v["bahdanau_target"].index("a")
    assert v["bahdanau_article_max"] == w[article_row].max()
    assert w[article_row].max() < np.delete(w, article_row, axis=0).max(axis=1).min()


def test_bahdanau_scores_by_hand():
    """e_ij = v^T tanh(W s_{i-1} + U h_j), recomputed from states drawn as the module draws them."""
    v = module_values("luong_bahdanau")
    weights, context = v["bahdanau_weights"], v["bahdanau_context"]
    # the states as the docstring gives them: concept vectors plus noise from SEED (sources first)
    rng = np.random.default_rng(luong_bahdanau.SEED)
    n_concepts = luong_bahdanau.TARGET_NEEDS.shape[1]
    concepts = luong_bahdanau.STATE_SCALE * np.eye(n_concepts)[luong_bahdanau.SOURCE_CONCEPT]
    noisy = concepts + rng.normal(0.0, luong_bahdanau.STATE_NOISE, concepts.shape)
    h = np.hstack([noisy, np.ones((len(luong_bahdanau.BAHDANAU_SOURCE), 1))])   # the constant coordinate
    s_prev = (luong_bahdanau.STATE_SCALE * luong_bahdanau.TARGET_NEEDS
              + rng.normal(0.0, luong_bahdanau.STATE_NOISE, luong_bahdanau.TARGET_NEEDS.shape))
    bias = luong_bahdanau.BIAS
    for i, s in enumerate(s_prev):
        e = np.array([luong_bahdanau.V_SCALE * np.tanh(s + hj[:-1] + bias * hj[-1]).sum()
                      for hj in h])
        assert_allclose(weights[i], softmax(e), rtol=1e-12)
    assert_allclose(context, weights @ h, rtol=1e-13)


def test_variance_equals_d_k_within_monte_carlo_error():
    s = module_values("scaling")
    d = s["var_d_k_values"].astype(float)
    rel_error = np.abs(s["var_measured"] / d - 1.0)
    assert np.all(rel_error < 4 * s["var_rel_se"]), rel_error / s["var_rel_se"]
    assert_allclose(s["var_scaled"], 1.0, rtol=4 * s["var_rel_se"].max())
    assert_allclose(s["var_over_dk"] * d, 1.0, rtol=4 * s["var_rel_se"].max())
    assert s["focus_d_k"] == 64 == multi_head.TRANSFORMER_BASE["d_k"]
    assert s["sqrt_focus"] == 8.0
    assert s["std_focus"] == pytest.approx(np.sqrt(s["var_focus"]), rel=1e-15)


def test_monte_carlo_standard_error_formula():
    """Var((q.k)^2) = 2 d^2 + 6 d for q, k ~ N(0, I_d): check the formula by simulation."""
    rng = np.random.default_rng(7)
    for d in (1, 4, 16):
        x = np.einsum("sd,sd->s", rng.standard_normal((200_000, d)),
                      rng.standard_normal((200_000, d)))
        assert np.var(x**2) == pytest.approx(2 * d**2 + 6 * d, rel=0.05)


def test_scaled_softmax_saturates_less_than_unscaled():
    s = module_values("scaling")
    d = s["sat_d_k_values"]
    big = d >= 4
    assert np.all(s["sat_max_scaled"][big] < s["sat_max_unscaled"][big])
    assert np.all(s["sat_entropy_scaled"][big] > s["sat_entropy_unscaled"][big])
    assert np.all(s["sat_jac_scaled"][d >= 32] > s["sat_jac_unscaled"][d >= 32])
    # Unscaled: the largest weight grows towards 1 and the Jacobian norm shrinks with d_k.
    assert np.all(np.diff(s["sat_max_unscaled"][d >= 4]) > 0)
    assert np.all(np.diff(s["sat_jac_unscaled"][d >= 8]) < 0)
    # Scaled: flat in d_k.
    assert np.ptp(s["sat_max_scaled"][big]) < 0.03
    assert np.ptp(s["sat_jac_scaled"][big]) < 0.03
    assert np.all(s["sat_max_scaled"] >= s["sat_uniform_weight"])
    assert np.all(s["sat_entropy_scaled"] <= s["sat_max_entropy"])


def test_causal_mask_and_weights():
    m = module_values("masking")
    n = m["mask_n"]
    upper = np.triu(np.ones((n, n), bool), k=1)
    assert np.all(m["mask_M"][upper] == -np.inf) and np.all(m["mask_M"][~upper] == 0)
    w = m["mask_weights"]
    assert np.all(w[upper] == 0.0)
    assert_allclose(w.sum(axis=1), 1.0, rtol=1e-15)
    for i in range(n):
        assert_allclose(w[i, : i + 1], softmax(m["mask_scaled"][i, : i + 1]), rtol=1e-13)
    assert_allclose(m["mask_weights_full"], softmax(m["mask_scaled"]), rtol=1e-13)
    assert m["mask_first_self"] == 1.0
    assert m["mask_future_weight_sum"] == 0.0
    assert m["mask_last_row_diff"] == 0.0
    assert m["mask_first_future_share"] == pytest.approx(m["mask_weights_full"][0, 1:].sum())
    assert_array_equal(np.isinf(m["mask_masked"]), upper)


def test_transformer_base_configuration():
    cfg = multi_head.TRANSFORMER_BASE
    # Vaswani et al. (2017), §3.2.2, §3.1 and §3.3: typed here a second time to catch typos.
    assert cfg == {"d_model": 512, "h": 8, "d_k": 64, "d_v": 64, "N": 6, "d_ff": 2048}
    v = module_values("multi_head")
    assert v["base_d_k"] == cfg["d_model"] // cfg["h"] == cfg["d_k"]
    assert v["base_proj_params_multi"] == v["base_proj_params_single"] == 4 * 512**2
    assert v["base_score_mults_multi"] == v["base_score_mults_single"] == 512
    assert v["base_scale"] == 0.125
    assert v["base_wrong_scale_variance"] == pytest.approx(v["base_scale_dmodel"] ** 2 * 64)


def test_multi_head_weights_by_hand():
    """Multi-head attention recomputed without attn_core: per-head softmax(q k^T / sqrt(d_k))."""
    v = module_values("multi_head")
    rng = np.random.default_rng(multi_head.SEED)
    t, d, h = len(multi_head.TOKENS), multi_head.TOY_D_MODEL, multi_head.TOY_HEADS
    x = rng.normal(0.0, 1.0, (t, d))
    w_q, w_k, _, _ = (rng.normal(0.0, multi_head.TOY_W_STD, (d, d)) for _ in range(4))
    d_k = d // h
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        q, k = x @ w_q[:, cols], x @ w_k[:, cols]
        assert_allclose(v["mh_weights"][i], softmax(q @ k.T / np.sqrt(d_k)), rtol=1e-12)
    assert v["mh_row_sum_max_error"] < 1e-14
    first_choice = [int(np.argmax(v["mh_weights"][i][v["mh_query"]])) for i in range(3)]
    assert len(set(first_choice)) == 3, "the text says three heads look at three words"


@pytest.mark.parametrize("module", OWN_MODULES, ids=lambda m: m.__name__.split(".")[-1])
def test_figures_render_with_polish_alt_text_and_data(module):
    import matplotlib.pyplot as plt

    for name, fn in figures_of(module).items():
        for style in STYLES:
            plot = fn(style)
            assert isinstance(plot, Plot)
            assert len(plot.alt) > 60 and re.search(r"[ąćęłńóśźż]", plot.alt), name
            assert plot.caption and len(plot.caption) < 160, f"{name}: keep the caption short"
            assert isinstance(plot.table, Table) and plot.table.rows
            plot.table.to_markdown()  # every cell formats
            plt.close(plot.fig)


def test_figure_tables_hold_the_module_values():
    lb, sc = module_values("luong_bahdanau"), module_values("scaling")
    table = luong_bahdanau.luong_weights(STYLES[0]).table
    assert_allclose(np.array([r[1:] for r in table.rows], float),
                    np.stack([lb["luong_dot_weights"], lb["luong_general_weights"],
                              lb["luong_concat_weights"]]), rtol=0)
    table = luong_bahdanau.bahdanau_alignment(STYLES[0]).table
    assert_allclose(np.array([r[1:] for r in table.rows], float), lb["bahdanau_weights"], rtol=0)
    table = scaling.variance_vs_dk(STYLES[0]).table
    assert_allclose(np.array([r[1] for r in table.rows]), sc["var_measured"], rtol=0)
    table = scaling.saturation_vs_dk(STYLES[0]).table
    unscaled = [r for r in table.rows if r[1] == "bez"]
    scaled = [r for r in table.rows if r[1] == "1/√dₖ"]
    assert [r[0] for r in unscaled] == [r[0] for r in scaled] == list(sc["sat_d_k_values"])
    assert_allclose(np.array([r[2] for r in unscaled]), sc["sat_max_unscaled"], rtol=0)
    assert_allclose(np.array([r[3] for r in unscaled]), sc["sat_entropy_unscaled"], rtol=0)
    assert_allclose(np.array([r[4] for r in scaled]), sc["sat_jac_scaled"], rtol=0)
    table = multi_head.head_split(STYLES[0]).table
    assert [r[3] for r in table.rows] == [64] * 8
    assert [r[1] for r in table.rows] == list(range(0, 512, 64))
