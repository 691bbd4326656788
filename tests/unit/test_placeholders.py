"""The placeholder language on short pages, rendered to HTML through Python-Markdown with the
project's extensions (those of mkdocs.yml): values, filters, math, code, claims, errors."""

import html
import re
from pathlib import Path
from types import SimpleNamespace

import markdown as pymd
import pytest
from mkdocs.exceptions import BuildError

from anatomia_engine import final_page
from anatomia_engine import markdown as amd
from anatomia_engine.kit import Table
from anatomia_engine.state import BuildState
from tests.helpers import convert_page, markdown_extensions
from tests.unit.demo_page import HEAD, ROOT, VALUES, page

SRC = "figures_src/demo.py"


def r(body, **kw):
    """The HTML of a one-paragraph page, without the paragraph's tags."""
    out, _ = page(body, **kw)
    return re.sub(r"^<p>(.*)</p>$", r"\1", out, flags=re.DOTALL)


def spans(out: str) -> list[dict[str, str]]:
    return [{k: html.unescape(v) for k, v in re.findall(r'([a-z-]+)="([^"]*)"', s)}
            for s in re.findall(r"<span [^>]*>", out) if 'class="num"' in s]


def error(body, **kw) -> str:
    with pytest.raises(BuildError) as info:
        page(body, **kw)
    return str(info.value)


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
    assert "a table takes no filter" in error("{{ tab | json }}")
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
    with pytest.raises(BuildError, match=r"^docs/x\.md:2: \{\{ nothere \}\}: unknown value"):
        amd.render_page("tekst\n", amd.Page("x.md", raw), results, amd.PageRegistry(),
                        meta={"title": "Wynik {{ nothere }}"})


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

@pytest.mark.parametrize(("body", "line", "message"), [
    ("a\nb {{ p }\n", 5, "'{{' without a matching '}}'"),
    ("tekst p }} i\n", 4, "'}}' without a matching '{{'"),
    ("tekst {% claim p > 0\n", 4, "'{%' without a matching '%}'"),
    ("a\n\n`kod` i {{ p `x`\n", 6, "'{{' without a matching '}}'"),
    ("Zapis &lt;span class=\"num\"&gt; w tekście\n\n`<span class=\"num\">` w kodzie wolno\n", 4,
     "the engine's markup as text"),
    ("<div>\n{{ p }} i }}\n</div>\n", 5, "'}}' without a matching '{{'"),  # raw HTML beside a placeholder
])
def test_the_output_check_names_the_line(body, line, message):
    text = error(body)
    assert text.startswith(f"docs/x.md:{line}: "), text
    assert message in text


@pytest.mark.parametrize("body", [
    "Waga \\{{ p }} w tekście\n",
    "# Waga \\{{ p }}\n",
    "[odnośnik \\{{ p }}](x.md)\n",
    "\\{% claim p > 0 %}Zdanie.{% endclaim %}\n",
])
def test_a_backslash_before_a_tag_stops_the_build_where_markdown_would_show_it(body):
    """Markdown reads `\\{` as a literal brace: the reader would see a stray backslash beside the value."""
    assert error(body).startswith("docs/x.md:4: '\\{")


def test_a_backslash_before_a_tag_in_code_or_after_an_escaped_backslash_is_kept():
    assert "<code>\\{{ p }}</code>" in r("`\\{{ p }}`")
    assert r("C:\\\\{{ p }}").startswith("C:\\<span")


def test_the_theme_text_around_a_page_shows_no_tag_as_written():
    """Tags and navigation titles come from the front matter and mkdocs.yml, outside the converted text."""
    page = '<nav><a href="x/">Waga {{ weight | dec(2) }}</a></nav><code>{{ c }}</code><script>x={{}}</script>'
    with pytest.raises(BuildError) as info:
        final_page.check_theme_text(page, "docs/x.md")
    assert str(info.value).startswith("docs/x.md: '{{' in '{{ weight | dec(2) }}' outside")
    with pytest.raises(BuildError, match="'{%' in '{% claim x %}'"):
        final_page.check_theme_text('<span class="md-tag">{% claim x %}</span>', "docs/x.md")
    with pytest.raises(BuildError, match="in '{{ w }}' outside"):   # an attribute's value
        final_page.check_theme_text('<meta name="description" content="Wagi {{ w }}">', "docs/x.md")
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
    unfilled = r"docs/x\.md:4: \{\{ p \}\} stands where the engine cannot fill it"
    with pytest.raises(BuildError, match=unfilled):
        md.convert(text)


# --- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "message"), [
    ("a\nb {{ nothere }}", "docs/x.md:5: {{ nothere }}: unknown value 'nothere'"),
    ("{{ ww[1][1] }}", "unknown value 'ww'; did you mean 'w'?"),
    ("{{ demo.pp }}", "unknown value 'demo.pp'; did you mean 'demo.p'"),
    ("{{ bad }}", "NaN"),
    ("{{ w[5][0] }}", "out of range"),
    ("{{ w }}", "bmatrix works only inside math"),
    ("{{ p | frobnicate }}", "unknown filter 'frobnicate'"),
    ("{{ 3 }}", "names no computed value"),
    ("{{ __import__('os') }}", "unknown value '__import__'"),
    ("{{ p.__class__ }}", "'p.__class__' is not allowed"),
    ("{{ w.fill(0) }}", "'w.fill(0)' is not allowed"),
    ("{{ p | round(1) }}", "unknown filter 'round'"),
    ("{{ round(p) }}", "unknown value 'round'"),
    ("x {{ tab }} y", "must stand alone on its own line"),
    ("{% claim p > 1 %}tekst", "never closed"),
    ("![{{ tab }}](x.png)", "must stand alone on its own line"),
    ("{{ p | dec(1) | int }}", "only one filter, at the end"),
    ("{{ p is number }}", "'is number' tests are not part of the placeholder language"),
    ('{{ figure("p") }}', "'p' is a value, not a figure"),
    ("{{ figure(p) }}", 'write a figure as figure("name")'),
    ("{{ w[n - 4095, 0] }}", "name[i, j] takes constant indices; write name[i][j]"),
])
def test_errors_name_file_line_and_cause(text, message):
    got = error(text)
    assert got.startswith("docs/x.md:")
    assert message in got


@pytest.mark.parametrize(("text", "message"), [
    ("{{ p | dec(p) }}", "docs/x.md:4: {{ p | dec(p) }}: cannot show this value with 'dec': the number of "
                         "decimal places must be a whole number"),
    ("{{ w | dec(1) }}", "cannot show this value with 'dec': expected a number, got an array of shape"),
    ("{{ p / z }}", "docs/x.md:4: {{ p / z }}: cannot evaluate 'p / z': ZeroDivisionError"),
    ("{{ sqrt(ints) }}", "docs/x.md:4: {{ sqrt(ints) }}: cannot evaluate 'sqrt(ints)': TypeError"),
    ("{{ n | dec(100000) }}", "docs/x.md:4: {{ n | dec(100000) }}: cannot show this value with 'dec': the "
                              "number of decimal places must be between 0 and 12"),
    ("{{ ints | dec(1) }}", "cannot show this value with 'dec'"),
    ("{{ p | dec(1, 2) }}", "'dec' takes at most 1 argument"),
    ("{{ p | dec(oops) }}", "unknown value 'oops'"),
    ("{{ p +* 2 }}", "cannot read the expression"),
    ("{{ flag }}", "docs/x.md:4: {{ flag }}: cannot show this value with 'the default format': a true/false "
                   "value is not shown; use it in a claim"),
    ("{{ huge | dec(2) }}", "has more digits before the comma than a page can show in full (26 at most); use "
                            "sci(n), e.g. sci(1) shows 1,5·10³⁰⁰"),
])
def test_any_failure_while_evaluating_or_formatting_names_the_line(text, message):
    assert message in error(text)


@pytest.mark.parametrize(("text", "line", "message"), [
    ("a\n\n{% claimm p > 0 %}tekst{% endclaim %}", 6, "unknown tag '{% claimm p > 0 %}'; did you mean "
                                                      "'{% claim … %}'?"),
    ("x\n{% claim p > 0 %}a\n\n{% claim p > 0 %}b{% endclaim %}", 5, "is never closed"),
    ("{% endclaim %}", 4, "without {% claim"),
])
def test_misspelt_unbalanced_and_unclosed_tags_are_errors(text, line, message):
    got = error(text)
    assert got.startswith(f"docs/x.md:{line}: "), got
    assert message in got


@pytest.mark.parametrize("name", ["sum", "max", "dec", "true"])
def test_a_value_named_like_a_function_filter_or_word_is_refused(name):
    got = error("tekst", values={name: 1.0, "p": 0.5})
    assert got.startswith(f"figures_src/demo.py: @values() returned a value named '{name}'")
    assert "rename the value" in got


# --- claims ----------------------------------------------------------------------------------

def test_true_claim_renders_its_sentence():
    out = r("{% claim w[1][1] > w[1][0] %}„chases” patrzy mocniej na siebie ({{ w[1][1] }}).{% endclaim %}")
    assert out.startswith("„chases” patrzy mocniej na siebie (<span")


def test_false_claim_fails_quoting_the_sentence_and_line():
    got = error("Wstęp.\n\n{% claim w[1][0] > w[1][1] %}„chases” patrzy mocniej na „cat”.{% endclaim %}")
    assert got.startswith("docs/x.md:6: false claim: „„chases” patrzy mocniej na „cat”.”")
    assert "w[1][0] > w[1][1]" in got and "w = [[" in got


def test_claim_on_arrays_must_be_reduced():
    assert "use all" in error("{% claim w > 0 %}x{% endclaim %}")
    assert r("{% claim all(w >= 0) and argmax(w[1]) == 1 %}ok{% endclaim %}") == "ok"


def test_a_claim_in_code_is_not_checked():
    out, _ = page("`{% claim 1 > 2 %}` jest w kodzie, `{% endclaim %}` też")
    assert "{% claim 1 &gt; 2 %}" in out


def test_a_claim_must_hold_for_the_numbers_as_shown():
    got = error("Wstęp.\n\n{% claim hi > lo %}{{ hi }} jest większa niż {{ lo }}.{% endclaim %}")
    assert got.startswith("docs/x.md:6: claim 'hi > lo' holds for the exact values but not for the numbers")
    assert "(0,35)" in got and "show the numbers with 4 decimal places (0,3501, 0,3499)" in got
    assert r("{% claim hi > lo %}{{ hi | dec(4) }} > {{ lo | dec(4) }}{% endclaim %}")


def test_equality_must_hold_as_shown():
    assert "holds for the exact values but not" in error(
        "{% claim same == same2 %}{{ same | dec(2) }} to tyle samo co {{ same2 | dec(3) }}{% endclaim %}")
    assert r("{% claim same == same2 %}{{ same | dec(2) }} to tyle samo co {{ same2 | dec(2) }}"
             "{% endclaim %}")


def test_an_about_claim_must_hold_as_shown_when_the_sentence_shows_both_sides():
    assert "holds for the exact values but not" in error(
        "{% claim abs(near_a - near_b) < 0.01 %}około: {{ near_a }} i {{ near_b }}{% endclaim %}")
    # one side shown: nothing for a reader to compare, only the exact values count
    assert r("{% claim abs(near_a - near_b) < 0.01 %}około {{ near_a }}{% endclaim %}")


def test_a_shown_difference_agrees_with_the_shown_terms():
    got = error("Różnica: {{ a | dec(2) }} − {{ b | dec(2) }} = {{ a - b | dec(2) }}.")
    assert got.startswith("docs/x.md:4: {{ a - b | dec(2) }}: shows 0,45, "
                          "but the numbers shown for its terms "
                          "give 0,57 − 0,11 = 0,46")
    assert r("Różnica: {{ a | dec(3) }} − {{ b | dec(3) }} = {{ a - b | dec(3) }}.")
    assert r("Różnica: {{ a - b | dec(2) }}; osobno {{ a | dec(2) }}.\n\nI {{ b | dec(2) }}.")
    zero = error("{{ x | dec(2) }} − {{ y | dec(2) }} = {{ x - y | dec(2) }}",
                 values={**VALUES, "x": 0.346, "y": 0.344})
    assert "shows 0,00, but the numbers shown for its terms give 0,35 − 0,34 = 0,01" in zero


def test_the_markdown_extension_never_publishes_a_placeholder_it_cannot_fill():
    assert pymd.markdown("tekst", extensions=["anatomia_engine.markdown"]) == "<p>tekst</p>"
    with pytest.raises(BuildError, match="placeholders need the MkDocs plugin"):
        pymd.markdown("a {{ x }} b", extensions=["anatomia_engine.markdown"])


# --- the lab notebook's Markdown cells --------------------------------------------------------

def test_a_placeholder_in_a_notebook_markdown_cell_is_refused(tmp_path):
    from anatomia_engine.placeholders import refuse_in_notebook

    nb = tmp_path / "lab.py"
    nb.write_text("# %% [markdown]\n# # Lab\n#\n# `{{ kod }}` i\n# ```\n# {{ blok }}\n# ```\n\n"
                  "# %%\nx = f'{{x}}'\n\n# %% [markdown]\n# Wynik {{ p }}.\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"^docs/laby/lab\.py:13: '\{\{' in a Markdown cell"):
        refuse_in_notebook(nb, "docs/laby/lab.py")
    refuse_in_notebook(ROOT / "docs" / "laby" / "lab-3.py", "docs/laby/lab-3.py")


# --- the front matter -------------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "message"), [
    ("---\ntitle: a\ncomputed: [x\n---\n# T\n", "docs/x.md:4: the front matter is not valid YAML"),
    ("---\ntitle: a\ncomputed: 3\n---\n# T\n", "docs/x.md:3: 'computed' must list module names"),
    ("---\ntitle: a\n\n# T\n", "docs/x.md:1: the front matter opened by '---' is never closed"),
    ("---\n- a\n---\n# T\n", "docs/x.md:2: the front matter must be 'key: value' lines"),
])
def test_front_matter_errors_name_the_line(raw, message):
    from anatomia_engine.frontmatter import front_matter

    with pytest.raises(BuildError) as info:
        front_matter(raw, "docs/x.md")
    assert str(info.value).startswith(message)


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
