"""The blog post "głowy indukcyjne" and its module figures_src/induction_training.py.

Page: docs/posty/posts/glowy-indukcyjne.md -> /posty/glowy-indukcyjne/.
Checked: front matter, the built page (title, date, tags, links, footnotes, figures in both
themes with their alt text), every number shown against the value the module computes, and the
module's key values against an independent recomputation from its recorded curves and its
trained parameters.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose

from anatomia_engine.kit import KIND
from figures_src import induction_training as it
from helpers import whole_page
from tests.induction_post import (
    FIGURES,
    induction_by_occurrence,
    phase_change_by_hand,
    plain_patterns,
    short_run,
    values,
)

REPO = Path(__file__).resolve().parents[2]
POST = REPO / "docs" / "posty" / "posts" / "glowy-indukcyjne.md"


def front_matter() -> tuple[dict, str]:
    text = POST.read_text(encoding="utf-8")
    m = re.match(r"^---\n(.*?)\n---\n", text, re.DOTALL)
    assert m, "the post must start with YAML front matter"
    return yaml.safe_load(m.group(1)), text[m.end():]


@pytest.fixture(scope="module")
def article(built_site):
    path = built_site / "posty" / "glowy-indukcyjne" / "index.html"
    assert path.exists(), "the post must be built at /posty/glowy-indukcyjne/"
    found = BeautifulSoup(whole_page(path), "html.parser").select_one(   # closed boxes put back
        "article.md-content__inner")
    assert found is not None
    return found


# --- front matter and page ------------------------------------------------------------------

def test_front_matter():
    meta, body = front_matter()
    assert meta["slug"] == "glowy-indukcyjne"
    assert meta["computed"] == ["induction_training"]
    assert isinstance(meta["date"], datetime.date)
    assert {"transformer", "anatomia llm"} <= set(meta["tags"])
    assert len(meta["description"]) > 80
    assert body.count("<!-- more -->") == 1
    assert "[^" not in body.split("<!-- more -->")[0], "no footnotes in the excerpt"


def test_module_figures_are_the_ones_the_page_shows():
    found = {n for n, f in vars(it).items()
             if getattr(f, KIND, None) == "figure" and f.__module__ == it.__name__}
    assert found == set(FIGURES)
    _, body = front_matter()
    shown = re.findall(r'^\{\{ figure\("(\w+)"\) \}\}$', body, re.M)
    assert shown == list(FIGURES)


# --- the module's values, recomputed --------------------------------------------------------


def test_phase_change_and_half_way_steps_by_hand():
    v, h = values(), it.history()
    k = phase_change_by_hand(h)
    assert v["tr_phase_step"] == h.steps[k]
    prev = h.prev[:, 0, v["tr_prev_head"] - 1]
    ind = h.ind[:, 1, v["tr_ind_head"] - 1]
    for curve, key in ((prev, "tr_prev_half_step"), (ind, "tr_ind_half_step")):
        mid = (curve[0] + curve[-1]) / 2
        first = next(s for s, c in zip(h.steps, curve, strict=True) if c >= mid)
        assert v[key] == first


def test_final_losses_and_scores_by_plain_recomputation():
    """From the trained parameters, with loops: losses of both halves and every head's scores
    (the run is float32, the loops float64: rtol 1e-5 is rounding, not a formula)."""
    v, h, s = values(), it.history(), it.SETTINGS
    weights, logits = plain_patterns(s.config, h.params, h.eval_tokens)
    logp = logits[:, :-1] - np.log(np.exp(logits[:, :-1]).sum(axis=-1, keepdims=True))
    nll = -np.take_along_axis(logp, h.eval_tokens[:, 1:, None], axis=-1)[..., 0]
    assert_allclose(v["tr_first_end"], nll[:, : s.half - 1].mean(), rtol=1e-5)
    assert_allclose(v["tr_rep_end"], nll[:, s.half:].mean(), rtol=1e-5)
    assert_allclose(v["tr_ind_end"], induction_by_occurrence(weights[1], h.eval_tokens).max(),
                    rtol=1e-5)
    assert_allclose(v["tr_l1_ind_max_end"],
                    induction_by_occurrence(weights[0], h.eval_tokens).max(), rtol=1e-5)
    i = np.arange(1, s.half)
    assert_allclose(v["tr_prev_first_half"],
                    weights[0][:, v["tr_prev_head"] - 1, i, i - 1].mean(), rtol=1e-5)
    assert v["tr_n_params"] == sum(p.size for p in h.params.values())
    assert v["tr_log_v"] == pytest.approx(np.log(32), rel=1e-15)


def test_hand_built_circuit_on_the_sample_copies_exactly():
    v = values()
    assert v["tr_sample_hand"] > 0.999999
    assert v["tr_sample_hand"] > v["tr_sample_trained"]


def test_the_short_run_is_the_start_of_the_full_run():
    """Same seed, same batches: the shorter test run's curves are a prefix of the page's run."""
    short, full = short_run(), it.history()
    at = np.searchsorted(full.steps, short.steps)
    assert np.array_equal(full.steps[at], short.steps)
    assert_allclose(short.repeated, full.repeated[at], rtol=1e-12)
    assert_allclose(short.prev, full.prev[at], rtol=1e-12)


# --- in the browser -------------------------------------------------------------------------
