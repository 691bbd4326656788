"""A live page's recomputation data leaves the page for its sidecar (anatomia_engine/live.py):
each element keyed by its position among live.ITEMS with the text it shows."""

from __future__ import annotations

import json

import pytest

from anatomia_engine import live
from anatomia_engine.errors import EngineError

PAGE = ('<nav><span class="num" data-expr="&quot;x&quot;">9</span></nav><article>'
        '<div class="live-example" id="live-example" data-w="[1, 2]" data-name="&quot;cat&quot;"></div>'
        '<p><span class="claim" data-claim="true" data-claim-expr="[&quot;cmp&quot;]">a '
        '<span class="num" tabindex="0" data-exact="0.35" data-expr="&quot;w 0&quot;" '
        'data-fmt="dec:2">0,35</span>'
        '<br> b</span> <span class="num" data-exact="4">4</span></p>'
        '<div class="arithmatex" data-tex="[&quot;x = &#123;&#125;&quot;]"><math><mn>1</mn>'
        '<annotation>x = {}</annotation></math></div></article>')


def test_the_page_keeps_its_text_and_the_sidecar_gets_the_data_by_position():
    page, data = live.split(PAGE, "krok/index.html")
    for moved in live.MOVED + ("data-w=", "data-name="):
        assert moved not in page, moved
    assert '<div class="live-example" id="live-example" data-live-src="index.live.json">' in page
    assert '<nav><span class="num">9</span></nav>' in page     # outside the article: not counted
    assert 'data-exact="0.35"' in page and 'data-claim="true"' in page      # first-load tooltips, claims
    sidecar = json.loads(data)
    assert sidecar["inputs"] == {"w": [1, 2], "name": "cat"}
    assert sidecar["count"] == 4 and sidecar["selector"] == live.ITEMS
    assert sidecar["items"] == [
        [0, "a 0,35 b", {"claim-expr": ["cmp"]}],
        [1, "0,35", {"expr": "w 0", "fmt": "dec:2"}],
        [3, "1x = {}", {"tex": ["x = {}"]}],
    ]
    assert live.split(PAGE, "krok/index.html") == (page, data)   # deterministic


def test_a_live_page_without_its_root_is_an_error():
    with pytest.raises(EngineError) as info:
        live.split(PAGE.replace('id="live-example"', 'id="other"'), "krok/index.html")
    assert (info.value.id, info.value.where) == ("live_without_root", "krok/index.html")
