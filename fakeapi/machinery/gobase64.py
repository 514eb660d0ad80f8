"""Base64 of `[]byte` fields as Go's encoding/json reads and writes them (standard alphabet, padded).

Python's decoder accepts and rejects other inputs than Go's, and its errors say nothing a client of
kube-apiserver would recognise, so decoding walks the input as Go's `base64.StdEncoding.Decode` does:
newlines are skipped, padding must be complete, and the error names the offending byte as Go's
`CorruptInputError` does (`illegal base64 data at input byte 4`). Writing re-encodes the decoded bytes,
so what a server returns is always canonical (`YWJj` for `YW\\nJj`).
"""

from __future__ import annotations

import base64

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_VALUE = {byte: index for index, byte in enumerate(_ALPHABET)}
_PAD = ord("=")
_NEWLINES = (ord("\n"), ord("\r"))


class CorruptInput(ValueError):
    """Go's base64.CorruptInputError: the offset of the first byte that cannot be decoded."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"illegal base64 data at input byte {offset}")
        self.offset = offset


def decode(text: str) -> bytes:
    """The bytes `text` encodes, or CorruptInput where Go's standard decoder would stop."""
    src = text.encode()
    out = bytearray()
    position = 0
    while position < len(src):
        position = _quantum(src, position, out)
    return bytes(out)


def encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def canonical(text: str) -> str:
    """`text` as Go writes back what it decoded from it."""
    return encode(decode(text))


def decoded_length(text: str) -> int:
    """How many bytes a canonical (stored) base64 text stands for."""
    return len(text) // 4 * 3 - text[-2:].count("=")


def _quantum(src: bytes, position: int, out: bytearray) -> int:
    """Decode one group of up to four symbols (newlines skipped) into `out`; the position after it."""
    values: list[int] = []
    while len(values) < 4:
        if position == len(src):
            if not values:
                return position
            raise CorruptInput(position - len(values))  # a short final group: padding is required
        byte = src[position]
        position += 1
        value = _VALUE.get(byte)
        if value is not None:
            values.append(value)
            continue
        if byte in _NEWLINES:
            continue
        if byte != _PAD or len(values) < 2:
            raise CorruptInput(position - 1)
        if len(values) == 2:  # "==" ends a group of two symbols: the second "=" must follow
            position = _skip_newlines(src, position)
            if position == len(src):
                raise CorruptInput(len(src))
            if src[position] != _PAD:
                raise CorruptInput(position - 1)
            position += 1
        position = _skip_newlines(src, position)
        if position < len(src):
            _emit(values, out)
            raise CorruptInput(position)  # something after the padding
        break
    _emit(values, out)
    return position


def _skip_newlines(src: bytes, position: int) -> int:
    while position < len(src) and src[position] in _NEWLINES:
        position += 1
    return position


def _emit(values: list[int], out: bytearray) -> None:
    """Append the bytes of 2, 3 or 4 symbols (trailing bits of a short group are ignored, as Go does)."""
    bits = 0
    for value in values + [0] * (4 - len(values)):
        bits = bits << 6 | value
    out.extend(bits.to_bytes(3, "big")[: len(values) - 1])
