"""A MindRecord schema: its fields, their checks, and how one row of user data is split for storage.

A schema maps field names to `{"type": t}` (a scalar, string or bytes) or
`{"type": t, "shape": [...]}` (a numeric array). Scalars and strings are stored
in the row's "raw" record (msgpack); bytes and arrays in its "blob", in sorted
field-name order, which is the order MindSpore's JSON objects keep.
"""

from __future__ import annotations

import re
from typing import Any, Final

import numpy as np

__all__ = [
    "ARRAY_TYPES",
    "FIELD_TYPES",
    "Field",
    "Schema",
    "check_name_list",
    "check_schema",
]

FIELD_TYPES: Final = ("int32", "int64", "float32", "float64", "string", "bytes")
ARRAY_TYPES: Final = ("int32", "int64", "float32", "float64")
_NAME: Final = re.compile(r"^[0-9a-zA-Z_]+$")
_INT_RANGE: Final = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


class Field:
    """One schema field: its name, type and (for an array) shape, -1 marking the one free dimension."""

    __slots__ = ("name", "shape", "type")

    def __init__(self, name: str, type_: str, shape: tuple[int, ...] | None) -> None:
        self.name = name
        self.type = type_
        self.shape = shape

    @property
    def in_blob(self) -> bool:
        """Whether the value is stored in the blob (bytes and arrays), not the raw record."""
        return self.shape is not None or self.type == "bytes"

    @property
    def indexable(self) -> bool:
        """Whether the field can be an index field (a scalar number or a string)."""
        return not self.in_blob

    def as_json(self) -> dict[str, Any]:
        """Return the field as the schema JSON writes it."""
        if self.shape is None:
            return {"type": self.type}
        return {"shape": list(self.shape), "type": self.type}


class Schema:
    """The fields of a MindRecord file, sorted by name, and its description."""

    def __init__(self, fields: list[Field], desc: str) -> None:
        self.fields = sorted(fields, key=lambda f: f.name)
        self.desc = desc
        self.by_name = {f.name: f for f in self.fields}
        self.blob_fields = [f.name for f in self.fields if f.in_blob]
        self.raw_fields = [f.name for f in self.fields if not f.in_blob]

    @property
    def names(self) -> list[str]:
        """Return the field names in stored (sorted) order."""
        return [f.name for f in self.fields]

    @property
    def compresses_ints(self) -> bool:
        """Whether integer arrays are stored compressed (format 3.0 with an integer array field)."""
        return any(f.shape is not None and f.type in _INT_RANGE for f in self.fields)

    def as_json(self) -> dict[str, Any]:
        """Return the `schema` entry of the file header."""
        return {
            "blob_fields": list(self.blob_fields),
            "desc": self.desc,
            "schema": {f.name: f.as_json() for f in self.fields},
        }

    def split_row(
        self, row: dict[str, Any], index: int, where: str
    ) -> tuple[dict[str, Any], list[Any]]:
        """Check one row of `write_raw_data` and return its raw values and its blob values (blob order).

        Raises:
            ValueError: If a field is missing or its value does not fit the schema,
                naming the row, the field, the expected and the received value.
        """
        raw: dict[str, Any] = {}
        for name in self.raw_fields:
            raw[name] = _scalar(
                self.by_name[name], _value(row, name, index, where), index, where
            )
        blob = [
            _blob(self.by_name[n], _value(row, n, index, where), index, where)
            for n in self.blob_fields
        ]
        return raw, blob


def _value(row: dict[str, Any], name: str, index: int, where: str) -> Any:
    if name not in row:
        raise ValueError(
            f"For '{where}', row {index} of 'raw_data' has no field {name!r}; the schema needs every field "
            f"(it has {sorted(row)!r})."
        )
    return row[name]


def _mismatch(
    field: Field, index: int, where: str, expected: str, value: Any
) -> ValueError:
    return ValueError(
        f"For '{where}', the field {field.name!r} of row {index} of 'raw_data' must be {expected} "
        f"(schema type {field.type!r}), but got {_received(value)}."
    )


def _received(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"a numpy array of dtype {value.dtype} and shape {value.shape}"
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{text} of type {type(value).__name__!r}"


def _scalar(field: Field, value: Any, index: int, where: str) -> Any:
    kind = field.type
    if kind == "string":
        if not isinstance(value, str):
            raise _mismatch(field, index, where, "a str", value)
        return value
    if isinstance(value, bool | np.bool_) or not isinstance(
        value, int | float | np.integer | np.floating
    ):
        raise _mismatch(field, index, where, "a number", value)
    if kind in _INT_RANGE:
        low, high = _INT_RANGE[kind]
        if not isinstance(value, int | np.integer) or not low <= int(value) <= high:
            raise _mismatch(field, index, where, f"an int in [{low}, {high}]", value)
        return int(value)
    return float(value)


def _blob(
    field: Field, value: Any, index: int, where: str
) -> bytes | np.ndarray[Any, Any]:
    if field.shape is None:
        if not isinstance(value, bytes | bytearray):
            raise _mismatch(field, index, where, "bytes", value)
        return bytes(value)
    if not isinstance(value, np.ndarray) or str(value.dtype) != field.type:
        raise _mismatch(
            field, index, where, f"a numpy array of dtype {field.type}", value
        )
    try:
        return np.ascontiguousarray(value).reshape(field.shape)
    except ValueError:
        raise _mismatch(
            field, index, where, f"an array that reshapes to {list(field.shape)}", value
        ) from None


def check_name_list(value: Any, name: str, where: str) -> list[str]:
    """Return `value` if it is a non-empty list of field names (str), else raise TypeError."""
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, str) for v in value)
    ):
        raise TypeError(
            f"For '{where}', the argument '{name}' must be a non-empty list of str, but got {value!r}."
        )
    return list(value)


def check_schema(content: Any, desc: Any, where: str) -> Schema:
    """Return the schema `content` describes (MindSpore's rules), or raise naming the bad field.

    Raises:
        TypeError: If `content` is not a dict or `desc` not a str or None.
        ValueError: If the schema is empty, a name has characters other than
            letters, digits and `_`, a type is unknown, or a shape is malformed.
    """
    if not isinstance(content, dict):
        raise TypeError(
            f"For '{where}', the argument 'content' must be a dict, but got {_received(content)}."
        )
    if not content:
        raise ValueError(
            f"For '{where}', the argument 'content' must describe at least one field, but it is empty."
        )
    if desc is not None and not isinstance(desc, str):
        raise TypeError(
            f"For '{where}', the argument 'desc' must be a str or None, but got {_received(desc)}."
        )
    fields = [_field(name, spec, where) for name, spec in content.items()]
    return Schema(fields, desc or "")


def _field(name: Any, spec: Any, where: str) -> Field:
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(
            f"For '{where}', the field name {name!r} must be made of letters, digits and '_' only."
        )
    if not isinstance(spec, dict) or spec.get("type") not in FIELD_TYPES:
        raise ValueError(
            f"For '{where}', the field {name!r} must be a dict with 'type' one of {list(FIELD_TYPES)} "
            f"(and 'shape' for an array), but got {spec!r}."
        )
    extra = set(spec) - {"type", "shape"}
    if extra:
        raise ValueError(
            f"For '{where}', the field {name!r} has unknown attributes {sorted(extra)}; only 'type' and 'shape' exist."
        )
    if "shape" not in spec:
        return Field(name, spec["type"], None)
    return Field(name, spec["type"], _shape(name, spec, where))


def _shape(name: str, spec: dict[str, Any], where: str) -> tuple[int, ...]:
    shape = spec["shape"]
    if spec["type"] not in ARRAY_TYPES:
        raise ValueError(
            f"For '{where}', the field {name!r} of type {spec['type']!r} cannot have a 'shape'; "
            f"arrays are one of {list(ARRAY_TYPES)}."
        )
    ok = (
        isinstance(shape, list)
        and bool(shape)
        and all(
            isinstance(d, int) and not isinstance(d, bool) and (d > 0 or d == -1)
            for d in shape
        )
        and shape.count(-1) <= 1
    )
    if not ok:
        raise ValueError(
            f"For '{where}', the 'shape' of field {name!r} must be a non-empty list of ints > 0 with at most "
            f"one -1 (the free dimension), but got {shape!r}."
        )
    return tuple(shape)
