"""What a figures_src module's run produces, as typed records, and the one codec for them.

A module's result crosses the process boundary (worker.py) and is kept in the store as the text
`encode` writes and `decode` reads. Both sides check every number: NaN and ±inf are refused with
the module, the function and the value's name; only an array returned as `Value(x, masked=True)`
(masked attention scores, shown as −∞) may hold −inf.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anatomia_engine import messages as M
from anatomia_engine.kit import Table, Value

FORMAT = 1   # bumped when the layout of the encoded result changes


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
    """One figure: its file names (per style, plus 'csv'), alt text, caption and data."""

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


def _where(module: str, function: str, name: str) -> str:
    return f"figures_src/{module.split('.')[-1]}.py: {function}() returned {name!r}"


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


def value_record(module: str, function: str, name: str, produced: Any) -> ValueRecord:
    """The record for what `function` returned under `name` (a bare value or a kit.Value);
    CodecError for a value that cannot be published."""
    where = _where(module, function, name)
    meta = produced if isinstance(produced, Value) else Value(produced)
    if isinstance(meta.value, Value):
        raise CodecError(M.text("value_in_value", where=where))
    encoded = encode_value(meta.value, where, masked=meta.masked)
    axes = None if meta.axes is None else tuple(tuple(str(x) for x in a) for a in meta.axes)
    return ValueRecord(name, encoded["type"], decode_value(encoded), function, meta.what, meta.cite,
                       axes, meta.masked)


def encode(output: ModuleOutput) -> str:
    """The text kept for `output` (stable: sorted keys)."""
    values = {name: {"encoded": encode_value(rec.value, _where(output.module, rec.function, name),
                                             masked=rec.masked), **rec.meta(), "masked": rec.masked}
              for name, rec in output.values.items()}
    figures = {name: {"files": dict(fig.files), "alt": fig.alt, "caption": fig.caption,
                      "table": encode_value(fig.table, table_where(output.module, name))}
               for name, fig in output.figures.items()}
    doc = {"format": FORMAT, "module": output.module, "values": values, "figures": figures}
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False)


def decode(text: str) -> ModuleOutput:
    """The records in `text`; CodecError if it is malformed or holds a bad number (each value is
    checked as when it was written)."""
    try:
        doc = json.loads(text)
        if doc.get("format") != FORMAT:
            raise CodecError(M.text("result_format", got=doc.get("format"), expected=FORMAT))
        module = doc["module"]
        values = {}
        for name, item in doc["values"].items():
            value = decode_value(item["encoded"])
            meta = Value(value, item["what"], item["cite"], item["axes"], item["masked"])
            values[name] = value_record(module, item["function"], name, meta)
        figures = {}
        for name, item in doc["figures"].items():
            table = decode_value(item["table"])
            encode_value(table, table_where(module, name))
            figures[name] = FigureRecord(name, dict(item["files"]), item["alt"], item["caption"], table)
    except CodecError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CodecError(M.text("malformed_result", problem=f"{type(exc).__name__}: {exc}")) from None
    return ModuleOutput(module, values, figures)
