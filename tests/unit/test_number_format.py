"""The contributor page's examples (figures_src/number_format.py) come from the formatter and still
show what the page says of them."""

from __future__ import annotations

import pytest

import figures_src.number_format as number_format
from anatomia_engine import numfmt as nf
from anatomia_engine.errors import EngineError


def test_the_filter_table_lists_every_filter_of_the_formatter():
    table = number_format.filters()["filter_examples"]
    listed = {row[0].strip("`").split("(")[0] for row in table.rows}
    assert listed == set(nf.FILTERS)


def test_each_example_in_the_filter_table_is_what_the_formatter_writes():
    rows = {row[0].strip("`"): row for row in number_format.filters()["filter_examples"].rows}
    for label, examples, in_math in number_format.FILTER_TABLE:
        name = label.split("(")[0]
        for value, args, _ in examples:
            assert f"`{nf.apply(value, name, args)}`" in rows[label][1], label
        value, args, _ = examples[in_math]
        assert rows[label][2] == f"`{nf.apply(value, name, args, math=True)}`", label


def test_the_words_range_is_the_formatters():
    got = number_format.filters()
    assert nf.fmt_words(got["words_min"]) and nf.fmt_words(got["words_max"])
    for outside in (got["words_min"] - 1, got["words_max"] + 1):
        with pytest.raises(EngineError) as refused:
            nf.fmt_words(outside)
        assert refused.value.id == "words_range"


def test_the_as_shown_examples_show_what_the_page_says():
    got = number_format.as_shown()
    page = got["page_places"]
    shown = nf.fmt_dec
    # a > b looks equal on the page, and visible_places is the fewest more places that show it
    assert got["shown_a"] > got["shown_b"]
    assert shown(got["shown_a"], page) == shown(got["shown_b"], page)
    visible = got["visible_places"]
    assert nf.round_half_up(got["shown_a"], visible) > nf.round_half_up(got["shown_b"], visible)
    for fewer in range(page + 1, visible):
        assert nf.round_half_up(got["shown_a"], fewer) <= nf.round_half_up(got["shown_b"], fewer)
    # one value under two filters, two texts
    assert shown(got["eq_x"], page) != shown(got["eq_x"], page + 1)
    # near: within the tolerance exactly, not as shown
    assert abs(got["near_b"] - got["near_a"]) < got["near_tol"] <= got["near_gap"]
    # the difference as shown is not the difference of the numbers shown
    assert shown(got["sum_diff"], page) != shown(got["sum_reader"], page)
    assert got["sum_diff"] == got["sum_a"] - got["sum_b"]


@pytest.mark.parametrize(("name", "value"), [("SHOWN_B", 0.3), ("EQ_X", 0.35), ("NEAR_TOL", 0.02),
                                              ("SUM_B", 0.115)])
def test_an_example_that_stops_showing_its_point_stops_the_module(monkeypatch, name, value):
    monkeypatch.setattr(number_format, name, value)
    with pytest.raises(EngineError) as stopped:
        number_format.as_shown()
    assert stopped.value.id == "guide_example"
