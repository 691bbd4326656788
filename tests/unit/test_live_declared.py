"""A live page declares the browser model that recomputes it; the build stops on a value, a claim or
a figure that model cannot recompute and the page does not declare `fixed` (or, for a figure,
`stale`). The declared models are held to docs/javascripts/explorer.js and live-example.js."""

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from anatomia_engine import live
from anatomia_engine import markdown as amd
from anatomia_engine.errors import EngineError
from anatomia_engine.kit import Table
from helpers import convert_page
from tests.live_inputs import js_inputs, random_inputs
from tests.unit.live_js import call_many

ROOT = Path(__file__).resolve().parents[2]
VALUES = {"probs": np.array([0.2, 0.8]), "soft_pred": 0.4, "top_token": "chases", "tokens": ["cat", "chases"],
          "soft_table": Table(["klucz", "waga"], [[1.0, 0.2]], ["dec:1", "dec:2"])}


def render(front: str, body: str) -> str:
    raw = f"---\ncomputed: [demo]\n{front}---\n{body}"
    results = {"demo": SimpleNamespace(values=VALUES, meta={}, figures={}, folder=Path("."), files=[])}
    return convert_page(body, raw, results)[0]


def test_the_declared_model_is_what_the_browser_computes():
    example = call_many([("workedExample", [js_inputs(*random_inputs(np.random.default_rng(0), False))])])
    assert set(example[0]["ok"]) == live.MODELS["workedExample"].names
    source = (ROOT / "docs" / "javascripts" / "live-example.js").read_text(encoding="utf-8")
    assert set(re.findall(r'id === "fig-worked_example-(\w+)"', source)) == live.MODELS["workedExample"].draws


def test_a_value_the_model_cannot_recompute_stops_the_build_at_its_line():
    front = "live: {model: workedExample}\n"
    body = "Najlepszy: {{ top_token }}.\n\nWynik {{ soft_pred }}."
    got = pytest.raises(EngineError, render, front, body).value
    assert (got.id, got.where) == ("live_unrecomputable", "docs/x.md:7")
    assert got.fields == {"source": "{{ soft_pred }}", "model": "workedExample", "name": "soft_pred"}
    claim = "{% claim soft_pred > 0.3 %}Duży.{% endclaim %}"
    got = pytest.raises(EngineError, render, front, claim).value
    assert (got.id, got.fields["name"]) == ("live_unrecomputable", "soft_pred")
    assert "0,4" in render("live: {model: workedExample, fixed: [soft_pred]}\n", "Wynik {{ soft_pred }}.")
    table = pytest.raises(EngineError, render, front, "Tabela:\n\n{{ soft_table }}\n").value
    assert (table.id, table.fields["name"]) == ("live_unrecomputable", "soft_table")


@pytest.mark.parametrize(("front", "id"), [
    ("live: true\n", "live_model"),
    ("live: {model: nowhere}\n", "live_model"),
    ("live: {model: workedExample, x: 1}\n", "live_keys"),
    ("live: {model: workedExample, fixed: soft_pred}\n", "live_keys"),
])
def test_a_live_page_names_a_known_model(front, id):
    got = pytest.raises(EngineError, render, front, "tekst").value
    assert (got.id, got.where) == (id, "docs/x.md:3")

LIVE = "live: {model: workedExample}\n"


@pytest.mark.parametrize(("body", "line"), [
    ("![Najlepszy: {{ top_token }}](x.png)\n", 7),                # an image's alt text
    ('<abbr title="{{ probs[1] | pct(1) }}">p</abbr>\n', 7),       # a raw tag's attribute
    ('Akapit.\n{ aria-label="{{ top_token }}" }\n', 8),            # an attribute list's attribute
    ("[link]({{ top_token }}.html)\n", 7),                          # an address
    ("<svg><text>{{ top_token }}</text></svg>\n", 7),               # text inside a drawing
    ("Tokeny: {{ tokens | text }}.\n", 7),                           # running text, shown without a span
    ("## Wynik {{ top_token }}\n", 7),                                # a heading: the TOC copies it
    ("<textarea>{{ top_token }}</textarea>\n", 7),                   # a text area's text
    ('[x](y.html "tytuł {{ top_token }}")\n', 7),                    # a link's title
])
def test_a_value_the_browser_leaves_as_built_stops_a_live_page_at_its_line(body, line):
    """The browser recomputes a live page's numbers, words, claims and formulas, never an attribute
    or a drawing's text: such a value would keep the page's numbers after the reader changes theirs."""
    got = pytest.raises(EngineError, render, LIVE, "Wstęp.\n\n" + body).value
    assert (got.id, got.where) == ("live_as_built", f"docs/x.md:{line}")
    assert got.fields["model"] == "workedExample"


def test_a_title_showing_a_value_of_a_live_page_stops_the_build_at_its_line():
    front = LIVE + "title: Wynik {{ top_token }}\n"
    raw = f"---\ncomputed: [demo]\n{front}---\ntekst\n"
    results = {"demo": SimpleNamespace(values=VALUES, meta={}, figures={}, folder=Path("."), files=[])}
    meta = {"title": "Wynik {{ top_token }}"}
    page = amd.Page("x.md", raw)
    registry = amd.PageRegistry()
    got = pytest.raises(EngineError, amd.render_page, "tekst\n", page, results, registry, meta=meta).value
    assert (got.id, got.where, got.fields["name"]) == ("live_as_built", "docs/x.md:4", "top_token")


def test_a_fixed_value_and_the_models_inputs_may_stand_in_attributes():
    fixed = "live: {model: workedExample, fixed: [soft_pred]}\n"
    assert 'alt="Wynik 0,40"' in render(fixed, "![Wynik {{ soft_pred }}](x.png)\n")
    root = '<div class="live-example" id="live-example" data-probs="{{ probs | json }}"></div>\n'
    assert 'data-probs="[0.2, 0.8]"' in render(LIVE, root)
    # the same attribute on any other element is not the model's input
    other = '<div class="other" data-probs="{{ probs | json }}"></div>\n'
    assert pytest.raises(EngineError, render, LIVE, other).value.id == "live_as_built"
    # an ordinary page keeps its numbers as built by design
    assert 'alt="Najlepszy: chases"' in render("", "![Najlepszy: {{ top_token }}](x.png)\n")
