"""The report of unchecked sentences (anatomia_engine/unchecked.py): a value shown beside a comparing
word outside every claim is listed with file:line; a claim's sentence, code and a sentence marked
{% nocompare %} are not; a marker on a sentence with nothing to judge is listed too. The site's own
pages hold no unchecked sentence."""

from pathlib import Path

import pytest

from anatomia_engine import unchecked
from tests.unit.demo_page import page

ROOT = Path(__file__).resolve().parents[2]


def found(text: str) -> list[str]:
    return [str(f) for f in unchecked.scan(text, "docs/x.md")]


@pytest.mark.parametrize("sentence", [
    "Jeszcze {{ w }} kroków przed skokiem strata wynosi {{ p }}.",
    "Wynik jest ponad cztery razy większy: {{ p }}.",
    "Prawy wykres pokazuje {{ p }}.",
    "Strata rośnie do {{ p | dec(2) }}.",
    "Po {{ n }} krokach model trafia.",
])
def test_a_value_beside_a_comparing_word_is_listed_with_its_line(sentence):
    got = found("---\ntitle: x\n---\n\nWstęp.\n\n" + sentence + "\n")
    assert len(got) == 1 and got[0].startswith("docs/x.md:7: „"), got


@pytest.mark.parametrize("text", [
    "{% claim p > 0.3 %}Wynik {{ p }} jest większy niż 0,3.{% endclaim %}",
    "Kod: `{{ p }} więcej`.",
    "```\n{{ p }} więcej\n```",
    "Wynik {{ p }} to więcej{% nocompare %}.",
    "Wynik wynosi {{ p }}. Jest więcej zdań bez liczb.",
    "Model ma {{ n }} parametrów.",
])
def test_claims_code_marked_and_plain_sentences_are_not_listed(text):
    assert found(text + "\n") == []


def test_a_marker_with_nothing_to_judge_is_listed():
    [finding] = unchecked.scan("Wynik wynosi {{ p }}{% nocompare %}.\n", "docs/x.md")
    assert finding.stale and finding.where == "docs/x.md:1"


def test_the_marker_shows_nothing_on_the_page():
    out, _ = page("Wynik {{ p }} to więcej{% nocompare %}.")
    assert "nocompare" not in out and "więcej." in out


def test_the_site_has_no_unchecked_sentence():
    assert [str(f) for f in unchecked.scan_docs(ROOT / "docs")] == []
