"""The engine's messages as the contributor page shows them, straight from the catalogue.

Page: docs/jak-dodac-wartosc.md ("Co znaczy każdy błąd"). Values: errors_<group>, one Table per
group of the catalogue anatomia_engine/messages.yaml (message, cause, fix), so the page can never
list a message the engine does not produce, nor miss one it does.
"""

from anatomia_engine import messages
from anatomia_engine.kit import MARKDOWN, Table, values


def _code(text: str) -> str:
    """`text` as inline HTML code: every ASCII sign as a character reference, so neither
    Markdown nor the table's column bars read it."""
    return "<code>" + "".join(f"&#{ord(c)};" if not c.isalnum() and c != " " and ord(c) < 128 else c
                              for c in text) + "</code>"


@values
def catalogue():
    rows = {group: [] for group in messages.GROUPS}
    for m in messages.CATALOGUE.values():
        rows[m.group].append([_code(m.example()), m.cause, m.fix])
    # every column is Markdown written here on purpose: the message as HTML code, code spans in the rest
    return {f"errors_{group}": Table(["komunikat", "przyczyna", "co zrobić"], rows[group], [MARKDOWN] * 3)
            for group in rows}


@values
def reserved():
    from anatomia_engine import placeholders

    return {"reserved_names": ", ".join(placeholders.reserved_names())}
