"""What a figures_src module's run produces, as typed records, and the one codec for them.

A module runs in a child process (anatomia_engine/child.py); what it produced crosses the
process boundary and is cached as `result.json`, written by `encode` and read by `decode`.
Both sides check every number: NaN and ±inf are refused with the module, the function and
the value's name. The one exception is an array returned as `Value(x, masked=True)`: masked
attention scores, where −inf marks a blocked position (shown as −∞); it may hold −inf, never
NaN or +inf. A scalar, a table cell or a figure's data is never allowed to be infinite.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anatomia_engine.kit import Table, Value

FORMAT = 1   # bumped when the layout of result.json changes


class CodecError(ValueError):
    """A value cannot be published (not finite, unknown type) or a stored result is malformed."""


@dataclass(frozen=True)
class ValueRecord:
    """One named value and what the page may say about it."""

    name: str
    kind: str                  # "bool" | "int" | "float" | "str" | "array" | "json" | "table"
    value: Any                 # decoded: numbers, str, np.ndarray, lists/dicts, Table
    function: str              # the @values function that returned it
    what: str | None = None
    cite: str | None = None
    axes: tuple[tuple[str, ...], ...] | None = None
    masked: bool = False       # an array of masked scores: −inf allowed

    def meta(self) -> dict:
        return {"function": self.function, "what": self.what, "cite": self.cite,
                "axes": None if self.axes is None else [list(a) for a in self.axes]}


@dataclass(frozen=True)
class FigureRecord:
    """One figure: its files in the result folder (per style, plus 'csv'), alt text, caption, data."""

    name: str
    files: Mapping[str, str]
    alt: str
    caption: str
    table: Table


@dataclass(frozen=True)
class ModuleOutput:
    """Everything one module produced."""

    module: str                # "figures_src.worked_example"
    values: dict[str, ValueRecord] = field(default_factory=dict)
    figures: dict[str, FigureRecord] = field(default_factory=dict)


# --- checks -------------------------------------------------------------------------------

def _where(module: str, function: str, name: str) -> str:
    return f"figures_src/{module.split('.')[-1]}.py: {function}() returned {name!r}"


def check_finite(value: Any, where: str, allow_neg_inf: bool = False) -> None:
    """Raise CodecError naming `where` and the position if `value` holds NaN or ±inf."""
    array = _numeric_array(value)
    if array is None:
        return
    bad = np.isnan(array) | np.isposinf(array)
    if not allow_neg_inf:
        bad |= np.isneginf(array)
    if not bad.any():
        return
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    found = array[index] if array.ndim else array.item()
    word = "NaN" if math.isnan(found) else ("+inf" if found > 0 else "-inf")
    at = f" at index {list(index)}" if index else ""
    hint = ("an array of masked scores may hold -inf only, and only when returned as "
            "Value(x, masked=True)") if allow_neg_inf or array.ndim else (
            "only an array returned as Value(x, masked=True) may hold -inf (masked scores)")
    raise CodecError(f"{where} with {word}{at}: a published number must be finite; {hint}")


def _numeric_array(value: Any) -> np.ndarray | None:
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, numbers.Real):
        return np.asarray(float(value))
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value
    return None


def _check_nested(value: Any, where: str) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_nested(v, f"{where}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_nested(v, f"{where}[{i}]")
    elif isinstance(value, np.ndarray) and value.dtype.kind == "f":
        check_finite(value, where)
    elif isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        check_finite(value, where)


# --- encoding -----------------------------------------------------------------------------

def encode_value(value: Any, where: str = "value", masked: bool = False) -> dict:
    """JSON-able form of a value (numbers keep full precision); refuses NaN and ±inf."""
    if isinstance(value, Table):
        for i, row in enumerate(value.rows):
            for j, cell in enumerate(row):
                _check_nested(cell, f"{where} (table row {i}, column {value.header[j]!r})")
        rows = [[_plain(c) for c in row] for row in value.rows]
        return {"type": "table", "header": list(value.header), "rows": rows,
                "formats": None if value.formats is None else list(value.formats)}
    if masked and not isinstance(value, np.ndarray):
        raise CodecError(f"{where}: Value(..., masked=True) is for arrays of masked scores, "
                         f"got {type(value).__name__}")
    if isinstance(value, (bool, np.bool_)):
        return {"type": "bool", "value": bool(value)}
    if isinstance(value, numbers.Integral):
        return {"type": "int", "value": int(value)}
    if isinstance(value, numbers.Real):
        check_finite(value, where)
        return {"type": "float", "value": float(value)}
    if isinstance(value, str):
        return {"type": "str", "value": value}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise CodecError(f"{where}: arrays must be numeric, got dtype {value.dtype}")
        array = value.astype(float)
        check_finite(array, where, allow_neg_inf=masked)
        return {"type": "array", "value": array.tolist()}
    if isinstance(value, (list, tuple, dict)):
        _check_nested(value, where)
        return {"type": "json", "value": _plain(value)}
    raise CodecError(f"{where}: cannot publish a value of type {type(value).__name__}")


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def value_record(module: str, function: str, name: str, produced: Any) -> tuple[ValueRecord, dict]:
    """The record for what `function` returned under `name` (a bare value or a kit.Value),
    and its encoded form; raises CodecError for a value that cannot be published."""
    where = _where(module, function, name)
    meta = Value(produced) if not isinstance(produced, Value) else produced
    if isinstance(meta.value, Value):
        raise CodecError(f"{where}: a Value inside another Value; give what=, cite=, axes= and "
                         "masked= to one Value")
    encoded = encode_value(meta.value, where, masked=meta.masked)
    axes = None if meta.axes is None else tuple(tuple(str(x) for x in a) for a in meta.axes)
    record = ValueRecord(name, encoded["type"], decode_value(encoded), function, meta.what, meta.cite,
                         axes, meta.masked)
    return record, encoded


def encode(output: ModuleOutput) -> str:
    """result.json's text for `output` (stable: sorted keys)."""
    values = {}
    for name, rec in output.values.items():
        where = _where(output.module, rec.function, name)
        values[name] = {"encoded": encode_value(rec.value, where, masked=rec.masked), **rec.meta(),
                        "masked": rec.masked}
    figures = {}
    for name, fig in output.figures.items():
        table = encode_value(fig.table, f"figures_src/{output.module.split('.')[-1]}.py: {name}(style) "
                                        "returned a Plot whose data table")
        figures[name] = {"files": dict(fig.files), "alt": fig.alt, "caption": fig.caption, "table": table}
    doc = {"format": FORMAT, "module": output.module, "values": values, "figures": figures}
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False)


# --- decoding -----------------------------------------------------------------------------

def decode_value(item: Mapping) -> Any:
    kind = item["type"]
    if kind == "table":
        return Table(item["header"], item["rows"], item["formats"])
    if kind == "array":
        return np.array(item["value"], dtype=float)
    if kind in ("bool", "int", "float", "str", "json"):
        return item["value"]
    raise CodecError(f"unknown value type {kind!r}")


def decode(text: str) -> ModuleOutput:
    """The records in result.json's text; CodecError if it is malformed or holds a bad number."""
    try:
        doc = json.loads(text)
        if doc.get("format") != FORMAT:
            raise CodecError(f"result format {doc.get('format')!r}, expected {FORMAT}")
        module = doc["module"]
        values = {}
        for name, item in doc["values"].items():
            encoded = item["encoded"]
            where = _where(module, item["function"], name)
            value = decode_value(encoded)
            kind = encoded["type"]
            if kind == "array":                     # the same checks as when it was written
                check_finite(value, where, allow_neg_inf=bool(item.get("masked")))
            elif kind == "float":
                check_finite(value, where)
            elif kind in ("json", "table"):
                encode_value(value, where)
            axes = item.get("axes")
            values[name] = ValueRecord(name, encoded["type"], value, item["function"], item.get("what"),
                                       item.get("cite"),
                                       None if axes is None else tuple(tuple(a) for a in axes),
                                       bool(item.get("masked")))
        figures = {}
        for name, item in doc["figures"].items():
            table = decode_value(item["table"])
            encode_value(table, f"figure {name!r}: its data table")
            figures[name] = FigureRecord(name, dict(item["files"]), item["alt"], item["caption"], table)
    except CodecError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CodecError(f"malformed result: {type(exc).__name__}: {exc}") from None
    return ModuleOutput(module, values, figures)
