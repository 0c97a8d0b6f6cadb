"""A table as plain data: JSON that round-trips a result table exactly, dtypes included.

The quick results kept between runs (``TCPLAB_QUICK_CACHE``) and the digest that tells whether
the code still computes a table (``quick_sha256`` in data/*.meta.json) both need a form of a
``pandas.DataFrame`` that holds its values bit for bit and its column types, and that reading
can never turn into running code (a pickle can). :func:`encode` writes the columns, their
dtypes and the index as JSON: floats in Python's shortest round-trip notation (NaN and the
infinities as JSON's extension tokens), integers as integers, strings as strings. A table this
form cannot hold exactly (a dtype outside :data:`DTYPES`, a column name that is not a string,
an object column holding lists) raises :class:`Unsupported` instead of being stored
approximately: :func:`encode` decodes what it wrote and compares. :func:`decode` accepts only
this form; anything else is a ``ValueError`` naming what is wrong.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["DTYPES", "FORMAT", "UNTIMED", "Unsupported", "decode", "digest", "encode"]

#: the first key of the form, and its version
FORMAT = "tcplab-frame-1"
#: the column types the form holds (``str``: pandas' string dtype)
DTYPES = frozenset(
    {"float64", "float32", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16",
     "uint8", "bool", "str", "object"}
)  # fmt: skip
#: wall-clock columns: how long a run took is not a result, so the digest leaves them out
UNTIMED = ("wall_s", "packets_per_wall_s")


class Unsupported(TypeError):
    """A table the form cannot hold exactly."""


def _plain(value: Any) -> Any:
    """A cell as JSON holds it: numpy scalars as Python numbers (bool before int)."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise Unsupported(f"a cell of type {type(value).__name__} ({value!r:.40})")


def _column(values: pd.Series | pd.Index) -> dict[str, Any]:
    dtype = str(values.dtype)
    if dtype not in DTYPES:
        raise Unsupported(f"dtype {dtype}")
    return {"dtype": dtype, "values": [_plain(v) for v in values.tolist()]}


def _series(column: Any, where: str, length: int | None) -> tuple[str, list[Any]]:
    if not isinstance(column, dict) or set(column) != {"dtype", "values"}:
        raise ValueError(f"{where} is not a {{dtype, values}} object")
    dtype, values = column["dtype"], column["values"]
    if dtype not in DTYPES or not isinstance(values, list):
        raise ValueError(f"{where} has dtype {dtype!r:.40} or values that are not a list")
    if length is not None and len(values) != length:
        raise ValueError(f"{where} has {len(values)} values, not {length}")
    for value in values:
        if not (value is None or isinstance(value, str | bool | int | float)):
            raise ValueError(f"{where} holds a {type(value).__name__}")
    return dtype, values


def _text(form: dict[str, Any]) -> str:
    return json.dumps(form, allow_nan=True, ensure_ascii=True, separators=(",", ":"))


def _form(table: pd.DataFrame) -> dict[str, Any]:
    names = list(table.columns)
    if not all(isinstance(name, str) for name in names) or len(set(names)) != len(names):
        raise Unsupported(f"column names {names!r:.80} (each must be a distinct string)")
    index = table.index
    if isinstance(index, pd.MultiIndex):
        raise Unsupported("a MultiIndex")
    if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
        rows: dict[str, Any] = {"range": len(index)}  # the index of a table built by rows
    else:
        rows = _column(index)
    return {
        "format": FORMAT,
        "columns": {"dtype": str(table.columns.dtype), "values": names},
        "data": [_column(table[name]) for name in names],
        "index": {**rows, "name": _plain(index.name)},
    }


def encode(table: pd.DataFrame) -> bytes:
    """``table`` as JSON bytes that :func:`decode` turns back into an equal table (the same
    values to the bit, the same dtypes and index); :class:`Unsupported` otherwise."""
    text = _text(_form(table)).encode("ascii")
    back = decode(text)
    if not _identical(table, back):
        raise Unsupported("the table does not come back from JSON exactly")
    return text


def _identical(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    try:
        pd.testing.assert_frame_equal(
            a, b, check_exact=True, check_index_type=True, check_column_type=True
        )
    except AssertionError:
        return False
    return True


def decode(data: bytes) -> pd.DataFrame:
    """The table of :func:`encode`'s ``data``; ``ValueError`` saying what is wrong with it."""
    try:
        form = json.loads(data.decode("ascii"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValueError(f"not the JSON of a table ({str(error)[:80]})") from None
    if not isinstance(form, dict) or form.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} object")
    if set(form) != {"format", "columns", "data", "index"}:
        raise ValueError(f"keys {sorted(form)} are not format, columns, data, index")
    names_dtype, names = _series(form["columns"], "columns", None)
    if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        raise ValueError("columns is not a list of distinct names")
    data, index = form["data"], form["index"]
    if not isinstance(data, list) or len(data) != len(names):
        raise ValueError("data does not hold one column per name")
    if not isinstance(index, dict) or not isinstance(index.get("name"), str | None):
        raise ValueError("index is not an object with a name")
    index = dict(index)
    name = index.pop("name")
    if set(index) == {"range"} and isinstance(index["range"], int) and index["range"] >= 0:
        rows: pd.Index = pd.RangeIndex(index["range"], name=name)
    else:
        dtype, values = _series(index, "index", None)
        rows = pd.Index(values, dtype=dtype, name=name)
    columns = {}
    for column_name, column in zip(names, data, strict=True):
        dtype, values = _series(column, f"column {column_name!r:.40}", len(rows))
        columns[column_name] = pd.Series(values, dtype=dtype, index=rows)
    return pd.DataFrame(columns, index=rows, columns=pd.Index(names, dtype=names_dtype))


def digest(table: pd.DataFrame) -> str:
    """The sha256 of ``table``'s :func:`encode` bytes, its wall-clock columns
    (:data:`UNTIMED`) left out: equal for two tables exactly when they hold the same results."""
    kept = table.drop(columns=[c for c in UNTIMED if c in table.columns])
    return hashlib.sha256(encode(kept)).hexdigest()
