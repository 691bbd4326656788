"""The placeholder language on short strings: values, filters, math, code, claims, errors."""

import numpy as np
import pytest

from anatomia_engine.kit import Table
from anatomia_engine.placeholders import Entry, FigureRef, TemplateError, regions, render

SRC = "figures_src/demo.py"
SCOPE = {
    "w": Entry(np.array([[1.0, 0.0], [0.35434369377420455, 0.6456563062257954]]), SRC),
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


def test_number_in_prose_has_comma_and_provenance():
    out = r("waga {{ w[1][1] }} i {{ w[1, 0] | dec(3) }}")
    assert ">0,65</span>" in out and ">0,354</span>" in out
    assert 'title="w[1][1] = 0.6456563062257954 (obliczone w figures_src/demo.py)"' in out


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
    assert 'data-exact="0.3">30,0%</span> |' in out


def test_figure_reference_calls_the_renderer_with_indent():
    out = r("    {{ figure(\"chart\") }}\n", figure=lambda name, indent: f"<{name}|{indent!r}>")
    assert out == "    <demo.chart|'    '>\n"
    out = r("{{ chart }}\n", figure=lambda name, indent: f"<{name}>")
    assert out == "<demo.chart>\n"
    with pytest.raises(TemplateError, match="must stand alone"):
        r("tekst {{ chart }}\n", figure=lambda name, indent: f"<{name}>")


@pytest.mark.parametrize(("text", "message"), [
    ("a\nb {{ nothere }}", "docs/x.md:2: {{ nothere }}: unknown value 'nothere'"),
    ("{{ bad }}", "NaN"),
    ("{{ w[5][0] }}", "out of range"),
    ("{{ w }}", "bmatrix works only inside math"),
    ("{{ p | frobnicate }}", "unknown filter 'frobnicate'"),
    ("{{ 3 }}", "names no computed value"),
    ("{{ __import__('os') }}", "unknown function '__import__'"),
    ("{{ p.__class__ }}", "unknown value 'p.__class__'"),
    ("x {{ tab }} y", "must stand alone on its own line"),
    ("{% claim p > 1 %}tekst", "never closed"),
])
def test_errors_name_file_line_and_cause(text, message):
    with pytest.raises(TemplateError) as info:
        r(text)
    assert info.value.args[0].startswith("docs/x.md:")
    assert message in str(info.value)


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
