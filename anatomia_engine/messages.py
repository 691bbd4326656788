"""The engine's messages in one catalogue: id -> English text (a format template), cause and fix.

The engine raises through `text(id, **fields)`, so every stop a contributor can meet has one
wording, and the contributor page (docs/jak-dodac-wartosc.md) shows the tables built from this
catalogue (figures_src/engine_messages.py) instead of a copy. `cause` and `fix` are in Polish,
for that page; `group` is the table the message belongs to.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

GROUPS = {  # group -> what the messages of the group start with (shown above its table)
    "placeholder": "docs/strona.md:12: {{ wyrażenie }}: komunikat",
    "page": "docs/strona.md:12: komunikat",
    "claim": "docs/strona.md:12: komunikat",
    "front_matter": "docs/strona.md:N: komunikat",
    "values": "figures_src/modul.py: komunikat",
    "notebook": "docs/laby/lab-3.py:N: komunikat",
}


@dataclass(frozen=True)
class Message:
    id: str
    group: str
    text: str  # str.format template; its fields are filled where the message is raised
    cause: str
    fix: str

    def fields(self) -> list[str]:
        return [f for _, f, _, _ in string.Formatter().parse(self.text) if f]

    def example(self) -> str:
        """The text as the contributor page shows it: every field as '…'."""
        return self.text.format(**{f: "…" for f in self.fields()})


def _m(id: str, group: str, text: str, cause: str, fix: str) -> Message:
    return Message(id, group, text, cause, fix)


CATALOGUE: dict[str, Message] = {m.id: m for m in [
    # --- a placeholder: "docs/page.md:12: {{ expr }}: <message>" ---------------------------
    _m("unknown_value_near", "placeholder", "unknown value '{name}'; did you mean {near}?",
       "nazwy nie ma w modułach z `computed`, ale jest podobna", "popraw nazwę według podpowiedzi"),
    _m("unknown_value_no_module", "placeholder",
       "unknown value '{name}'; list the module that computes it under 'computed:' in the front matter, "
       "or write module.name",
       "strona nie wymienia żadnego modułu", "dopisz moduł do `computed` albo pisz `modul.x`"),
    _m("unknown_value", "placeholder",
       "unknown value '{name}'; check the name returned by the module's @values function (or write "
       "module.name)",
       "nazwy nie ma i nic podobnego nie istnieje", "sprawdź klucz słownika zwracanego przez funkcję `@values`"),
    _m("bad_expression", "placeholder",
       "cannot read the expression '{source}': {problem}; write a name, name[i][j], module.name, "
       "arithmetic, comparisons or {functions}(...)",
       "wyrażenie nie jest poprawne składniowo", "sprawdź nawiasy i operatory"),
    _m("not_allowed", "placeholder",
       "'{source}' is not allowed ({problem}); a placeholder reads values by name, module.name or "
       "name[i][j] only",
       "zapis spoza dozwolonych (np. atrybut `x.__class__`)",
       "zostań przy nazwach, indeksach, działaniach i funkcjach z listy"),
    _m("undefined", "placeholder", "'{source}': {problem} (an index out of range or a wrong key?)",
       "indeks poza rozmiarem tablicy albo zły klucz", "sprawdź kształt tablicy w module"),
    _m("cannot_evaluate", "placeholder", "cannot evaluate '{source}': {problem}",
       "działanie się nie udało (np. dzielenie przez zero)", "popraw wyrażenie albo obliczenie w module"),
    _m("one_filter", "placeholder", "only one filter, at the end: write '{{{{ expression | {name} }}}}'",
       "filtr w środku wyrażenia", "zostaw jeden filtr na końcu"),
    _m("no_tests", "placeholder", "'is {name}' tests are not part of the placeholder language",
       "test Jinja (`x is defined`)", "użyj porównania w `{% claim … %}`"),
    _m("figure_by_name", "placeholder", 'write a figure as figure("name")',
       "`figure` bez nazwy w cudzysłowie", "podaj nazwę w cudzysłowie"),
    _m("not_a_figure", "placeholder", "'{name}' is a value, not a figure",
       "`figure(\"x\")` dla wartości", "podaj nazwę funkcji `@figure`"),
    _m("bad_filter", "placeholder", "cannot read the filter '{filter}'; write e.g. | dec(2); known: {known}",
       "filtr z niepoprawnym zapisem", "np. `dec(2)`, nie `dec 2`"),
    _m("cannot_show", "placeholder", "cannot show this value with '{filter}': {problem}",
       "filtr nie umie pokazać tej wartości; dalsza część mówi dlaczego (komunikaty formattera poniżej)",
       "zależnie od przyczyny"),
    _m("figure_alone", "placeholder", "figure(...) must stand alone on its own line",
       "rysunek w środku akapitu, w atrybucie albo we wzorze", "przenieś go do osobnego wiersza"),
    _m("table_no_filter", "placeholder", "a table takes no filter (got '{filter}'); its columns carry their formats",
       "filtr przy tabeli", "usuń filtr; formaty kolumn ustawia `Table`"),
    _m("table_alone", "placeholder", "a table must stand alone on its own line, outside math",
       "tabela w środku akapitu lub we wzorze", "przenieś ją do osobnego wiersza"),
    _m("table_nan", "placeholder",
       "table '{name}', row {row} ({label}), column '{column}': the value is {value}; fix the computation "
       "in the module (a table never shows NaN or infinity)",
       "komórka tabeli to NaN albo nieskończoność", "popraw obliczenie w module"),
    _m("table_cell", "placeholder", "table '{name}', row {row}, column '{column}': cannot show {value} with "
       "'{spec}': {problem}",
       "formatu kolumny nie da się zastosować do komórki", "popraw format kolumny albo wartość"),
    _m("no_value", "placeholder", "the placeholder names no computed value; write the value's name, "
       "e.g. {{{{ name | dec(2) }}}}",
       "placeholder bez nazwy wartości (np. `{{ 2 + 2 }}`)", "liczby bierz z modułu, nie wpisuj ich ręcznie"),
    _m("shown_difference", "placeholder",
       "shows {shown}, but the numbers shown for its terms give {reader} = {reader_result}; show the terms "
       "with more digits (e.g. {digits}) or do not show the terms beside the result",
       "czytelnik, który policzy działanie na pokazanych (zaokrąglonych) liczbach, dostanie inny wynik niż "
       "pokazany", "pokaż składniki z większą liczbą cyfr albo nie zestawiaj ich z wynikiem"),
    # --- the formatter (anatomia_engine/numfmt.py), after "cannot show this value with '…': " ----
    _m("nan", "placeholder", "the value is NaN (not a number); refusing to show it",
       "obliczenie dało NaN", "znajdź błąd w module lub w `attn_core`"),
    _m("infinite", "placeholder", "the value is {value} (infinite); only vectors and matrices may show infinity",
       "pojedyncza nieskończoność", "sprawdź obliczenie"),
    _m("not_whole", "placeholder", "{value} is not a whole number; use dec(n)",
       "filtr `int` dla liczby z ułamkiem", "użyj `dec(n)`"),
    _m("expected_number", "placeholder", "expected a number, got {got}",
       "filtr liczbowy dla tekstu lub wartości logicznej", "wybierz wartość liczbową"),
    _m("expected_number_array", "placeholder", "expected a number, got an array of shape {shape}; show one "
       "element, e.g. name[0][1], or use vec/bmatrix",
       "filtr liczbowy dla tablicy", "wybierz element (`p[0]`) albo filtr `vec(n)`"),
    _m("decimals_whole", "placeholder", "the number of decimal places must be a whole number, got {got}",
       "liczba miejsc po przecinku nie jest liczbą całkowitą", "podaj liczbę całkowitą, np. `dec(2)`"),
    _m("decimals_range", "placeholder", "the number of decimal places must be between 0 and {most}, got {got}",
       "za dużo albo za mało miejsc po przecinku", "podaj liczbę z dozwolonego zakresu"),
    _m("too_many_digits", "placeholder",
       "{value} has more digits before the comma than a page can show in full ({most} at most); use "
       "sci(n), e.g. sci(1) shows {example}",
       "`dec`, `pct` albo `bytes` dla liczby tak dużej, że wypisanie jej cyfr nie ma sensu (np. 1,5·10³⁰⁰)",
       "użyj zapisu naukowego `sci(n)`"),
    _m("words_range", "placeholder", "words writes whole numbers from 2 to 20 in words, got {value}; use int",
       "`words` dla liczby spoza 2–20 albo z ułamkiem", "użyj `int`"),
    _m("unknown_case", "placeholder", "unknown case {case}; known: {known}",
       "literówka w nazwie przypadku", "podaj jeden z sześciu przypadków"),
    _m("vec_shape", "placeholder", "vec needs a 1-D array, got shape {shape}",
       "`vec` dla macierzy", "użyj `bmatrix(n)` we wzorze"),
    _m("bmatrix_shape", "placeholder", "bmatrix needs a 1-D or 2-D array, got shape {shape}",
       "tablica o trzech lub więcej wymiarach", "wybierz fragment, np. `x[0]`"),
    _m("math_only", "placeholder", "{name} works only inside math, e.g. \\[ E = {{{{ E | {name}(1) }}}} \\]",
       "macierz poza wzorem", "otocz placeholder `\\[ … \\]`"),
    _m("not_in_math", "placeholder", "'{name}' does not work inside math",
       "filtr tekstowy (`json`, `text`) we wzorze", "przenieś placeholder poza wzór"),
    _m("too_many_args", "placeholder", "'{name}' takes at most {most} argument(s), got {got}: {usage}",
       "za dużo argumentów filtra", "np. `dec(2)`, nie `dec(2, 3)`"),
    _m("boolean_shown", "placeholder", "a true/false value is not shown; use it in a claim",
       "wartość logiczna w tekście", "użyj jej w `{% claim … %}`"),
    _m("needs_filter", "placeholder", "a value of type {type} needs a filter",
       "tablica lub inny typ bez filtra", "dodaj filtr, np. `vec(2)` albo `bmatrix(2)`"),
    _m("unknown_filter", "placeholder", "unknown filter '{name}'; {hint}known: {known}",
       "literówka w nazwie filtra (podpowiedź „did you mean” pojawia się, gdy jest podobna nazwa)",
       "popraw nazwę filtra"),
    _m("not_a_column", "placeholder", "'{name}' cannot be a table column's format; use one of {known}",
       "filtr, który nie działa w kolumnie tabeli", "użyj jednego z wymienionych"),
    _m("unknown_spec", "values", "unknown format spec {spec}; known: {known}",
       "zły format kolumny w `Table` (także `vec`, `bmatrix`, `json`, `text`, które w kolumnie nie działają)",
       "użyj jednego z wymienionych"),
    # --- the whole page: "docs/page.md:12: <message>" ---------------------------------------------
    _m("stray", "page", "'{mark}' without a matching '{closing}' in '{snippet}': a placeholder is "
       "{{{{ name }}}}, a claim {{% claim condition %}}…{{% endclaim %}}; to show the braces themselves put "
       "them in `code`",
       "niedomknięty placeholder albo samotne `}}`, `{%`, `%}` poza kodem", "domknij go albo umieść klamry w kodzie"),
    _m("unknown_tag", "page", "unknown tag '{tag}'; {hint}the only tags are {{% claim condition %}} and "
       "{{% endclaim %}}",
       "literówka w nazwie znacznika", "jedyne znaczniki to `claim` i `endclaim`"),
    _m("escaped_markup", "page", "the page shows the engine's markup as text ('{snippet}'): a placeholder "
       "was filled where HTML is not read; put it in running text, or report the place to the engine",
       "liczba trafiła w miejsce, w którym znaczniki HTML nie działają (nie powinno się zdarzyć)",
       "przenieś placeholder do zwykłego tekstu i zgłoś błąd silnika"),
    _m("unresolved", "page", "{{{{ {source} }}}} stands where the engine cannot fill it ({place}); put it in "
       "running text, a heading, a table, a link or an image",
       "placeholder w miejscu, którego silnik nie zna (np. w definicji odnośnika, która nie jest użyta)",
       "przenieś placeholder"),
    _m("needs_page", "page", "placeholders need the MkDocs plugin or Zensical to know the page; build the site "
       "with MkDocs (`make docs`): Zensical runs no MkDocs hooks or plugins",
       "strona z placeholderami przetwarzana samym Markdownem, bez MkDocs ani Zensicala", "buduj przez `make docs`"),
    _m("zensical_notebook", "page", "this notebook page needs the MkDocs plugin mkdocs-jupyter and "
       "hooks/notebooks.py; build the site with MkDocs (`make docs`): Zensical runs no MkDocs hooks or plugins. "
       "To preview the other pages with Zensical anyway, set {env}=1 (the notebook page is then not built)",
       "podgląd przez Zensical, który nie uruchamia wtyczek MkDocs",
       "buduj przez `make docs` albo ustaw `ANATOMIA_SKIP_NOTEBOOKS=1` (strona notatnika nie powstanie)"),
    # --- claims -----------------------------------------------------------------------------------
    _m("false_claim", "claim", "false claim: \u201e{sentence}\u201d \u2014 the condition '{cond}' does not hold "
       "({values}); correct the sentence (or the computation)",
       "zdanie przestało być prawdziwe dla obecnych liczb", "zmień zdanie albo warunek — nie liczby"),
    _m("shown_claim", "claim", "claim '{cond}' holds for the exact values but not for the numbers the sentence "
       "shows ({shown}): \u201e{sentence}\u201d; {fix}",
       "warunek jest prawdziwy, ale liczby pokazane w zdaniu po zaokrągleniu go nie spełniają "
       "(np. 0,3501 > 0,3499 pokazane jako „0,35 > 0,35”)",
       "pokaż liczby z podaną liczbą cyfr albo przeredaguj zdanie"),
    _m("claim_needs_condition", "claim", "{{% claim %}} needs a condition, e.g. {{% claim a > b %}}",
       "pusty warunek", "dopisz warunek"),
    _m("claim_error", "claim", "claim '{cond}': {problem}",
       "warunek nie daje się policzyć (np. nieznana nazwa)", "popraw warunek według dalszej części komunikatu"),
    _m("claim_nan", "claim", "claim '{cond}' uses {names}, which is NaN (not a number): a comparison with NaN "
       "is always false; fix the computation in the module",
       "warunek używa wartości NaN", "popraw obliczenie w module"),
    _m("claim_arrays", "claim", "claim '{cond}' compares arrays; use all(...) or any(...)",
       "porównanie całych tablic", "otocz porównanie `all(...)` lub `any(...)`"),
    _m("endclaim_alone", "claim", "{{% endclaim %}} without {{% claim ... %}}; remove it or open the claim",
       "zamknięcie bez otwarcia", "usuń je albo dopisz otwarcie"),
    _m("claim_open_again", "claim", "{{% claim %}} is never closed by {{% endclaim %}} (another claim starts at "
       "line {line}); add {{% endclaim %}} after its sentence",
       "nowe `claim` przed zamknięciem poprzedniego; numer wiersza wskazuje otwarcie",
       "dopisz `{% endclaim %}` po pierwszym zdaniu"),
    _m("claim_never_closed", "claim", "{{% claim %}} is never closed by {{% endclaim %}}; add {{% endclaim %}} "
       "after its sentence",
       "brak zamknięcia do końca strony", "dopisz `{% endclaim %}` po zdaniu"),
    # --- the front matter -------------------------------------------------------------------------
    _m("fm_not_closed", "front_matter", "the front matter opened by '---' is never closed; end it with a line '---'",
       "brak zamykającego `---`", "dopisz wiersz `---` po nagłówku"),
    _m("fm_yaml", "front_matter", "the front matter is not valid YAML ({problem}); write it as 'key: value' "
       "lines, e.g. computed: [worked_example]",
       "błąd składni YAML (np. niedomknięty nawias)", "popraw wskazany wiersz"),
    _m("fm_not_mapping", "front_matter", "the front matter must be 'key: value' lines, got {got}",
       "nagłówek jest listą albo tekstem", "pisz pary `klucz: wartość`"),
    _m("fm_computed", "front_matter", "'computed' must list module names of figures_src, e.g. computed: "
       "[worked_example], got {got}",
       "`computed` nie jest listą nazw", "`computed: [worked_example]`"),
    _m("fm_unknown_module", "front_matter", "front matter 'computed' names unknown module '{module}'; "
       "{hint}the modules are the files figures_src/*.py",
       "literówka w nazwie modułu", "popraw nazwę (bez `.py` i bez `figures_src.`)"),
    _m("fm_ambiguous", "front_matter", "the name '{name}' is defined by more than one listed module; write it "
       "as module.{name}",
       "dwa moduły z `computed` mają wartość o tej samej nazwie", "pisz `{{ modul.x }}`"),
    # --- what a module returns --------------------------------------------------------------------
    _m("reserved_name", "values", "{function}() returned a value named '{name}', which is {what} of the "
       "placeholder language, so a page could never show it; rename the value (e.g. '{suggestion}')",
       "nazwa wartości to nazwa funkcji (`sum`, `max`, …), filtra (`dec`, `pct`, …) albo słowa "
       "(`and`, `true`, …) języka placeholderów", "zmień nazwę wartości w słowniku `@values`"),
    # --- the lab notebook -------------------------------------------------------------------------
    _m("notebook_placeholder", "notebook", "'{mark}' in a Markdown cell of the notebook: the lab's Markdown "
       "is published as written, so a placeholder or claim would reach readers as braces; compute the value "
       "in a code cell and print it, or put the braces in `code`",
       "placeholder albo `claim` w komórce Markdown notatnika (notatnik ich nie wypełnia)",
       "policz wartość w komórce z kodem albo umieść klamry w kodzie"),
]}


def text(id: str, **fields) -> str:
    """The message `id` with its fields filled (KeyError for an unknown id or a missing field)."""
    return CATALOGUE[id].text.format(**fields)


def table_rows(group: str) -> list[tuple[str, str, str]]:
    """(message as shown, cause, fix) of every message of `group`, in catalogue order."""
    return [(m.example(), m.cause, m.fix) for m in CATALOGUE.values() if m.group == group]
