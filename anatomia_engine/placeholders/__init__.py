"""The placeholder language of the pages: `{{ expr | filter }}` and `{% claim %}` blocks.

A page shows a computed value by its name, never by its digits:

    Najbardziej prawdopodobny jest {{ vocab[argmax(probs)] }} ({{ probs | max | pct(1) }}).

and a sentence that compares numbers is a claim checked at build time:

    {% claim probs[1] > 2 * probs[0] %}… ponad dwa razy …{% endclaim %}

One job per module, each importing only those before it:

- `expressions`: compiling an expression (Jinja2's expression syntax, read by its parser) into
  the compact form Python and the browser evaluate; the functions; what an expression may cost;
- `tags`: finding the tags of a page and replacing them by tokens; a claim's parts; the places
  where no tag may stand (a notebook's Markdown);
- `names`: a page's scope (module.name and the bare names of its modules), looking a name up
  with a "did you mean", and the names a module's value may not have;
- `fill`: a token's text by where it landed (prose, math, plain text, code), a number's
  provenance span, a table, and on a live page what the browser needs to recompute it;
- `claims`: checking claims on the exact values, on what their sentences show, and as shown;
  shown sums.

It imports neither Python-Markdown nor the math renderer: anatomia_engine/markdown.py binds it
to pages. Every failure is an `EngineError` with a catalogue id (anatomia_engine/messages.yaml),
placed at the page's `file:line`.
"""

from __future__ import annotations

# What the Markdown extension (markdown.py) binds to pages: the checks it runs after filling.
from anatomia_engine.placeholders.claims import (
    canonical,
    check_claims,
    check_shown_sums,
    is_statement,
)

# The compiled form, which the live pages' code and the browser mirror tests evaluate too.
from anatomia_engine.placeholders.expressions import (
    FUNCTIONS,
    OPERATORS,
    RESERVED,
    compile_expression,
    compiled,
    names_used,
    run,
)

# A token's text: the Markdown extension asks for it where Python-Markdown put the token.
from anatomia_engine.placeholders.fill import (
    Shown,
    fill,
    number_attrs,
    span_html,
    table_markdown,
    value_of,
)

# The scope: the runner checks a module's value names, the contributor page lists the reserved.
from anatomia_engine.placeholders.names import (
    JINJA_WORDS,
    Entry,
    FigureRef,
    check_value_name,
    evaluate,
    reserved_names,
)

# The tags: the extension scans pages with them, unchecked.py reads sentences with TAG, the
# notebook runner refuses them in Markdown cells.
from anatomia_engine.placeholders.tags import (
    BLOCKS,
    MARKS,
    TAG,
    TOKEN,
    Tag,
    claim_expression,
    claim_parts,
    expression_of,
    names_of_tag,
    refuse_in_notebook,
    scan,
)

# The public surface: what other modules and the tests import from the package itself, so that
# they need not know which module of it does the job.
__all__ = [
    "BLOCKS", "FUNCTIONS", "JINJA_WORDS", "MARKS", "OPERATORS", "RESERVED", "TAG", "TOKEN",
    "Entry", "FigureRef", "Shown", "Tag",
    "canonical", "check_claims", "check_shown_sums", "check_value_name", "claim_expression",
    "claim_parts", "compile_expression", "compiled", "evaluate", "expression_of", "fill",
    "is_statement", "names_of_tag", "names_used", "number_attrs", "refuse_in_notebook",
    "reserved_names", "run", "scan", "span_html", "table_markdown", "value_of",
]
