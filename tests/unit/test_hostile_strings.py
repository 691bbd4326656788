"""A module's strings land on pages as text, never as markup: a table's cells and header, a figure's
caption and alt text, a number's popover (`what`, `cite`). `<script>alert(3)` is shown, not run; a
`what` with braces of its own keeps its description."""

from __future__ import annotations

import html
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from anatomia_engine import codec
from anatomia_engine.kit import Table
from helpers import convert_page

HOSTILE = ["<script>alert(3)</script>", "<img src=x onerror=alert(3)>", "a & b <i>c</i>"]


def render(body: str, values: dict, meta: dict | None = None, figures: dict | None = None) -> str:
    results = {"demo": SimpleNamespace(values=values, meta=meta or {}, figures=figures or {},
                                       folder=Path("."), files=[])}
    return convert_page(body, "---\ncomputed: [demo]\n---\n" + body, results)[0]


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_table_shows_a_module_string_as_text(hostile):
    table = Table([hostile, "p"], [[hostile, 0.25], ["kot", 0.5]], [None, "dec:2"])
    page = render("{{ t }}\n", {"t": table})
    assert "<script" not in page and "<img" not in page and "<i>" not in page, page
    assert hostile in _text(page)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_figure_caption_and_alt_text_are_text(hostile):
    table = Table(["x"], [[1.0]])
    figure = {"files": {"light": "f-light.svg", "dark": "f-dark.svg", "csv": "f.csv"},
              "alt": hostile, "caption": hostile, "table": codec.encode_value(table)}
    page = render('{{ figure("f") }}\n', {}, figures={"f": figure})
    assert "<script" not in page and "<i>" not in page and "<img src=x" not in page, page
    assert hostile in _text(page)                                       # the caption, as text
    alts = [html.unescape(a) for a in re.findall(r'alt="([^"]*)"', page)]
    assert alts and all(a == hostile for a in alts), alts


@pytest.mark.parametrize("what", ["zbiór {a, b} i {i}", "{0} <script>alert(3)</script>", "klamry }{"])
def test_a_popover_keeps_a_description_with_braces_and_shows_it_as_text(what):
    values = {"w": np.array([0.25, 0.75])}
    meta = {"w": {"function": "f", "what": what, "cite": "<b>Dao</b> (2023)", "axes": [["kot", "pies"]]}}
    page = render("Waga {{ w[1] | dec(2) }}.\n", values, meta)
    spans = re.findall(r"<span [^>]*class=\"num\"[^>]*>", page)
    assert spans, page
    attrs = {k: html.unescape(v) for k, v in re.findall(r'([a-z-]+)="([^"]*)"', spans[0])}
    assert attrs["data-what"] == what.replace("{i}", "pies"), attrs
    assert attrs["data-cite"] == "<b>Dao</b> (2023)"
    assert "<b>Dao" not in page and "<script" not in page
