"""What a figures_src module's run produces, and the one codec for it (the worker writes, the store keeps).

Both sides check every number: NaN and ±inf are refused with the module, the function and the value's
name; only an array returned as `Value(x, masked=True)` (masked attention scores) may hold −inf.
"""

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from anatomia_engine import messages as M
from anatomia_engine.errors import EngineError
from anatomia_engine.kit import Table, Value

FORMAT = 2   # bumped when the layout of the encoded result changes
META = ("function", "what", "cite", "axes", "at", "limit")   # what a page may say about a value


class CodecError(ValueError):
    """A value cannot be published (not finite, unknown type) or a stored result is malformed."""


def table_where(module: str, name: str) -> str:
    return f"figures_src/{module.split('.')[-1]}.py: {name}(style) returned a Plot whose data table"


def _check_finite(array: np.ndarray, where: str, masked: bool = False) -> None:
    """CodecError naming `where` and the position if `array` holds NaN, +inf or (unless `masked`) -inf."""
    bad = ~np.isfinite(array) & ~(masked & np.isneginf(array))
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        word = "NaN" if np.isnan(array[index]) else ("+inf" if array[index] > 0 else "-inf")
        hint = "only an array returned as Value(x, masked=True) may hold -inf (masked scores)"
        raise CodecError(M.text("not_finite", where=where, word=word, hint=hint,
                                at=f" at index {list(index)}" if index else ""))


def _plain(value: Any, where: str) -> Any:
    """`value` as JSON (numbers at full precision), every float checked."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        _check_finite(np.float64(value), where)
        return float(value)
    return value


def encode_value(value: Any, where: str = "value", masked: bool = False) -> dict:
    """JSON-able form of a value (numbers keep full precision); refuses NaN and ±inf."""
    if isinstance(value, Table):
        rows = [[_plain(cell, f"{where} (table row {i}, column {value.header[j]!r})")
                 for j, cell in enumerate(row)] for i, row in enumerate(value.rows)]
        return {"type": "table", "header": list(value.header), "rows": rows,
                "formats": None if value.formats is None else list(value.formats)}
    if masked and not isinstance(value, np.ndarray):
        raise CodecError(M.text("masked_not_array", where=where, type=type(value).__name__))
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise CodecError(M.text("not_numeric", where=where, dtype=value.dtype))
        _check_finite(value.astype(float), where, masked)
        return {"type": "array", "value": value.astype(float).tolist()}
    for kind, types in (("bool", (bool, np.bool_)), ("int", numbers.Integral), ("float", numbers.Real),
                        ("str", str), ("json", (list, tuple, dict))):
        if isinstance(value, types):
            return {"type": kind, "value": _plain(value, where)}
    raise CodecError(M.text("cannot_publish", where=where, type=type(value).__name__))


def decode_value(item: Mapping) -> Any:
    kind = item["type"]
    if kind == "table":
        return Table(item["header"], item["rows"], item["formats"])
    if kind == "array":
        return np.array(item["value"], dtype=float)
    if kind in ("bool", "int", "float", "str", "json"):
        return item["value"]
    raise CodecError(M.text("unknown_kind", kind=kind))


def value_entry(module: str, function: str, name: str, produced: Any) -> dict:
    """The stored form of what `function` returned under `name` (a bare value or a kit.Value)."""
    where = f"figures_src/{module.split('.')[-1]}.py: {function}() returned {name!r}"
    meta = produced if isinstance(produced, Value) else Value(produced)
    if isinstance(meta.value, Value):
        raise CodecError(M.text("value_in_value", where=where))
    if problem := meta.problem():   # kit.Value: what a page would otherwise fail on, with no module named
        raise CodecError(f"{where}: {problem}")
    axes = None if meta.axes is None else [[str(x) for x in a] for a in meta.axes]
    return {"encoded": encode_value(meta.value, where, masked=meta.masked), "function": function,
            "what": meta.what, "cite": meta.cite, "axes": axes, "masked": meta.masked, "at": meta.at,
            "limit": meta.limit}


def decode(doc: Mapping) -> tuple[dict, dict, dict]:
    """The values, what a page may say of each and the figures of a stored result, checked as when written."""
    try:
        if doc.get("format") != FORMAT:
            raise CodecError(M.text("result_format", got=doc.get("format"), expected=FORMAT))
        module, values, meta = doc["module"], {}, {}
        for name, item in doc["values"].items():
            value = decode_value(item["encoded"])
            meta_value = Value(value, item["what"], item["cite"], item["axes"], item["masked"],
                               item.get("at"), item.get("limit", False))
            entry = value_entry(module, item["function"], name, meta_value)
            values[name] = decode_value(entry["encoded"])
            meta[name] = {key: entry[key] for key in META}
        figures = {name: dict(item) for name, item in doc["figures"].items()}
        for name, item in figures.items():
            encode_value(decode_value(item["table"]), table_where(module, name))
    except CodecError:
        raise
    # EngineError: a stored table that kit.Table refuses
    except (ValueError, KeyError, TypeError, AttributeError, EngineError) as exc:
        raise CodecError(M.text("malformed_result", problem=f"{type(exc).__name__}: {exc}")) from None
    return values, meta, figures
