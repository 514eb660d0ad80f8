"""The base schema class, the field-metadata helper and the custom fields for Kubernetes wire types.

Wire types that JSON has no word for (Quantity, IntOrString, Time, MicroTime, int32/int64, free-form
maps) are fields here, so `fakeapi.decode` and the OpenAPI builder recognise them by class. The parsers
for Quantity and Time reproduce the messages apimachinery's decoders return, because those messages
end up verbatim in 400 responses.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import orjson
from marshmallow import EXCLUDE, Schema, ValidationError, fields

from fakeapi.machinery.clock import rfc3339, rfc3339_micro

QUANTITY_FORMAT_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix"

_QUANTITY = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)([eEinumkKMGTP]*[-+]?[0-9]*)")
_QUANTITY_SUFFIXES = frozenset(
    ("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
)
_DECIMAL_EXPONENT = re.compile(r"[eE][-+]?[0-9]+")

RFC3339_LAYOUT = "2006-01-02T15:04:05Z07:00"
# Already as upstream writes it, with every part in range (days past the 28th take the slow path).
_IN_RANGE = r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
_CANONICAL_TIME = re.compile(_IN_RANGE + "Z")
_CANONICAL_MICRO_TIME = re.compile(_IN_RANGE + r"\.[0-9]{6}Z")
# Go's time.Parse walks the layout element by element; these mirror the elements of RFC3339.
_TIME_ELEMENTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (element, re.compile(pattern))
    for element, pattern in (
        ("2006", r"[0-9]{4}"),
        ("-", "-"),
        ("01", r"[0-9]{2}"),
        ("-", "-"),
        ("02", r"[0-9]{2}"),
        ("T", "T"),
        ("15", r"[0-9]{1,2}"),
        (":", ":"),
        ("04", r"[0-9]{2}"),
        (":", ":"),
        ("05", r"[0-9]{2}(?:\.[0-9]+)?"),
        ("Z07:00", r"Z|[+-][0-9]{2}:[0-9]{2}"),
    )
)


# field metadata keys for the Go struct field facts (not OpenAPI properties: apispec leaves them out)
OMITEMPTY = "omitempty"
POINTER = "pointer"


def doc(
    description: str,
    *,
    merge_key: str | None = None,
    strategy: str | None = None,
    list_type: str | None = None,
    map_keys: list[str] | None = None,
    map_type: str | None = None,
    omitempty: bool | None = None,
    pointer: bool | None = None,
) -> dict[str, Any]:
    """Field metadata: the description plus the x-kubernetes-* extensions upstream's OpenAPI carries.

    `omitempty` and `pointer` state the Go struct field where the default is wrong (see
    `fakeapi.machinery.schemas.gofields`: a field is omitempty unless required, a nested struct is a
    pointer, anything else a value).
    """
    metadata: dict[str, Any] = {"description": description}
    if omitempty is not None:
        metadata[OMITEMPTY] = omitempty
    if pointer is not None:
        metadata[POINTER] = pointer
    if merge_key is not None:
        metadata["x-kubernetes-patch-merge-key"] = merge_key
    if strategy is not None:
        metadata["x-kubernetes-patch-strategy"] = strategy
    if list_type is not None:
        metadata["x-kubernetes-list-type"] = list_type
    if map_keys is not None:
        metadata["x-kubernetes-list-map-keys"] = map_keys
    if map_type is not None:
        metadata["x-kubernetes-map-type"] = map_type
    return metadata


class K8sSchema(Schema):
    """Base of every fakeapi schema.

    Fields are declared under their wire names, in upstream Go struct order. `load` drops unknown
    keys; `fakeapi.decode` is the hot path and reports them. `openapi_name` is upstream's definition
    name (its last segment is the Go struct name used in decode errors); `openapi_extensions` holds
    type-level extensions such as `x-kubernetes-map-type: atomic`.
    """

    openapi_name: ClassVar[str] = ""
    openapi_extensions: ClassVar[dict[str, Any]] = {}

    class Meta:
        unknown = EXCLUDE


class TypedSchema(K8sSchema):
    """A top-level object: TypeMeta's `kind` and `apiVersion` come first."""

    kind = fields.String(
        metadata=doc(
            "Kind is a string value representing the REST resource this object represents. Servers may "
            "infer this from the endpoint the client submits requests to. Cannot be updated.",
        ),
    )
    apiVersion = fields.String(
        metadata=doc("APIVersion defines the versioned schema of this representation of an object."),
    )


def quantity_error(text: str) -> str | None:
    """Why apimachinery's ParseQuantity rejects `text` (its exact message), or None if it parses."""
    text = text.strip()
    if text == "0":
        return None
    match = _QUANTITY.fullmatch(text)
    if match is None:
        return QUANTITY_FORMAT_ERROR
    suffix = match.group(1)
    if suffix in _QUANTITY_SUFFIXES or _DECIMAL_EXPONENT.fullmatch(suffix):
        return None
    return QUANTITY_SUFFIX_ERROR


def number_text(value: int | float) -> str:
    """A JSON number as a quantity string (upstream stores quantities as strings)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _go_quote(text: str) -> str:
    return orjson.dumps(text).decode()


def _time_format_error(value: str) -> str:
    rest = value
    for element, pattern in _TIME_ELEMENTS:
        match = pattern.match(rest)
        if match is None:
            return (
                f"parsing time {_go_quote(value)} as {_go_quote(RFC3339_LAYOUT)}: "
                f"cannot parse {_go_quote(rest)} as {_go_quote(element)}"
            )
        rest = rest[match.end() :]
    return f"parsing time {_go_quote(value)}: extra text: {_go_quote(rest)}"


_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?"
    r"(Z|([+-])([0-9]{2}):([0-9]{2}))"
)


def canonical_time(value: str, micro: bool = False) -> str:
    """An RFC3339 time as upstream writes it back (UTC; seconds, or microseconds for MicroTime).

    Raises ValueError with the message Go's time.Parse gives for a malformed value.
    """
    if (_CANONICAL_MICRO_TIME if micro else _CANONICAL_TIME).fullmatch(value):
        return value
    match = _TIME.fullmatch(value)
    if match is None:
        raise ValueError(_time_format_error(value))
    year, month, day, hour, minute, second = (int(part) for part in match.group(1, 2, 3, 4, 5, 6))
    fraction = (match.group(7) or "")[:6].ljust(6, "0")
    for name, number, low, high in (
        ("month", month, 1, 12),
        ("hour", hour, 0, 23),
        ("minute", minute, 0, 59),
        ("second", second, 0, 59),
    ):
        if not low <= number <= high:
            raise ValueError(f"parsing time {_go_quote(value)}: {name} out of range")
    try:
        parsed = datetime(year, month, day, hour, minute, second, int(fraction), tzinfo=UTC)
    except ValueError:
        raise ValueError(f"parsing time {_go_quote(value)}: day out of range") from None
    if match.group(8) != "Z":
        sign = 1 if match.group(9) == "+" else -1
        try:
            parsed -= sign * timedelta(hours=int(match.group(10)), minutes=int(match.group(11)))
        except OverflowError:  # Go writes years 0 and 10000 in UTC; Python's datetime cannot
            raise ValueError(f"parsing time {_go_quote(value)}: year out of range") from None
    return rfc3339_micro(parsed) if micro else rfc3339(parsed)


class Int32(fields.Integer):
    """A Go int32: a JSON integer (not a float, not a bool) within 32-bit range."""

    bits: ClassVar[int] = 32

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)
        self.metadata = {**self.metadata, "format": f"int{self.bits}"}

    def _validated(self, value: Any) -> int:
        number = super()._validated(value)
        limit = 1 << (self.bits - 1)
        if not -limit <= number < limit:
            raise self.make_error("invalid", input=value)
        return number


class Int64(Int32):
    """A Go int64."""

    bits: ClassVar[int] = 64


class Quantity(fields.String):
    """resource.Quantity: a string such as `500m` or `1Gi`; a JSON number is accepted and stored as text."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return number_text(value)
        if not isinstance(value, str):
            raise ValidationError(QUANTITY_FORMAT_ERROR)
        error = quantity_error(value)
        if error is not None:
            raise ValidationError(error)
        return value


class IntOrString(fields.Field[int | str]):
    """intstr.IntOrString: a port number or a port name."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metadata = {**self.metadata, "format": "int-or-string", "x-kubernetes-int-or-string": True}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int | str:
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        raise ValidationError("must be an integer or a string")


class Time(fields.String):
    """metav1.Time: RFC3339 in UTC, second precision."""

    micro: ClassVar[bool] = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metadata = {**self.metadata, "format": "date-time"}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return canonical_time(text, self.micro)
        except ValueError as error:
            raise ValidationError(str(error)) from None


class MicroTime(Time):
    """metav1.MicroTime: RFC3339 in UTC with microseconds."""

    micro: ClassVar[bool] = True


class StringMap(fields.Dict):
    """A free-form map of strings (labels, annotations, nodeSelector...): its keys are never 'unknown'."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(keys=fields.String(), values=fields.String(), **kwargs)


class Base64Bytes(fields.String):
    """A Go []byte: base64 text on the wire (standard alphabet, padded)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metadata = {**self.metadata, "format": "byte"}


class BytesMap(fields.Dict):
    """map[string][]byte (Secret data, ConfigMap binaryData): keys are free, values are base64 text."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(keys=fields.String(), values=Base64Bytes(), **kwargs)


class ResourceList(fields.Dict):
    """v1.ResourceList: resource name -> Quantity."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(keys=fields.String(), values=Quantity(), **kwargs)


class FreeForm(fields.Dict):
    """An object whose content is not described (e.g. managedFields[].fieldsV1); kept as sent."""
