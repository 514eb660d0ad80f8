"""The protobuf wire format, read: a message's fields as (number, wire type, value), and their values.

A varint's value is its number; every other wire type's value is its bytes (a view into the message).
Groups (wire types 3 and 4) are not used by Kubernetes types and are malformed here, as is a field
number 0, a varint longer than 10 bytes, or a length past the end of the message.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5

Value = int | memoryview


class Malformed(Exception):
    """Bytes that are not the message they should be."""


def fields(buf: memoryview) -> Iterator[tuple[int, int, Value]]:
    """(field number, wire type, value) for each field of the message, in the order sent."""
    pos, end = 0, len(buf)
    while pos < end:
        key = buf[pos]  # keys, lengths and most numbers fit in one byte: read those inline
        if key < 0x80:
            pos += 1
        else:
            key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise Malformed
        if wire == VARINT or wire == BYTES:
            if pos < end and buf[pos] < 0x80:
                size = buf[pos]
                pos += 1
            else:
                size, pos = varint(buf, pos)
            if wire == VARINT:
                yield number, wire, size
                continue
        elif wire == FIXED64:
            size = 8
        elif wire == FIXED32:
            size = 4
        else:
            raise Malformed
        if pos + size > end:
            raise Malformed
        yield number, wire, buf[pos:pos + size]
        pos += size


def varint(buf: memoryview, pos: int) -> tuple[int, int]:
    """The varint at `pos`, and the position after it."""
    result = shift = 0
    for index in range(pos, min(pos + 10, len(buf))):
        byte = buf[index]
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, index + 1
        shift += 7
    raise Malformed


def packed_varints(buf: memoryview) -> Iterator[int]:
    """The numbers of a packed repeated field."""
    pos, end = 0, len(buf)
    while pos < end:
        number, pos = varint(buf, pos)
        yield number


def as_number(wire: int, value: Value) -> int:
    """A varint field's number (a bool, an enum or an integer of any size)."""
    if wire != VARINT or not isinstance(value, int):
        raise Malformed
    return value


def as_signed(wire: int, value: Value, bits: int) -> int:
    """A varint read as Go reads it into an intN: its low `bits` bits, two's complement."""
    number = as_number(wire, value) & ((1 << bits) - 1)
    return number - (1 << bits) if number >> (bits - 1) else number


def as_bytes(wire: int, value: Value) -> memoryview:
    """A length-delimited field's bytes (a string, bytes, a message, a map entry or a packed field)."""
    if wire != BYTES or isinstance(value, int):
        raise Malformed
    return value


def as_text(wire: int, value: Value) -> str:
    if wire != BYTES or isinstance(value, int):
        raise Malformed
    try:
        return str(value, "utf-8")
    except UnicodeDecodeError:
        raise Malformed from None


def as_double(wire: int, value: Value) -> float:
    if wire != FIXED64 or isinstance(value, int):
        raise Malformed
    number: float = struct.unpack("<d", value)[0]
    return number
