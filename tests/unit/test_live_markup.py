"""A page with `live:` marks each claim and each number with its compiled expression (what
docs/javascripts/live-example.js recomputes); any other page gets none of it."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from anatomia_engine import placeholders as ph
from anatomia_engine.errors import EngineError
from anatomia_engine.kit import Table
from helpers import convert_page

ROOT = Path(__file__).resolve().parents[2]
VALUES = {"w": np.array([[1.0, 0.0], [0.35, 0.65]]), "n": 4,
          "tab": Table(["token", "p"], [["cat", 0.2], ["chases", 0.3]], [None, "pct:1"])}
BODY = ("{% claim w[1][1] > w[1][0] %}chases patrzy na siebie ({{ w[1][1] }}) mocniej niż na cat "
        "({{ w[1][0] | dec(1) }}){% endclaim %}, a *n* = {{ n }}.\n\n{{ tab }}\n")


def render(body: str, live: bool) -> str:
    # the demo's values do not come from a browser model: the page declares them fixed
    declared = "live: {model: workedExample, fixed: [w, n, tab, names]}\n"
    head = "---\ncomputed: [demo]\n" + (declared if live else "") + "---\n"
    results = {"demo": SimpleNamespace(values=VALUES, meta={}, figures={}, folder=Path("."), files=[])}
    return convert_page(body, head + body, results, uri=f"live{live}.md")[0]


def test_a_live_page_wraps_the_claim_and_marks_every_number():
    out = render(BODY, live=True)
    claim = re.search(r'<span class="claim" data-claim="true" data-claim-expr="([^"]*)">(.*?)</span>, a', out)
    assert claim, out
    assert json.loads(html.unescape(claim.group(1))) == ph.compile_expression("w[1][1] > w[1][0]")
    sentence = re.sub(r"<[^>]+>", "", claim.group(2))
    assert sentence == "chases patrzy na siebie (0,65) mocniej niż na cat (0,4)"
    exprs = [(html.unescape(e), f) for e, f in re.findall(r'data-expr="([^"]*)" data-fmt="([^"]*)"', out)]
    assert exprs == [('"w 1 1"', "dec"), ('"w 1 0"', "dec:1"), ('"n"', "int"),
                     ('"tab 0 1"', "pct:1"), ('"tab 1 1"', "pct:1")]


def test_any_other_page_carries_no_live_markup():
    out = render(BODY, live=False)
    assert "data-claim" not in out and "data-expr" not in out and "data-fmt" not in out
    # and it is the live page without the live markup
    live = render(BODY, live=True)
    stripped = re.sub(r' data-expr="[^"]*" data-fmt="[^"]*"', "", live)
    stripped = re.sub(r'<span class="claim"[^>]*>(.*?)</span>(, a)', r"\1\2", stripped)
    assert stripped == out


def test_a_claim_across_elements_marks_the_element_holding_it():
    out = render("*{% claim n > 1 %}ab* cd{% endclaim %} ef\n", live=True)
    para = re.fullmatch(r'<p data-claim="true" data-claim-expr="([^"]*)"><em>ab</em> cd ef</p>', out)
    assert para, out      # well nested: no span opened inside <em> and closed after it
    assert json.loads(html.unescape(para.group(1))) == ph.compile_expression("n > 1")


def test_a_live_claim_the_browser_cannot_recompute_stops_the_build_at_its_line():
    import pytest

    body = "Wstęp.\n\n{% claim sum(w[1][0:2]) > 0.9 %}Wiersz sumuje się do jedności.{% endclaim %}\n"
    assert "data-claim" not in render(body, live=False)
    with pytest.raises(EngineError) as info:
        render(body, live=True)
    assert info.value.id == "claim_error" and info.value.where == "docs/liveTrue.md:7"
    # the problem names the construct the browser's evaluator lacks
    assert info.value.fields["cond"] == "sum(w[1][0:2]) > 0.9" and "slice" in info.value.fields["problem"]


def test_a_word_chosen_by_computation_follows_the_reader_on_a_live_page():
    """A name indexed by argmax (a string) gets its compiled expression like a number does; the
    browser recomputes it (live-example.js), so the predicted token is not fixed text."""
    VALUES["names"] = ["cat", "chases"]
    try:
        out = render("Wygrywa {{ names[argmax(w[1])] }}.", live=True)
        plain = render("Wygrywa {{ names[argmax(w[1])] }}.", live=False)
    finally:
        del VALUES["names"]
    span = re.search(r'<span class="live-word" data-expr="([^"]*)" data-fmt="text">chases</span>', out)
    assert span, out
    assert json.loads(html.unescape(span.group(1))) == ["i", "names", ["f", "argmax", ["w 1"]]]
    assert "live-word" not in plain and "Wygrywa chases." in plain
