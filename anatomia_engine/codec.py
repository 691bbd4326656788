"""What a figures_src module's run produces, and the one codec for it (the worker writes, the store keeps).

Both sides check every number: NaN and ±inf are refused with the module, the function and the value's
name; only an array returned as `Value(x, masked=True)` (masked attention scores) may hold −inf.
A value that cannot be published, or a stored result that does not decode, is an EngineError.
"""

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from anatomia_engine.errors import EngineError
from anatomia_engine.kit import Table, Value

FORMAT = 2   # bumped when the layout of the encoded result changes
META = ("function", "what", "cite", "axes", "at", "limit")   # what a page may say about a value
# The kinds of plain values, in the order they are tried: a bool is also an Integral, an int a Real.
PLAIN_KINDS = (
    ("bool", (bool, np.bool_)),
    ("int", numbers.Integral),
    ("float", numbers.Real),
    ("str", str),
    ("json", (list, tuple, dict)),
)
# What the codec raises. (The name stays for the code that catches it; it is the one error type.)
CodecError = EngineError


def table_where(module: str, name: str) -> str:
    """How a message names the data table of figure `name` of `module`."""
    short = module.split(".")[-1]
    return f"figures_src/{short}.py: {name}(style) returned a Plot whose data table"


def _word(number: float) -> str:
    """How a message names a number that is not finite."""
    if np.isnan(number):
        return "NaN"
    if number > 0:
        return "+inf"
    return "-inf"


def _check_finite(array: np.ndarray, where: str, masked: bool = False) -> None:
    """EngineError naming `where` and the position if `array` holds NaN, +inf or (unless `masked`) -inf."""
    # -inf is a masked score's value (exp(-inf) = 0 in a softmax) where the module said so
    bad = ~np.isfinite(array) & ~(masked & np.isneginf(array))
    if not bad.any():
        return
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    # a 0-d array (one number) has no position to name
    at = ""
    if index:
        at = f" at index {list(index)}"
    hint = "only an array returned as Value(x, masked=True) may hold -inf (masked scores)"
    raise EngineError("not_finite", where=where, word=_word(array[index]), hint=hint, at=at)


def _plain(value: Any, where: str) -> Any:
    """`value` as JSON (numbers at full precision), every float checked."""
    # JSON keys are text: a mapping keyed by numbers is read back keyed by their text
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    # a bool is an Integral too: it stays true or false, not 1 or 0
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        _check_finite(np.float64(value), where)
        return float(value)
    return value


def _encode_table(table: Table, where: str) -> dict:
    rows = []
    for i, row in enumerate(table.rows):
        cells = []
        for j, cell in enumerate(row):
            cells.append(_plain(cell, f"{where} (table row {i}, column {table.header[j]!r})"))
        rows.append(cells)
    formats = None
    if table.formats is not None:
        formats = list(table.formats)
    return {"type": "table", "header": list(table.header), "rows": rows, "formats": formats}


def encode_value(value: Any, where: str = "value", masked: bool = False) -> dict:
    """JSON-able form of a value (numbers keep full precision); refuses NaN and ±inf."""
    if isinstance(value, Table):
        return _encode_table(value, where)
    if masked and not isinstance(value, np.ndarray):
        raise EngineError("masked_not_array", where=where, type=type(value).__name__)
    if isinstance(value, np.ndarray):
        # bool, signed, unsigned, float: an array of objects or strings has no numbers to show
        if value.dtype.kind not in "biuf":
            raise EngineError("not_numeric", where=where, dtype=value.dtype)
        _check_finite(value.astype(float), where, masked)
        return {"type": "array", "value": value.astype(float).tolist()}
    for kind, types in PLAIN_KINDS:
        if isinstance(value, types):
            return {"type": kind, "value": _plain(value, where)}
    raise EngineError("cannot_publish", where=where, type=type(value).__name__)


# an array comes back as float64 whatever it was: the page formats it, it is not computed with again
def decode_value(item: Mapping) -> Any:
    kind = item["type"]
    if kind == "table":
        try:
            return Table(item["header"], item["rows"], item["formats"])
        except EngineError as exc:
            # kit.Table checks a table when it is made: a stored one it refuses was damaged
            raise EngineError("malformed_result", problem=f"EngineError: {exc}") from None
    if kind == "array":
        return np.array(item["value"], dtype=float)
    if kind in ("bool", "int", "float", "str", "json"):
        return item["value"]
    raise EngineError("unknown_kind", kind=kind)


def value_entry(module: str, function: str, name: str, produced: Any) -> dict:
    """The stored form of what `function` returned under `name` (a bare value or a kit.Value)."""
    where = f"figures_src/{module.split('.')[-1]}.py: {function}() returned {name!r}"
    # a bare value is a Value with nothing said about it
    meta = produced
    if not isinstance(produced, Value):
        meta = Value(produced)
    if isinstance(meta.value, Value):
        raise EngineError("value_in_value", where=where)
    # kit.Value: what a page would otherwise fail on, with no module named
    problem = meta.problem()
    if problem is not None:
        raise problem.located(where)
    axes = None
    # labels are shown as text: numbers as labels are kept as they print
    if meta.axes is not None:
        axes = [[str(x) for x in axis] for axis in meta.axes]
    return {
        "encoded": encode_value(meta.value, where, masked=meta.masked),
        "function": function,
        "what": meta.what,
        "cite": meta.cite,
        "axes": axes,
        "masked": meta.masked,
        "at": meta.at,
        "limit": meta.limit,
    }


def _decode_values(doc: Mapping) -> tuple[dict, dict]:
    """The values of a stored result and what a page may say of each, checked as when written."""
    values = {}
    meta = {}
    for name, item in doc["values"].items():
        value = decode_value(item["encoded"])
        # entries written before `at` and `limit` existed have neither
        kept = Value(value, item["what"], item["cite"], item["axes"], item["masked"], item.get("at"),
                     item.get("limit", False))
        # checked again as the module's return was: an entry edited by hand is refused the same way
        entry = value_entry(doc["module"], item["function"], name, kept)
        values[name] = decode_value(entry["encoded"])
        meta[name] = {key: entry[key] for key in META}
    return values, meta


def decode(doc: Mapping) -> tuple[dict, dict, dict]:
    """The values, what a page may say of each and the figures of a stored result, checked as when written."""
    try:
        if doc.get("format") != FORMAT:
            raise EngineError("result_format", got=doc.get("format"), expected=FORMAT)
        values, meta = _decode_values(doc)
        figures = {name: dict(item) for name, item in doc["figures"].items()}
        # a figure's table is checked by encoding it again (finite numbers, known types)
        for name, item in figures.items():
            encode_value(decode_value(item["table"]), table_where(doc["module"], name))
    # a message of the catalogue already names what is wrong
    except EngineError:
        raise
    # anything else: the entry's layout is not this codec's
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise EngineError("malformed_result", problem=f"{type(exc).__name__}: {exc}") from None
    return values, meta, figures
