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
    header = ["komunikat", "przyczyna", "co zrobić"]
    # the catalogue's causes and fixes are Markdown (code spans), the message is HTML code
    formats = [MARKDOWN, MARKDOWN, MARKDOWN]
    return {f"errors_{group}": Table(header, rows[group], formats) for group in rows}


@values
def reserved():
    from anatomia_engine import placeholders

    return {"reserved_names": ", ".join(placeholders.reserved_names())}
