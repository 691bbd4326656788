"""The placeholder language on short pages, rendered to HTML through Python-Markdown with the
project's extensions (those of mkdocs.yml): values, filters, math, code, claims, errors."""

import html
import re
from pathlib import Path
from types import SimpleNamespace

import markdown as pymd
import pytest

from anatomia_engine import final_page
from anatomia_engine import markdown as amd
from anatomia_engine.errors import EngineError
from anatomia_engine.kit import Table
from anatomia_engine.state import BuildState
from helpers import convert_page, markdown_extensions
from tests.unit.context_pages import causes
from tests.unit.demo_page import HEAD, ROOT, VALUES, page

SRC = "figures_src/demo.py"


def r(body, **kw):
    """The HTML of a one-paragraph page, without the paragraph's tags."""
    out, _ = page(body, **kw)
    return re.sub(r"^<p>(.*)</p>$", r"\1", out, flags=re.DOTALL)


def spans(out: str) -> list[dict[str, str]]:
    return [{k: html.unescape(v) for k, v in re.findall(r'([a-z-]+)="([^"]*)"', s)}
            for s in re.findall(r"<span [^>]*>", out) if 'class="num"' in s]


def error(body, **kw) -> EngineError:
    """The error that stops the page `body`: its `id`, `where` and `fields`."""
    with pytest.raises(EngineError) as info:
        page(body, **kw)
    return info.value


# the formatter's own refusal (numfmt), the cause of a `cannot_show`
FORMATTER_REFUSALS = {
    "{{ bad }}": "nan",
    "{{ w }}": "math_only",
    "{{ p | frobnicate }}": "unknown_filter",
    "{{ p | round(1) }}": "unknown_filter",
    "{{ p | dec(p) }}": "decimals_whole",
    "{{ w | dec(1) }}": "expected_number_array",
    "{{ n | dec(100000) }}": "decimals_range",
    "{{ ints | dec(1) }}": "expected_number_array",
    "{{ p | dec(1, 2) }}": "too_many_args",
    "{{ flag }}": "boolean_shown",
    "{{ huge | dec(2) }}": "too_many_digits",
}


# --- values and filters ---------------------------------------------------------------------

def test_number_in_prose_has_comma_and_provenance():
    out = r("waga {{ w[1][1] }} i {{ w[1, 0] | dec(3) }}")
    assert ">0,65</span>" in out and ">0,354</span>" in out
    first, second = spans(out)
    assert first == {"class": "num", "tabindex": "0", "data-exact": "0,6456563",
                     "data-what": "waga: chases patrzy na chases", "data-source": SRC,
                     "data-function": "weights"}
    assert second["data-what"] == "waga: chases patrzy na cat"
    assert "title=" not in out


def test_quoted_number_names_its_publication_not_a_module():
    out = r("{{ speedup }}")
    assert spans(out) == [{"class": "num", "tabindex": "0", "data-exact": "2", "data-what": "przyspieszenie",
                           "data-cite": "Dao (2023)"}]
    assert re.sub("<[^>]+>", "", out) == "2"


def test_exact_value_is_polish_with_seven_significant_digits():
    assert 'data-exact="4096"' in r("{{ n }}")  # an integer has no ",0"
    assert "data-exact=\"\u22122,5\"" in r("{{ -n / 1638.4 | dec(1) }}")
    computed = r("{{ w[1][1] + w[1][0] | dec(1) }}")
    assert "data-what" not in computed, "a computed expression is not the named value"


def test_same_placeholder_in_math_uses_latex_comma_and_no_html():
    out = r("\\( p = {{ p | dec(2) }} \\) oraz\n\n$$ {{ w | bmatrix(2) }} $$\n")
    assert r"p = 0{,}31" in html.unescape(out)
    assert r"\begin{bmatrix} 1{,}00 & 0{,}00 \\ 0{,}35 & 0{,}65 \end{bmatrix}" in html.unescape(out)
    assert 'class="num"' not in out


def test_latex_and_attribute_syntax_pass_through():
    out, _ = page("## Nagłówek {#id}\n\n" r"\(\frac{1}{\sqrt{d_k}}\) e^{ {{ p }} }"
                  "\n\n![obraz](x.png){ .klasa }")
    assert '<h2 id="id">' in out and 'class="klasa"' in out
    assert "0,31</span> }" in out  # outside math: prose format


def test_triple_braces_keep_the_outer_latex_group():
    assert r"e^{0{,}31}" in html.unescape(r(r"\( e^{{{ p }}} \)"))


def test_masked_scores_show_minus_infinity_in_math():
    assert r"-\infty" in html.unescape(r(r"\[ {{ masked | bmatrix(2) }} \]"))


def test_strings_are_escaped_in_prose():
    assert r("{{ name }}") == "&lt;b&gt;kot&lt;/b&gt;"


def test_other_filters():
    assert ">4096</span>" in r("{{ n }}")
    assert ">31,1%</span>" in r("{{ p | pct(1) }}")
    assert ">16\u00a0KiB</span>" in r("{{ n * 4 | bytes(0) }}")
    assert error("{{ tab | json }}").id == "table_no_filter"
    assert r("{{ w | json }}") == "[[1.0, 0.0], [0.35434369377420455, 0.6456563062257954]]"
    assert ">0,31</span>" in r("{{ demo.p }}")


def test_table_renders_as_a_table_with_number_spans():
    out, _ = page("Tabela:\n\n  {{ tab }}\n")
    assert "<table>" in out and re.search(r"<td[^>]*>cat</td>", out)
    assert {"class": "num", "tabindex": "0", "data-exact": "0,3", "data-what": "p (token: chases)",
            "data-source": SRC} in spans(out)
    assert ">30,0%</span>" in out


def test_words_filter_writes_small_counts_in_polish():
    assert re.sub("<[^>]+>", "", r("{{ n / 1024 | words }} głowy")) == "cztery głowy"
    assert re.sub("<[^>]+>", "", r('{{ n / 1024 | words("narzędnik") }} głowami')) == "czterema głowami"
    assert r"\text{cztery}" in html.unescape(r(r"\( {{ n / 1024 | words }} \)"))


# --- every context, decided by the parser (each of these published wrong text before) ------

@pytest.mark.parametrize("body", [
    "Kod:\n\n    {{ p }} i {% claim p > 1 %}\n",                     # an indented code block
    "\\` nie kod, a potem `{{ p }}` w kodzie",                     # after an escaped backtick
    "```\n{{ p }}\n{% claim 1 > 2 %}\n```\n",                      # a fenced block
    "!!! note\n\n    ```python\n    x = '{{ p }}'\n    ```\n",     # a fenced block in an admonition
    "- punkt\n\n        {{ p }}\n",                               # an indented block in a list
    "<pre><code>x = {{ p }}</code></pre>\n",                       # code in raw HTML
])
def test_code_of_any_kind_keeps_the_tag_as_written(body):
    out, _ = page(body)
    assert 'class="num"' not in out and "0,31" not in out
    tag = re.search(r"\{\{ p \}\}", html.unescape(re.sub(r"<[^>]+>", "", out)))
    assert tag, out


@pytest.mark.parametrize(("body", "attribute"), [
    ("![waga {{ p }}](x.png)", 'alt="waga 0,31"'),
    ('[odnośnik](x.md "tytuł {{ p }}")', 'title="tytuł 0,31"'),
    ("[odnośnik](https://example.org/?p={{ p }})", 'href="https://example.org/?p=0,31"'),
    ("*[KV]: pamięć {{ n }} tokenów\n\nKV", 'title="pamięć 4096 tokenów"'),
    ('<abbr title="około {{ p }}">x</abbr>', 'title="około 0,31"'),
    ('<div markdown="1" title="{{ p }}">\ntekst {{ p }}\n</div>', 'title="0,31"'),
    ("![obraz](x.png){ title='{{ p }}' }", 'title="0,31"'),
])
def test_attributes_get_plain_text(body, attribute):
    out, _ = page(body)
    assert attribute in out
    assert "&lt;span" not in out and "{{" not in out


def test_a_page_rendered_again_shows_its_new_values():
    """mkdocs serve renders a page again after an edit: the new text and values are used."""
    page("stare {{ p }}")
    out, _ = page("nowe {{ p }} i {{ n }}", values={**VALUES, "p": 0.5})
    assert [s["data-exact"] for s in spans(out)] == ["0,5", "4096"] and "nowe" in out


def test_an_error_in_the_front_matter_title_names_its_line():
    raw = "---\ntitle: Wynik {{ nothere }}\ncomputed: [demo]\n---\ntekst\n"
    results = {"demo": SimpleNamespace(values=VALUES, meta={}, figures={})}
    with pytest.raises(EngineError) as info:
        amd.render_page("tekst\n", amd.Page("x.md", raw), results, amd.PageRegistry(),
                        meta={"title": "Wynik {{ nothere }}"})
    assert (info.value.id, info.value.where) == ("unknown_value", "docs/x.md:2: {{ nothere }}")


def test_front_matter_title_and_description_get_plain_text():
    meta = {"title": "Wynik {{ p }}", "description": "O {{ n }} tokenach", "computed": ["demo"]}
    page("tekst", meta=meta)
    assert meta["title"] == "Wynik 0,31" and meta["description"] == "O 4096 tokenach"


def test_a_value_with_a_bar_stays_in_its_table_cell():
    out, _ = page("| a | b |\n| --- | --- |\n| {{ bar }} | {{ p | dec(1) }} |\n")
    cells = re.findall(r"<td>(.*?)</td>", out)
    assert cells[0] == "a | b" and ">0,3</span>" in cells[1]


def test_a_heading_carries_its_number_into_the_toc():
    out, md = page("## Wynik {{ p }}\n")
    assert md.toc_tokens[0]["name"] == "Wynik 0,31"
    assert md.toc_tokens[0]["id"] == "wynik-031"
    assert ">0,31</span>" in out


@pytest.mark.parametrize("body", [
    "!!! note \"Uwaga\"\n\n    waga {{ p }}\n",
    "??? info \"Więcej\"\n\n    waga {{ p }}\n",
    "Tekst[^1].\n\n[^1]: waga {{ p }}\n",
    "- punkt {{ p }}\n",
    "> cytat {{ p }}\n",
    "Termin\n:   opis {{ p }}\n",
    "<div markdown=\"1\">\nwaga {{ p }}\n</div>\n",
])
def test_prose_in_blocks_gets_the_number_span(body):
    out, _ = page(body)
    assert ">0,31</span>" in out and 'data-source="figures_src/demo.py"' in out


def test_a_figure_or_table_placeholder_inside_code_is_not_expanded():
    out, _ = page("    {{ tab }}\n")
    assert "<table>" not in out and "{{ tab }}" in out


def test_a_figures_data_box_has_a_short_summary_and_names_its_figure():
    from anatomia_engine import codec

    caption = "Wagi uwagi po softmaksie: każdy wiersz sumuje się do 1."
    figure = {"files": {"light": "f-light.svg", "dark": "f-dark.svg", "csv": "f.csv"}, "alt": "Mapa wag",
              "caption": caption, "table": codec.encode_value(Table(["token", "p"], [["cat", 0.2]]))}
    results = {"demo": SimpleNamespace(values={}, meta={}, figures={"fig": figure}, folder=Path("."))}
    body = '{{ figure("fig") }}\n'
    out, _ = convert_page(body, HEAD + body, results)
    box = re.search(r"<details([^>]*)>\s*<summary>(.*?)</summary>", out, re.DOTALL)
    assert box.group(2) == "Dane do rysunku" and caption in out
    assert f'aria-label="Dane do rysunku: {caption}"' in box.group(1)


# --- the output check: nothing of the language reaches a reader outside code ----------------

@pytest.mark.parametrize(("body", "line", "id", "mark"), [
    ("a\nb {{ p }\n", 5, "stray", "{{"),
    ("tekst p }} i\n", 4, "stray", "}}"),
    ("tekst {% claim p > 0\n", 4, "stray", "{%"),
    ("a\n\n`kod` i {{ p `x`\n", 6, "stray", "{{"),
    ("Zapis &lt;span class=\"num\"&gt; w tekście\n\n`<span class=\"num\">` w kodzie wolno\n", 4,
     "escaped_markup", None),
    ("<div>\n{{ p }} i }}\n</div>\n", 5, "stray", "}}"),  # raw HTML beside a placeholder
])
def test_the_output_check_names_the_line(body, line, id, mark):
    got = error(body)
    assert (got.id, got.where) == (id, f"docs/x.md:{line}"), got
    assert got.fields.get("mark") == mark


@pytest.mark.parametrize("body", [
    "Waga \\{{ p }} w tekście\n",
    "# Waga \\{{ p }}\n",
    "[odnośnik \\{{ p }}](x.md)\n",
    "\\{% claim p > 0 %}Zdanie.{% endclaim %}\n",
])
def test_a_backslash_before_a_tag_stops_the_build_where_markdown_would_show_it(body):
    """Markdown reads `\\{` as a literal brace: the reader would see a stray backslash beside the value."""
    got = error(body)
    mark = re.search(r"\\(\{[{%])", body).group(1)
    assert (got.id, got.where, got.fields["mark"]) == ("escaped_tag", "docs/x.md:4", mark)


def test_a_backslash_before_a_tag_in_code_or_after_an_escaped_backslash_is_kept():
    assert "<code>\\{{ p }}</code>" in r("`\\{{ p }}`")
    assert r("C:\\\\{{ p }}").startswith("C:\\<span")


def test_the_theme_text_around_a_page_shows_no_tag_as_written():
    """Tags and navigation titles come from the front matter and mkdocs.yml, outside the converted text."""
    page = '<nav><a href="x/">Waga {{ weight | dec(2) }}</a></nav><code>{{ c }}</code><script>x={{}}</script>'
    outside = [
        (page, "{{", "{{ weight | dec(2) }}"),
        ('<span class="md-tag">{% claim x %}</span>', "{%", "{% claim x %}"),
        # an attribute's value
        ('<meta name="description" content="Wagi {{ w }}">', "{{", "{{ w }}"),
    ]
    for html_text, mark, snippet in outside:
        with pytest.raises(EngineError) as info:
            final_page.check_theme_text(html_text, "docs/x.md")
        got = info.value
        assert (got.id, got.where, got.fields) == (
            "outside_body", "docs/x.md", {"mark": mark, "snippet": snippet})
    # code, scripts: theirs
    final_page.check_theme_text(page.replace("{{ weight | dec(2) }}", "0,65"), "docs/x.md")


def test_the_engines_markup_in_code_is_not_an_error():
    assert "<code>&lt;span class=\"num\"&gt;</code>" in r('Kontrakt: `<span class="num">`')


def test_braces_in_code_and_latex_are_not_taken_for_tags():
    out, _ = page("`{{ x }` i `{% x`\n\n```\n}} %}\n```\n\n"
                  r"\( \frac{1}{\sqrt{d_k}} \)" "\n\n" r"\[ \text{35\%} \]")
    assert "{{ x }" in html.unescape(out)
    assert r("{{ \"{{\" }}") == "{{"
    assert page('<div>\n{{ "{{" }} w surowym HTML\n</div>\n')[0] == "<div>\n{{ w surowym HTML\n</div>"


def test_a_token_left_where_no_processor_fills_it_stops_the_build():
    """A context nobody thought of: a later processor putting a token back into the page."""
    from markdown.treeprocessors import Treeprocessor

    class Late(Treeprocessor):
        def run(self, root):
            import xml.etree.ElementTree as etree

            etree.SubElement(root, "p").text = self.token

    state = BuildState()
    text = amd.render_page("a {{ p }}", amd.Page("x.md", HEAD + "a {{ p }}"),
                           {"demo": SimpleNamespace(values=VALUES, meta={}, figures={})}, state.pages)
    names, configs = markdown_extensions()
    md = pymd.Markdown(extensions=[state.extension(), *names], extension_configs=configs)
    late = Late(md)
    late.token = re.search("\ue000.*?\ue001", text).group(0)
    md.treeprocessors.register(late, "late", 1)
    with pytest.raises(EngineError) as info:
        md.convert(text)
    got = info.value
    assert (got.id, got.where, got.fields["source"]) == ("unresolved", "docs/x.md:4", "p")


# --- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "id", "fields"), [
    ("a\nb {{ nothere }}", "unknown_value", {"name": "nothere"}),
    ("{{ ww[1][1] }}", "unknown_value_near", {"name": "ww", "near": "'w'"}),
    ("{{ demo.pp }}", "unknown_value_near", {"name": "demo.pp"}),
    ("{{ bad }}", "cannot_show", {"filter": "the default format"}),
    ("{{ w[5][0] }}", "undefined", {"source": "w[5][0]"}),
    ("{{ w }}", "cannot_show", {"filter": "the default format"}),
    ("{{ p | frobnicate }}", "cannot_show", {"filter": "frobnicate"}),
    ("{{ 3 }}", "no_value", {}),
    ("{{ __import__('os') }}", "unknown_value", {"name": "__import__"}),
    ("{{ p.__class__ }}", "not_allowed", {"source": "p.__class__"}),
    ("{{ w.fill(0) }}", "not_allowed", {"source": "w.fill(0)"}),
    ("{{ p | round(1) }}", "cannot_show", {"filter": "round"}),
    ("{{ round(p) }}", "unknown_value", {"name": "round"}),
    ("x {{ tab }} y", "table_alone", {}),
    ("![{{ tab }}](x.png)", "table_alone", {}),
    ("{{ p | dec(1) | int }}", "one_filter", {"name": "dec"}),
    ("{{ p is number }}", "no_tests", {"name": "number"}),
    ('{{ figure("p") }}', "not_a_figure", {"name": "p"}),
    ("{{ figure(p) }}", "figure_by_name", {}),
    ("{{ w[n - 4095, 0] }}", "not_allowed", {"source": "w[n - 4095, 0]"}),
])
def test_errors_name_file_line_and_cause(text, id, fields):
    got = error(text)
    line = 4 + text.count("\n")
    placeholder = re.search(r"\{\{.*?\}\}", text).group(0)
    assert (got.id, got.where) == (id, f"docs/x.md:{line}: {placeholder}"), got
    assert fields.items() <= got.fields.items(), got.fields
    if id == "cannot_show":
        assert FORMATTER_REFUSALS[placeholder] in causes(got)


def test_an_unclosed_claim_is_named_at_its_line():
    got = error("{% claim p > 1 %}tekst")
    assert (got.id, got.where) == ("claim_never_closed", "docs/x.md:4")


@pytest.mark.parametrize(("text", "id", "fields"), [
    ("{{ p | dec(p) }}", "cannot_show", {"filter": "dec"}),
    ("{{ w | dec(1) }}", "cannot_show", {"filter": "dec"}),
    ("{{ p / z }}", "cannot_evaluate", {"source": "p / z"}),
    ("{{ sqrt(ints) }}", "cannot_evaluate", {"source": "sqrt(ints)"}),
    ("{{ n | dec(100000) }}", "cannot_show", {"filter": "dec"}),
    ("{{ ints | dec(1) }}", "cannot_show", {"filter": "dec"}),
    ("{{ p | dec(1, 2) }}", "cannot_show", {"filter": "dec"}),
    ("{{ p | dec(oops) }}", "unknown_value", {"name": "oops"}),
    ("{{ p +* 2 }}", "bad_expression", {"source": "p +* 2"}),
    ("{{ flag }}", "cannot_show", {"filter": "the default format"}),
    ("{{ huge | dec(2) }}", "cannot_show", {"filter": "dec"}),
])
def test_any_failure_while_evaluating_or_formatting_names_the_line(text, id, fields):
    got = error(text)
    assert (got.id, got.where) == (id, f"docs/x.md:4: {text}"), got
    assert fields.items() <= got.fields.items(), got.fields
    if id == "cannot_show":
        assert FORMATTER_REFUSALS[text] in causes(got)


@pytest.mark.parametrize(("text", "line", "id"), [
    ("a\n\n{% claimm p > 0 %}tekst{% endclaim %}", 6, "unknown_tag"),
    ("x\n{% claim p > 0 %}a\n\n{% claim p > 0 %}b{% endclaim %}", 5, "claim_open_again"),
    ("{% endclaim %}", 4, "endclaim_alone"),
])
def test_misspelt_unbalanced_and_unclosed_tags_are_errors(text, line, id):
    got = error(text)
    assert (got.id, got.where) == (id, f"docs/x.md:{line}"), got


def test_a_misspelt_tag_gets_the_nearest_tag_as_a_hint():
    got = error("{% claimm p > 0 %}tekst{% endclaim %}")
    assert got.fields["tag"] == "{% claimm p > 0 %}"
    assert "{% claim … %}" in got.fields["hint"]


@pytest.mark.parametrize("name", ["sum", "max", "dec", "true"])
def test_a_value_named_like_a_function_filter_or_word_is_refused(name):
    got = error("tekst", values={name: 1.0, "p": 0.5})
    assert (got.id, got.where, got.fields["name"]) == ("reserved_name", "figures_src/demo.py", name)
    assert got.fields["suggestion"] == f"{name}_value"


# --- claims ----------------------------------------------------------------------------------

def test_true_claim_renders_its_sentence():
    out = r("{% claim w[1][1] > w[1][0] %}„chases” patrzy mocniej na siebie ({{ w[1][1] }}).{% endclaim %}")
    assert out.startswith("„chases” patrzy mocniej na siebie (<span")


def test_false_claim_fails_quoting_the_sentence_and_line():
    got = error("Wstęp.\n\n{% claim w[1][0] > w[1][1] %}„chases” patrzy mocniej na „cat”.{% endclaim %}")
    assert (got.id, got.where) == ("false_claim", "docs/x.md:6")
    assert got.fields["sentence"] == "„chases” patrzy mocniej na „cat”."
    assert got.fields["cond"] == "w[1][0] > w[1][1]" and got.fields["values"].startswith("w = [[")


def test_claim_on_arrays_must_be_reduced():
    assert error("{% claim w > 0 %}x{% endclaim %}").id == "claim_arrays"
    assert r("{% claim all(w >= 0) and argmax(w[1]) == 1 %}ok{% endclaim %}") == "ok"


def test_a_claim_in_code_is_not_checked():
    out, _ = page("`{% claim 1 > 2 %}` jest w kodzie, `{% endclaim %}` też")
    assert "{% claim 1 &gt; 2 %}" in out


def test_a_claim_must_hold_for_the_numbers_as_shown():
    got = error("Wstęp.\n\n{% claim hi > lo %}{{ hi }} jest większa niż {{ lo }}.{% endclaim %}")
    assert (got.id, got.where) == ("shown_claim", "docs/x.md:6")
    assert (got.fields["cond"], got.fields["shown"]) == ("hi > lo", "0,35")
    assert "4 decimal places (0,3501, 0,3499)" in got.fields["fix"]
    assert r("{% claim hi > lo %}{{ hi | dec(4) }} > {{ lo | dec(4) }}{% endclaim %}")


def test_equality_must_hold_as_shown():
    assert error(
        "{% claim same == same2 %}{{ same | dec(2) }} to tyle samo co {{ same2 | dec(3) }}{% endclaim %}"
    ).id == "shown_claim"
    assert r("{% claim same == same2 %}{{ same | dec(2) }} to tyle samo co {{ same2 | dec(2) }}"
             "{% endclaim %}")


def test_an_about_claim_must_hold_as_shown_when_the_sentence_shows_both_sides():
    assert error(
        "{% claim abs(near_a - near_b) < 0.01 %}około: {{ near_a }} i {{ near_b }}{% endclaim %}"
    ).id == "shown_claim"
    # one side shown: nothing for a reader to compare, only the exact values count
    assert r("{% claim abs(near_a - near_b) < 0.01 %}około {{ near_a }}{% endclaim %}")


def test_a_shown_difference_agrees_with_the_shown_terms():
    got = error("Różnica: {{ a | dec(2) }} − {{ b | dec(2) }} = {{ a - b | dec(2) }}.")
    assert (got.id, got.where) == ("shown_difference", "docs/x.md:4: {{ a - b | dec(2) }}")
    assert got.fields == {"shown": "0,45", "reader": "0,57 − 0,11", "reader_result": "0,46",
                          "digits": "3 decimal places"}
    assert r("Różnica: {{ a | dec(3) }} − {{ b | dec(3) }} = {{ a - b | dec(3) }}.")
    assert r("Różnica: {{ a - b | dec(2) }}; osobno {{ a | dec(2) }}.\n\nI {{ b | dec(2) }}.")
    zero = error("{{ x | dec(2) }} − {{ y | dec(2) }} = {{ x - y | dec(2) }}",
                 values={**VALUES, "x": 0.346, "y": 0.344})
    assert (zero.fields["shown"], zero.fields["reader"], zero.fields["reader_result"]) == (
        "0,00", "0,35 − 0,34", "0,01")


def test_the_markdown_extension_never_publishes_a_placeholder_it_cannot_fill():
    assert pymd.markdown("tekst", extensions=["anatomia_engine.markdown"]) == "<p>tekst</p>"
    with pytest.raises(EngineError) as info:
        pymd.markdown("a {{ x }} b", extensions=["anatomia_engine.markdown"])
    assert info.value.id == "needs_page"


# --- the lab notebook's Markdown cells --------------------------------------------------------

def test_a_placeholder_in_a_notebook_markdown_cell_is_refused(tmp_path):
    from anatomia_engine.placeholders import refuse_in_notebook

    nb = tmp_path / "lab.py"
    nb.write_text("# %% [markdown]\n# # Lab\n#\n# `{{ kod }}` i\n# ```\n# {{ blok }}\n# ```\n\n"
                  "# %%\nx = f'{{x}}'\n\n# %% [markdown]\n# Wynik {{ p }}.\n", encoding="utf-8")
    with pytest.raises(EngineError) as info:
        refuse_in_notebook(nb, "docs/laby/lab.py")
    got = info.value
    assert (got.id, got.where, got.fields) == (
        "notebook_placeholder", "docs/laby/lab.py:13", {"mark": "{{", "kind": "Markdown"})
    refuse_in_notebook(ROOT / "docs" / "laby" / "lab-3.py", "docs/laby/lab-3.py")


# --- the front matter -------------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "id", "where"), [
    ("---\ntitle: a\ncomputed: [x\n---\n# T\n", "fm_yaml", "docs/x.md:4"),
    ("---\ntitle: a\ncomputed: 3\n---\n# T\n", "fm_computed", "docs/x.md:3"),
    ("---\ntitle: a\n\n# T\n", "fm_not_closed", "docs/x.md:1"),
    ("---\n- a\n---\n# T\n", "fm_not_mapping", "docs/x.md:2"),
])
def test_front_matter_errors_name_the_line(raw, id, where):
    from anatomia_engine.frontmatter import front_matter

    with pytest.raises(EngineError) as info:
        front_matter(raw, "docs/x.md")
    assert (info.value.id, info.value.where) == (id, where)


def test_front_matter_gives_the_first_line_of_the_body():
    from anatomia_engine.frontmatter import front_matter

    fm = front_matter("---\ntitle: a\ncomputed: [demo]\n---\n\n\n# T\n", "docs/x.md")
    assert (fm.first_line, fm.computed, fm.computed_line) == (7, ["demo"], 3)


def test_a_table_number_names_its_row_as_the_table_shows_it():
    """No "wartość: 1.0" with a decimal point: a numeric first column is written in the site format."""
    values = {**VALUES, "keys": Table(["klucz", "waga"], [[1.0, 0.25], [2.5, 0.75]], ["dec:1", "dec:2"])}
    out, _ = page("{{ keys }}\n", values=values)
    shown = [s.get("data-what") for s in spans(out)]
    assert shown == ["klucz", "waga (klucz: 1,0)", "klucz", "waga (klucz: 2,5)"]
