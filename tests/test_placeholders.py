"""The placeholder language on short strings: values, filters, math, code, claims, errors."""

import html
import re

import numpy as np
import pytest

from anatomia_engine.kit import Table
from anatomia_engine.placeholders import Entry, FigureRef, TemplateError, regions, render

SRC = "figures_src/demo.py"
TOKENS = ("cat", "chases")
SCOPE = {
    "w": Entry(np.array([[1.0, 0.0], [0.35434369377420455, 0.6456563062257954]]), SRC, function="weights",
               what="waga: {i} patrzy na {j}", axes=(TOKENS, TOKENS)),
    "speedup": Entry(2, SRC, function="quoted", what="przyspieszenie", cite="Dao (2023)"),
    "z": Entry(0.0, SRC),
    "ints": Entry(np.array([1, 2, 3]), SRC),
    "p": Entry(0.3105, SRC),
    "n": Entry(4096, SRC),
    "name": Entry("<b>kot</b>", SRC),
    "masked": Entry(np.array([[0.71, -np.inf], [0.14, 0.74]]), SRC),
    "bad": Entry(float("nan"), SRC),
    "tab": Entry(Table(["token", "p"], [["cat", 0.2], ["chases", 0.3]], [None, "pct:1"]), SRC),
    "demo.p": Entry(0.3105, SRC),
    "chart": Entry(FigureRef("demo.chart"), SRC),
}


def r(text, **kw):
    return render(text, SCOPE, where="docs/x.md", **kw)


def _attrs(span: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in re.findall(r'([a-z-]+)="([^"]*)"', span)}


def test_number_in_prose_has_comma_and_provenance():
    out = r("waga {{ w[1][1] }} i {{ w[1, 0] | dec(3) }}")
    assert ">0,65</span>" in out and ">0,354</span>" in out
    first, second = re.findall(r"<span [^>]*>", out)
    assert _attrs(first) == {"class": "num", "tabindex": "0", "data-exact": "0,6456563",
                             "data-what": "waga: chases patrzy na chases",
                             "data-source": SRC, "data-function": "weights"}
    assert _attrs(second)["data-what"] == "waga: chases patrzy na cat"
    assert "title=" not in out


def test_quoted_number_names_its_publication_not_a_module():
    out = r("{{ speedup }}")
    assert out == ('<span class="num" tabindex="0" data-exact="2" data-what="przyspieszenie" '
                   'data-cite="Dao (2023)">2</span>')


def test_exact_value_is_polish_with_seven_significant_digits():
    assert 'data-exact="4096"' in r("{{ n }}")  # an integer has no ",0"
    assert "data-exact=\"\u22122,5\"" in r("{{ -n / 1638.4 | dec(1) }}")
    out = r("{{ w[1][1] + w[1][0] | dec(1) }}")
    assert 'data-what' not in out, "a computed expression is not the named value"


def test_same_placeholder_in_math_uses_latex_comma_and_no_html():
    out = r(r"\( p = {{ p | dec(2) }} \) oraz $$ {{ w | bmatrix(2) }} $$")
    assert r"\( p = 0{,}31 \)" in out
    assert r"\begin{bmatrix} 1{,}00 & 0{,}00 \\ 0{,}35 & 0{,}65 \end{bmatrix}" in out
    assert "<span" not in out


def test_latex_and_attribute_syntax_pass_through_unescaped():
    text = r"\(\frac{1}{\sqrt{d_k}}\), \(x_{i}^{2}\), ## Nagłówek {#id}, obraz { .class }, e^{ {{ p }} }"
    out = r(text)
    assert out.startswith(r"\(\frac{1}{\sqrt{d_k}}\), \(x_{i}^{2}\), ## Nagłówek {#id}, obraz { .class }")
    assert out.endswith("e^{ 0{,}31 }") is False  # outside math: prose format
    assert "0,31</span> }" in out


def test_triple_braces_keep_the_outer_latex_group():
    out = r(r"\( e^{{{ p }}} \)")
    assert out == r"\( e^{0{,}31} \)"


def test_masked_scores_show_minus_infinity_in_math():
    assert r"-\infty" in r(r"\[ {{ masked | bmatrix(2) }} \]")


def test_code_is_left_alone():
    text = "`{{ nope }}` and\n\n```\n{{ nope }}\n{% claim 1 > 2 %}\n```\n"
    assert r(text) == text


def test_strings_are_escaped_in_prose():
    assert r("{{ name }}") == "&lt;b&gt;kot&lt;/b&gt;"


def test_other_filters():
    assert ">4096</span>" in r("{{ n }}")
    assert ">31,1%</span>" in r("{{ p | pct(1) }}")
    assert ">16\u00a0KiB</span>" in r("{{ n * 4 | bytes(0) }}")
    with pytest.raises(TemplateError, match="a table takes no filter"):
        r("{{ tab | json }}")
    assert r("{{ w | json }}") == "[[1.0, 0.0], [0.35434369377420455, 0.6456563062257954]]"
    assert ">0,31</span>" in r("{{ demo.p }}")


def test_table_renders_as_markdown_on_its_own_line():
    out = r("Tabela:\n\n  {{ tab }}\n")
    assert "  | token | p |\n  | :--- | ---: |\n  | cat | <span class=\"num\"" in out
    assert ('<span class="num" tabindex="0" data-exact="0,3" data-what="p: chases" '
            'data-source="figures_src/demo.py">30,0%</span> |') in out


def test_figure_reference_calls_the_renderer_with_indent():
    out = r("    {{ figure(\"chart\") }}\n", figure=lambda name, indent: f"<{name}|{indent!r}>")
    assert out == "    <demo.chart|'    '>\n"
    out = r("{{ chart }}\n", figure=lambda name, indent: f"<{name}>")
    assert out == "<demo.chart>\n"
    with pytest.raises(TemplateError, match="must stand alone"):
        r("tekst {{ chart }}\n", figure=lambda name, indent: f"<{name}>")


@pytest.mark.parametrize(("text", "message"), [
    ("a\nb {{ nothere }}", "docs/x.md:2: {{ nothere }}: unknown value 'nothere'"),
    ("{{ ww[1][1] }}", "unknown value 'ww'; did you mean 'w'?"),
    ("{{ demo.pp }}", "unknown value 'demo.pp'; did you mean 'demo.p'?"),
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
])
def test_errors_name_file_line_and_cause(text, message):
    with pytest.raises(TemplateError) as info:
        r(text)
    assert info.value.args[0].startswith("docs/x.md:")
    assert message in str(info.value)


@pytest.mark.parametrize(("text", "message"), [
    ("{{ p | dec(p) }}", "docs/x.md:1: {{ p | dec(p) }}: cannot show this value with 'dec': the number of "
                         "decimal places must be a whole number"),
    ("{{ w | dec(1) }}", "cannot show this value with 'dec': expected a number, got an array of shape"),
    ("{{ p / z }}", "docs/x.md:1: {{ p / z }}: cannot evaluate 'p / z': ZeroDivisionError"),
    ("{{ sqrt(ints) }}", "docs/x.md:1: {{ sqrt(ints) }}: cannot evaluate 'sqrt(ints)': TypeError"),
    ("{{ n | dec(100000) }}", "docs/x.md:1: {{ n | dec(100000) }}: cannot show this value with 'dec': the "
                              "number of decimal places must be between 0 and 12"),
    ("{{ ints | dec(1) }}", "cannot show this value with 'dec'"),
    ("{{ p | dec(1, 2) }}", "'dec' takes at most 1 argument"),
    ("{{ p | dec(oops) }}", "unknown value 'oops'"),
    ("{{ p +* 2 }}", "cannot read the expression"),
])
def test_any_failure_while_evaluating_or_formatting_names_the_line(text, message):
    with pytest.raises(TemplateError) as info:
        r(text)
    assert message in str(info.value)


@pytest.mark.parametrize(("text", "line", "message"), [
    ("a\n\n{% claimm p > 0 %}tekst{% endclaim %}", 3, "unknown tag '{% claimm p > 0 %}'; did you mean "
                                                       "'{% claim … %}'?"),
    ("a\nb {{ p }\n", 2, "'{{' without a matching '}}'"),
    ("tekst p }} i\n", 1, "'}}' without a matching '{{'"),
    ("tekst {% claim p > 0\n", 1, "'{%' without a matching '%}'"),
    ("x\n{% claim p > 0 %}a\n\n{% claim p > 0 %}b{% endclaim %}", 2, "is never closed"),
    ("x\n{% claim bad > 0 %}NaN jest dodatnie.{% endclaim %}", 2, "uses bad, which is NaN"),
    ("{% endclaim %}", 1, "without {% claim"),
])
def test_misspelt_unbalanced_and_unclosed_tags_are_errors(text, line, message):
    with pytest.raises(TemplateError) as info:
        r(text)
    assert str(info.value).startswith(f"docs/x.md:{line}: ")
    assert message in str(info.value)


def test_braces_in_code_and_latex_are_not_taken_for_tags():
    text = ("`{{ x }` i `{% x`\n\n```\n}} %}\n```\n\n"
            r"\( \frac{1}{\sqrt{d_k}} \) \[ \text{35\%} \]")
    assert r(text) == text
    assert r('{{ "{{" }}') == "{{"


def test_nan_in_a_table_names_the_table_row_and_column():
    scope = dict(SCOPE, t=Entry(Table(["token", "p"], [["cat", 0.5], ["dog", float("nan")]]), SRC))
    with pytest.raises(TemplateError) as info:
        render("Tabela\n\n{{ t }}\n", scope, where="docs/x.md")
    assert str(info.value).startswith("docs/x.md:3: {{ t }}: table 't', row 2 (dog), column 'p': the value "
                                      "is nan")


def test_words_filter_writes_small_counts_in_polish():
    assert re.sub("<[^>]+>", "", r("{{ n / 1024 | words }} głowy")) == "cztery głowy"
    assert re.sub("<[^>]+>", "", r('{{ n / 1024 | words("narzędnik") }} głowami')) == "czterema głowami"
    assert r(r"\( {{ n / 1024 | words }} \)") == r"\( \text{cztery} \)"


def test_true_claim_renders_its_sentence():
    out = r("{% claim w[1][1] > w[1][0] %}„chases” patrzy mocniej na siebie ({{ w[1][1] }}).{% endclaim %}")
    assert out.startswith("„chases” patrzy mocniej na siebie (<span")


def test_false_claim_fails_quoting_the_sentence_and_line():
    text = "Wstęp.\n\n{% claim w[1][0] > w[1][1] %}„chases” patrzy mocniej na „cat”.{% endclaim %}"
    with pytest.raises(TemplateError) as info:
        r(text, first_line=5)
    message = str(info.value)
    assert message.startswith("docs/x.md:7: false claim: „„chases” patrzy mocniej na „cat”.”")
    assert "w[1][0] > w[1][1]" in message and "w = [[" in message


def test_claim_on_arrays_must_be_reduced():
    with pytest.raises(TemplateError, match="use all"):
        r("{% claim w > 0 %}x{% endclaim %}")
    assert r("{% claim all(w >= 0) and argmax(w[1]) == 1 %}ok{% endclaim %}") == "ok"


def test_regions_find_math_and_code():
    text = r"a \(x\) `c` $$y$$ \begin{align}z\end{align}"
    code, math = regions(text)
    assert [text[a:b] for a, b in code] == ["`c`"]
    assert [text[a:b] for a, b in math] == [r"\(x\)", "$$y$$", r"\begin{align}z\end{align}"]


def test_the_markdown_extension_never_publishes_a_placeholder_it_cannot_fill():
    import markdown

    assert markdown.markdown("tekst", extensions=["anatomia_engine.markdown"]) == "<p>tekst</p>"
    with pytest.raises(TemplateError, match="placeholders need the MkDocs hook"):
        markdown.markdown("a {{ x }} b", extensions=["anatomia_engine.markdown"])


@pytest.mark.parametrize(("raw", "message"), [
    ("---\ntitle: a\ncomputed: [x\n---\n# T\n", "docs/x.md:4: the front matter is not valid YAML"),
    ("---\ntitle: a\ncomputed: 3\n---\n# T\n", "docs/x.md:3: 'computed' must list module names"),
    ("---\ntitle: a\n\n# T\n", "docs/x.md:1: the front matter opened by '---' is never closed"),
    ("---\n- a\n---\n# T\n", "docs/x.md:2: the front matter must be 'key: value' lines"),
])
def test_front_matter_errors_name_the_line(raw, message):
    from anatomia_engine.markdown import front_matter

    with pytest.raises(TemplateError) as info:
        front_matter(raw, "docs/x.md")
    assert str(info.value).startswith(message)


def test_front_matter_gives_the_first_line_of_the_body():
    from anatomia_engine.markdown import front_matter

    fm = front_matter("---\ntitle: a\ncomputed: [demo]\n---\n\n\n# T\n", "docs/x.md")
    assert (fm.first_line, fm.computed, fm.computed_line) == (7, ["demo"], 3)
