"""Why Go's `json.Unmarshal(data, &map[string]interface{}{})` refuses `data`, in Go's words.

Docker config secrets must hold a JSON object, and upstream's validation quotes the decoder's error, so the
check walks the bytes as Go's JSON scanner does: the first byte that cannot continue a value is named with
its context (`invalid character 'x' looking for beginning of value`), input that stops early is `unexpected
end of JSON input`, and a well-formed value that is not an object cannot be unmarshalled into a map.
"""

from __future__ import annotations

import unicodedata

_SPACE = b" \t\n\r"
_DIGITS = b"0123456789"
_HEX = b"0123456789abcdefABCDEF"
_ESCAPES = b'"\\/bfnrtu'
_GO_TYPE = "map[string]interface {}"
_KIND_OF_START = {ord("["): "array", ord('"'): "string", ord("t"): "bool", ord("f"): "bool"}


class _SyntaxError(Exception):
    pass


def object_error(data: bytes) -> str | None:
    """None if Go unmarshals `data` into a map (an object, or null), else Go's error message."""
    scanner = _Scanner(data)
    try:
        start = scanner.top_level()
    except _SyntaxError as error:
        return str(error)
    first = data[start]
    if first in (ord("{"), ord("n")):
        return None
    kind = _KIND_OF_START.get(first, "number")
    return f"json: cannot unmarshal {kind} into Go value of type {_GO_TYPE}"


def quote_char(byte: int) -> str:
    """Go's quoteChar: how the scanner names an offending byte."""
    if byte == ord("'"):
        return "'\\''"
    if byte == ord('"'):
        return "'\"'"
    char = chr(byte)  # Go converts the byte to the rune of the same number
    special = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               "\\": "\\\\"}
    if char in special:
        return f"'{special[char]}'"
    if byte < 0x20 or byte == 0x7F:
        return f"'\\x{byte:02x}'"
    if byte >= 0x80 and unicodedata.category(char)[0] not in "LMNPS":
        return f"'\\u{byte:04x}'"
    return f"'{char}'"


class _Scanner:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.position = 0

    def top_level(self) -> int:
        """Check the whole input holds one value; where that value starts."""
        self._skip_space()
        start = self.position
        self._value()
        self._skip_space()
        if self.position < len(self.data):
            self._fail("after top-level value")
        return start

    def _peek(self) -> int:
        if self.position >= len(self.data):
            raise _SyntaxError("unexpected end of JSON input")
        return self.data[self.position]

    def _fail(self, context: str) -> None:
        raise _SyntaxError(f"invalid character {quote_char(self.data[self.position])} {context}")

    def _skip_space(self) -> None:
        while self.position < len(self.data) and self.data[self.position] in _SPACE:
            self.position += 1

    def _value(self) -> None:
        byte = self._peek()
        if byte == ord("{"):
            self._object()
        elif byte == ord("["):
            self._array()
        elif byte == ord('"'):
            self._string()
        elif byte == ord("-") or byte in _DIGITS:
            self._number()
        elif byte in b"tfn":
            self._literal({ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}[byte])
        else:
            self._fail("looking for beginning of value")

    def _object(self) -> None:
        self.position += 1
        self._skip_space()
        if self._peek() == ord("}"):
            self.position += 1
            return
        while True:
            if self._peek() != ord('"'):
                self._fail("looking for beginning of object key string")
            self._string()
            self._skip_space()
            if self._peek() != ord(":"):
                self._fail("after object key")
            self.position += 1
            self._skip_space()
            self._value()
            self._skip_space()
            byte = self._peek()
            if byte == ord("}"):
                self.position += 1
                return
            if byte != ord(","):
                self._fail("after object key:value pair")
            self.position += 1
            self._skip_space()

    def _array(self) -> None:
        self.position += 1
        self._skip_space()
        if self._peek() == ord("]"):
            self.position += 1
            return
        while True:
            self._value()
            self._skip_space()
            byte = self._peek()
            if byte == ord("]"):
                self.position += 1
                return
            if byte != ord(","):
                self._fail("after array element")
            self.position += 1
            self._skip_space()

    def _string(self) -> None:
        self.position += 1
        while True:
            byte = self._peek()
            if byte == ord('"'):
                self.position += 1
                return
            if byte < 0x20:
                self._fail("in string literal")
            self.position += 1
            if byte == ord("\\"):
                escape = self._peek()
                if escape not in _ESCAPES:
                    self._fail("in string escape code")
                self.position += 1
                if escape == ord("u"):
                    for _ in range(4):
                        if self._peek() not in _HEX:
                            self._fail("in \\u hexadecimal character escape")
                        self.position += 1

    def _number(self) -> None:
        if self._peek() == ord("-"):
            self.position += 1
            if self._peek() not in _DIGITS:
                self._fail("in numeric literal")
        if self._peek() == ord("0"):
            self.position += 1
        else:
            self._digits()
        if self._more() == ord("."):
            self.position += 1
            if self._peek() not in _DIGITS:
                self._fail("after decimal point in numeric literal")
            self._digits()
        if self._more() in (ord("e"), ord("E")):
            self.position += 1
            if self._peek() in (ord("+"), ord("-")):
                self.position += 1
            if self._peek() not in _DIGITS:
                self._fail("in exponent of numeric literal")
            self._digits()

    def _more(self) -> int:
        """The next byte, or 0 at the end (a number may end the input; 0 continues no number)."""
        return self.data[self.position] if self.position < len(self.data) else 0

    def _digits(self) -> None:
        while self._more() in _DIGITS:
            self.position += 1

    def _literal(self, word: bytes) -> None:
        self.position += 1
        for expected in word[1:]:
            if self._peek() != expected:
                self._fail(f"in literal {word.decode()} (expecting {quote_char(expected)})")
            self.position += 1
