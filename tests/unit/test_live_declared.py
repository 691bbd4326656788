"""A live page declares the browser model that recomputes it; the build stops on a value, a claim or
a figure that model cannot recompute and the page does not declare `fixed` (or, for a figure,
`stale`). The declared models are held to docs/javascripts/explorer.js and live-example.js."""

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from mkdocs.exceptions import BuildError

from anatomia_engine import live
from anatomia_engine.kit import Table
from tests.helpers import convert_page
from tests.unit.live_js import call_many
from tests.unit.test_live_example import _random_inputs, js_inputs

ROOT = Path(__file__).resolve().parents[2]
VALUES = {"probs": np.array([0.2, 0.8]), "soft_pred": 0.4, "top_token": "chases",
          "soft_table": Table(["klucz", "waga"], [[1.0, 0.2]], ["dec:1", "dec:2"])}


def render(front: str, body: str) -> str:
    raw = f"---\ncomputed: [demo]\n{front}---\n{body}"
    results = {"demo": SimpleNamespace(values=VALUES, meta={}, figures={}, folder=Path("."), files=[])}
    return convert_page(body, raw, results)[0]


def test_the_declared_model_is_what_the_browser_computes():
    example = call_many([("workedExample", [js_inputs(*_random_inputs(np.random.default_rng(0), False))])])
    assert set(example[0]["ok"]) == live.MODELS["workedExample"].names
    source = (ROOT / "docs" / "javascripts" / "live-example.js").read_text(encoding="utf-8")
    assert set(re.findall(r'id === "fig-worked_example-(\w+)"', source)) == live.MODELS["workedExample"].draws


def test_a_value_the_model_cannot_recompute_stops_the_build_at_its_line():
    front = "live: {model: workedExample}\n"
    got = pytest.raises(BuildError, render, front, "Najlepszy: {{ top_token }}.\n\nWynik {{ soft_pred }}.")
    assert str(got.value).startswith("docs/x.md:7: {{ soft_pred }} on a live page: the browser model "
                                     "'workedExample' cannot recompute 'soft_pred'")
    claim = "{% claim soft_pred > 0.3 %}Duży.{% endclaim %}"
    assert "cannot recompute 'soft_pred'" in str(pytest.raises(BuildError, render, front, claim).value)
    assert "0,4" in render("live: {model: workedExample, fixed: [soft_pred]}\n", "Wynik {{ soft_pred }}.")
    table = pytest.raises(BuildError, render, front, "Tabela:\n\n{{ soft_table }}\n")
    assert "cannot recompute 'soft_table'" in str(table.value)


@pytest.mark.parametrize("front", ["live: true\n", "live: {model: nowhere}\n",
                                   "live: {model: workedExample, x: 1}\n"])
def test_a_live_page_names_a_known_model(front):
    got = str(pytest.raises(BuildError, render, front, "tekst").value)
    assert got.startswith("docs/x.md:3: live:") and "workedExample" in got
