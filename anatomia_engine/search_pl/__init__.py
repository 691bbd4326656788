"""Polish site search: every form of every word on the site finds the pages that use the word.

Material's search box sends the reader's query to the site's own worker
(theme/assets/javascripts/workers/search-pl.js), which ranks the pages. The build gives the
worker two files, and this package writes them:

- `documents`: a rendered page's search documents, the page and one per heading, formulas
  as text (`QKᵀ/(√d_k)`), figure data and code left out;
- `words`: how a word becomes its index key, folded (lower case, no diacritics, `ł` -> `l`,
  `x` -> `ks`) and looked up in the form table; the worker does the same, letter for letter;
- `forms`: the form table, built from SGJP through Morfeusz 2: every form of every lexeme the
  site uses -> its key (`zapytaniom` finds `zapytanie`);
- `index`: writing the documents and the table where the worker fetches them.

The ranking itself lives in the worker alone (tests/unit/test_search_ranking.py runs it in Node).
"""

# The names the plugin and the tests use: the modules behind them may be rearranged freely.
# Per page, while the site is built:
from anatomia_engine.search_pl.documents import (
    math_text,
    own_docs,
    own_search_meta,
    page_docs,
    site_words,
)

# Once per build, after every page:
from anatomia_engine.search_pl.forms import build_table, encode_table, paradigm, readings
from anatomia_engine.search_pl.index import keep_table, write_index

# What the worker mirrors letter for letter (the tests run both on the same words):
from anatomia_engine.search_pl.words import PREFIXES, fold, normalise, tokenize

__all__ = [
    "PREFIXES",
    "build_table",
    "encode_table",
    "fold",
    "keep_table",
    "math_text",
    "normalise",
    "own_docs",
    "own_search_meta",
    "page_docs",
    "paradigm",
    "readings",
    "site_words",
    "tokenize",
    "write_index",
]
