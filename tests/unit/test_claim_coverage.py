"""A claim covers its sentence: its condition is a statement, every value the sentence shows takes part
in it (or is declared context), the numbers it compares stand inside it and are checked as shown
however the page names them; where/when a value was measured is related; a check's limit is not shown.
Rendered through the page renderer on short pages."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from mkdocs.exceptions import BuildError

from helpers import convert_page
from tests.unit.demo_page import HEAD

VALUES = {"hi": 0.3501, "lo": 0.3499, "a": 0.9, "b": 0.1, "step": 440, "x": 0.354, "y": 0.349,
          "share": 0.3504, "names": ["cat", "chases", "mouse"], "p": np.array([0.2, 0.5, 0.3])}


def page(body: str, values: dict | None = None, meta: dict | None = None) -> str:
    values = {**VALUES, **(values or {})}
    run = SimpleNamespace(values=values, meta=meta or {}, figures={}, folder=Path("."), files=[])
    results = {"demo": run}
    return convert_page(body, HEAD + body, results)[0]


def error(body: str, **kw) -> BuildError:
    """The error that stops the page `body` (an EngineError: its id, where and fields)."""
    with pytest.raises(BuildError) as info:
        page(body, **kw)
    return info.value


# --- the condition is a statement -------------------------------------------------------------

@pytest.mark.parametrize("cond", ["[a > b, b > a]", "1", "a", "a - b", "all([a, b])", "names[argmax(p)]"])
def test_a_condition_that_compares_nothing_stops_the_build(cond):
    got = error(f"Wstęp.\n\n{{% claim {cond} %}}Zdanie.{{% endclaim %}}")
    assert (got.id, got.where, got.fields) == ("claim_not_statement", "docs/x.md:6", {"cond": cond})


@pytest.mark.parametrize("cond", ["a > b", "a > b and not b > a", "all([a > b, b < 1])", "any(p > 0.4)",
                                  "a in p or b < a"])
def test_comparisons_and_their_combinations_are_statements(cond):
    assert "Zdanie." in page(f"{{% claim {cond} %}}Zdanie.{{% endclaim %}}")


# --- every shown value takes part --------------------------------------------------------------

def test_a_value_the_condition_never_reads_stops_the_build_at_its_line():
    got = error("{% claim a > b %}Wynik {{ a | dec(1) }}\nzmierzono w kroku {{ step }}.{% endclaim %}")
    assert (got.id, got.where) == ("claim_unrelated", "docs/x.md:5")
    assert got.fields == {"value": "{{ step }}", "name": "step", "cond": "a > b"}


def test_a_label_declared_as_context_is_allowed_and_must_be_shown_and_not_read():
    assert "440" in page("{% claim a > b; context: step %}Wynik {{ a }} w kroku {{ step }}.{% endclaim %}")
    unshown = error("{% claim a > b; context: step %}Wynik {{ a }}.{% endclaim %}")
    assert (unshown.id, unshown.fields["name"]) == ("claim_context_unshown", "step")
    read = error("{% claim a > b; context: a %}Wynik {{ a }}.{% endclaim %}")
    assert (read.id, read.fields["name"]) == ("claim_context_read", "a")
    syntax = error("{% claim a > b; context: a + 1 %}Wynik {{ a }}.{% endclaim %}")
    assert syntax.id == "claim_context_syntax"
    unknown = error("{% claim a > b; context: stepp %}Wynik {{ a }} w kroku {{ step }}.{% endclaim %}")
    assert unknown.id == "claim_error" and "'step'" in unknown.fields["problem"]


def test_a_name_chosen_by_index_needs_its_list_related_or_declared():
    sentence = "Wygrywa {{ names[argmax(p)] }} ({{ max(p) | dec(1) }})."
    got = error(f"{{% claim max(p) > 0.4 %}}{sentence}{{% endclaim %}}")
    assert (got.id, got.fields["name"]) == ("claim_unrelated", "names")
    assert "chases" in page(f"{{% claim max(p) > 0.4; context: names %}}{sentence}{{% endclaim %}}")


# --- the numbers compared stand inside the claim ------------------------------------------------

def test_a_claim_around_the_comparative_words_only_stops_the_build():
    got = error("Wartość {{ a }} {% claim a > b %}jest większa niż{% endclaim %} {{ b }}.")
    assert (got.id, got.where) == ("claim_number_outside", "docs/x.md:4")
    assert got.fields == {"value": "{{ a }}", "cond": "a > b", "line": 4}
    # the same value shown in another paragraph is not this claim's sentence
    assert page("Wartość {{ a }}.\n\n{% claim a > b %}Jest większa.{% endclaim %}")


# --- as shown, however named, with the scaling shown ---------------------------------------------

def test_a_claim_naming_module_dot_name_is_checked_on_the_numbers_shown():
    got = error("{% claim demo.hi > demo.lo %}Wartość {{ hi }} jest większa niż {{ lo }}.{% endclaim %}")
    assert (got.id, got.fields["shown"]) == ("shown_claim", "0,35")


def test_percentages_are_compared_as_the_reader_reads_them():
    got = error("{% claim x > y %}Udział {{ x | pct(0) }} jest większy niż {{ y | pct(0) }}.{% endclaim %}")
    assert (got.id, got.fields["shown"]) == ("shown_claim", "35%")
    got = error("{% claim share > 0.35 %}Udział {{ share | pct(0) }} to więcej niż 35%.{% endclaim %}")
    assert (got.id, got.fields["shown"]) == ("shown_claim", "35%")
    assert page("{% claim share > 0.35 %}Udział {{ share | pct(2) }} to więcej niż 35%.{% endclaim %}")


# --- where and when; a check's limit -----------------------------------------------------------

INDUCTION = {"tr_window": 130, "tr_phase_step": 560, "tr_rep_before": 2.991, "tr_rep_before_step": 440,
             "tr_rep_end": 0.7, "tr_prev_half_step": 540, "tr_ind_half_step": 560, "tr_first_min": 3.68,
             "tr_first_min_step": 80, "tr_first_peak": 4.14, "tr_first_peak_step": 560}
INDUCTION_META = {"tr_window": {"limit": True}, "tr_rep_before": {"at": "tr_rep_before_step"},
                  "tr_first_min": {"at": "tr_first_min_step"}, "tr_first_peak": {"at": "tr_first_peak_step"}}
# The three sentences of the induction post that passed their claims while the page's own table
# contradicted them (the window of the check shown as a distance; a minimum measured far from where
# the words put it).
OLD_SENTENCES = [
    "{% claim tr_rep_before > 4 * tr_rep_end %}Jeszcze {{ tr_window | int }} kroków przed skokiem wynosi "
    "{{ tr_rep_before | dec(2) }}, ponad cztery razy więcej niż na koniec treningu.{% endclaim %}",
    "{% claim abs(tr_prev_half_step - tr_phase_step) <= tr_window and abs(tr_ind_half_step - tr_phase_step) "
    "<= tr_window %}Głowa poprzedniego tokenu przechodzi połowę drogi w kroku {{ tr_prev_half_step | int }}, "
    "a głowa indukcyjna w kroku {{ tr_ind_half_step | int }} — obie najwyżej {{ tr_window | int }} kroków od "
    "zmiany fazowej w kroku {{ tr_phase_step | int }}.{% endclaim %}",
    "{% claim tr_first_peak > tr_first_min + 0.2 and abs(tr_first_peak_step - tr_phase_step) <= tr_window %}"
    "Strata na losowej połowie w okolicy zmiany fazowej rośnie z {{ tr_first_min | dec(2) }} do "
    "{{ tr_first_peak | dec(2) }} (krok {{ tr_first_peak_step | int }}).{% endclaim %}",
]


@pytest.mark.parametrize("sentence", OLD_SENTENCES)
def test_the_old_induction_sentences_cannot_pass(sentence):
    got = error(sentence, values=INDUCTION, meta=INDUCTION_META)
    assert got.id in ("claim_unrelated", "claim_at_unrelated", "limit_shown"), got


def test_the_corrected_induction_sentences_pass():
    corrected = (
        "{% claim tr_rep_before > 4 * tr_rep_end and tr_rep_before_step < tr_phase_step %}Jeszcze "
        "{{ tr_phase_step - tr_rep_before_step | int }} kroków przed skokiem "
        "(krok {{ tr_rep_before_step | int }}) wynosi {{ tr_rep_before | dec(2) }}.{% endclaim %}\n\n"
        "{% claim tr_first_peak > tr_first_min + 0.2 and tr_first_min_step < tr_phase_step - tr_window and "
        "abs(tr_first_peak_step - tr_phase_step) <= tr_window %}Od minimum {{ tr_first_min | dec(2) }} (krok "
        "{{ tr_first_min_step | int }}) rośnie do {{ tr_first_peak | dec(2) }} (krok "
        "{{ tr_first_peak_step | int }}).{% endclaim %}")
    assert "2,99" in page(corrected, values=INDUCTION, meta=INDUCTION_META)


def test_a_value_measured_at_a_step_needs_the_step_related_even_when_only_compared():
    got = error("{% claim tr_first_min < 4 %}Strata spada.{% endclaim %}",
                values=INDUCTION, meta=INDUCTION_META)
    assert (got.id, got.fields["name"], got.fields["at"]) == (
        "claim_at_unrelated", "tr_first_min", "tr_first_min_step")


def test_a_limit_is_never_shown_and_at_must_name_a_value_of_the_module():
    got = error("{% claim tr_window > 100 %}Okno {{ tr_window }}.{% endclaim %}",
                values=INDUCTION, meta=INDUCTION_META)
    assert (got.id, got.fields["name"]) == ("limit_shown", "tr_window")
    got = error("tekst", values=INDUCTION, meta={"tr_first_min": {"function": "f", "at": "nowhere"}})
    assert (got.id, got.where) == ("value_at_unknown", "figures_src/demo.py")
    assert got.fields == {"function": "f", "name": "tr_first_min", "at": "nowhere"}
