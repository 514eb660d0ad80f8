"""Label selectors as upstream's `labels.Parse`: the same lexer, grammar, error messages and matching."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.names import is_qualified_name, is_valid_label_value

# Lexer tokens (upstream's Token constants).
_EOS, _CLOSE, _COMMA, _NOT, _DOUBLE_EQ, _EQ, _GT, _IDENT, _IN, _LT, _NOT_EQ, _NOT_IN, _OPEN = range(13)
_TOKENS: Final = {
    ")": _CLOSE, ",": _COMMA, "!": _NOT, "==": _DOUBLE_EQ, "=": _EQ, ">": _GT,
    "in": _IN, "<": _LT, "!=": _NOT_EQ, "notin": _NOT_IN, "(": _OPEN,
}
_SPECIAL: Final = frozenset("=!(),><")
_WHITESPACE: Final = frozenset(" \t\r\n")
# Go's lexer reads bytes and answers 0 at the end, so a NUL in the text behaves like the end.
_NUL: Final = "\0"

# Binary operators, in upstream's order for "expected: ..." messages (selection.Operator strings).
_BINARY_OPERATORS: Final = {_IN: "in", _NOT_IN: "notin", _EQ: "=", _DOUBLE_EQ: "==", _NOT_EQ: "!=",
                            _GT: "gt", _LT: "lt"}
_EXPECTED_OPERATOR: Final = ", ".join(_BINARY_OPERATORS.values())
_EXISTS, _DOES_NOT_EXIST = "exists", "!"

# Matching codes: "=" and "==" are "in" with one value, "!=" is "notin" with one value.
_MATCH_IN, _MATCH_NOT_IN, _MATCH_EXISTS, _MATCH_NOT_EXISTS, _MATCH_GT, _MATCH_LT = range(6)
_MATCH_CODES: Final = {
    "in": _MATCH_IN, "=": _MATCH_IN, "==": _MATCH_IN, "notin": _MATCH_NOT_IN, "!=": _MATCH_NOT_IN,
    _EXISTS: _MATCH_EXISTS, _DOES_NOT_EXIST: _MATCH_NOT_EXISTS, "gt": _MATCH_GT, "lt": _MATCH_LT,
}

_INT64: Final = re.compile(r"[+-]?[0-9]+")  # strconv.ParseInt(s, 10, 64): no spaces, no underscores
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1

_GO_ESCAPES: Final = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\n": r"\n", "\r": r"\r", "\t": r"\t",
                      "\v": r"\v", "\\": "\\\\", '"': '\\"'}


def go_quote(text: str) -> str:
    """Go's `%q` of a string (strconv.Quote): how upstream prints a bad value."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    out = []
    for char in text:
        escape = _GO_ESCAPES.get(char)
        if escape is not None:
            out.append(escape)
        elif char.isprintable():  # same classes as Go's unicode.IsPrint: L, M, N, P, S and ' '
            out.append(char)
        elif (code := ord(char)) < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def _parse_int64(text: str) -> int | None:
    if not _INT64.fullmatch(text):
        return None
    number = int(text)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


Requirement = tuple[str, int, frozenset[str], int]
"""(key, matching code, values, integer bound for gt/lt): compiled once, read per object."""


class LabelSelector:
    """A parsed label selector: an AND of requirements. Immutable."""

    __slots__ = ("_requirements", "text")

    def __init__(self, requirements: tuple[Requirement, ...], text: str) -> None:
        self._requirements = requirements
        self.text = text

    def __repr__(self) -> str:
        return f"LabelSelector({self.text!r})"

    def empty(self) -> bool:
        return not self._requirements

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if labels is None:
            labels = {}
        for key, code, values, bound in self._requirements:
            value = labels.get(key)
            if code == _MATCH_IN:
                if value is None or value not in values:
                    return False
            elif code == _MATCH_NOT_IN:  # an absent key matches, as upstream
                if value is not None and value in values:
                    return False
            elif code == _MATCH_EXISTS:
                if value is None:
                    return False
            elif code == _MATCH_NOT_EXISTS:
                if value is not None:
                    return False
            else:
                number = None if value is None else _parse_int64(value)
                if number is None:
                    return False
                if number <= bound if code == _MATCH_GT else number >= bound:
                    return False
        return True


class _ParseError(Exception):
    """A requirement's error, wrapped by the top-level loop as `unable to parse requirement: ...`."""


def _scan(text: str) -> list[tuple[int, str]]:
    """Upstream's Lexer, run to the end of the string."""
    items: list[tuple[int, str]] = []
    pos, end = 0, len(text)
    while True:
        char = _NUL
        while pos < end:
            char = text[pos]
            pos += 1
            if char not in _WHITESPACE:
                break
            char = _NUL
        if char == _NUL:
            items.append((_EOS, ""))
            return items
        start = pos - 1
        if char in _SPECIAL:
            # longest run of special characters that still spells a token
            token, literal = _TOKENS[char], char
            while pos < end:
                char = text[pos]
                pos += 1
                if char == _NUL:
                    break
                candidate = _TOKENS.get(text[start:pos]) if char in _SPECIAL else None
                if candidate is None:
                    pos -= 1
                    break
                token, literal = candidate, text[start:pos]
            items.append((token, literal))
        else:
            stop = end
            while pos < end:
                char = text[pos]
                pos += 1
                if char == _NUL:
                    stop = pos - 1
                    break
                if char in _SPECIAL or char in _WHITESPACE:
                    pos -= 1
                    stop = pos
                    break
            else:
                stop = pos
            literal = text[start:stop]
            items.append((_TOKENS.get(literal, _IDENT), literal))


class _Parser:
    """Upstream's recursive-descent Parser over the scanned tokens."""

    __slots__ = ("items", "position")

    def __init__(self, text: str) -> None:
        self.items = _scan(text)
        self.position = 0

    def lookahead(self, as_value: bool = True) -> tuple[int, str]:
        token, literal = self.items[self.position]
        # in a value position `in` and `notin` are plain identifiers
        return (_IDENT, literal) if as_value and token in (_IN, _NOT_IN) else (token, literal)

    def consume(self, as_value: bool = True) -> tuple[int, str]:
        item = self.lookahead(as_value)
        self.position += 1
        return item

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            token, literal = self.lookahead()
            if token == _EOS:
                return requirements
            if token not in (_IDENT, _NOT):
                raise BadRequest(f"found '{literal}', expected: !, identifier, or 'end of string'")
            try:
                requirements.append(self.requirement())
            except _ParseError as error:
                raise BadRequest(f"unable to parse requirement: {error}") from None
            token, literal = self.consume()
            if token == _EOS:
                return requirements
            if token != _COMMA:
                raise BadRequest(f"found '{literal}', expected: ',' or 'end of string'")
            token, literal = self.lookahead()
            if token not in (_IDENT, _NOT):
                raise BadRequest(f"found '{literal}', expected: identifier after ','")

    def requirement(self) -> Requirement:
        key, operator = self.key_and_inferred_operator()
        if operator in (_EXISTS, _DOES_NOT_EXIST):
            return _new_requirement(key, operator, [])
        token, literal = self.consume(as_value=False)
        operator = _BINARY_OPERATORS.get(token, "")
        if not operator:
            raise _ParseError(f"found '{literal}', expected: {_EXPECTED_OPERATOR}")
        values = self.value_set() if operator in ("in", "notin") else self.exact_value()
        return _new_requirement(key, operator, sorted(values))

    def key_and_inferred_operator(self) -> tuple[str, str]:
        operator = ""
        token, literal = self.consume()
        if token == _NOT:
            operator = _DOES_NOT_EXIST
            token, literal = self.consume()
        if token != _IDENT:
            raise _ParseError(f"found '{literal}', expected: identifier")
        if errors := is_qualified_name(literal):
            # upstream validates with a nil field path, which prints as `<nil>`
            raise _ParseError(f"<nil>: Invalid value: {go_quote(literal)}: {'; '.join(errors)}")
        if operator != _DOES_NOT_EXIST and self.lookahead()[0] in (_EOS, _COMMA):
            operator = _EXISTS
        return literal, operator

    def value_set(self) -> set[str]:
        token, literal = self.consume()
        if token != _OPEN:
            raise _ParseError(f"found '{literal}' expected: '('")
        token, literal = self.lookahead()
        if token == _CLOSE:  # "()" is the set holding the empty string
            self.consume()
            return {""}
        if token not in (_IDENT, _COMMA):
            raise _ParseError(f"found '{literal}', expected: ',', ')' or identifier")
        values = self.identifiers()
        self.consume()  # the ")" that identifiers() stopped at
        return values

    def identifiers(self) -> set[str]:
        """A comma-separated list whose empty items are the empty string, up to (not past) ")"."""
        values: set[str] = set()
        while True:
            token, literal = self.consume()
            if token == _IDENT:
                values.add(literal)
                token, literal = self.lookahead()
                if token == _CLOSE:
                    return values
                if token != _COMMA:
                    raise _ParseError(f"found '{literal}', expected: ',' or ')'")
            elif token == _COMMA:
                if not values:
                    values.add("")
                token = self.lookahead()[0]
                if token == _CLOSE:
                    values.add("")
                    return values
                if token == _COMMA:
                    values.add("")
            else:
                raise _ParseError(f"found '{literal}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        if self.lookahead()[0] in (_EOS, _COMMA):
            return {""}
        token, literal = self.consume()
        if token != _IDENT:
            raise _ParseError(f"found '{literal}', expected: identifier")
        return {literal}


def _new_requirement(key: str, operator: str, values: list[str]) -> Requirement:
    """Upstream's NewRequirement checks for what the parser can produce; errors aggregated as upstream."""
    errors: list[str] = []
    bound = 0
    if operator in ("gt", "lt"):
        for index, value in enumerate(values):
            number = _parse_int64(value)
            if number is None:
                errors.append(f"values[{index}]: Invalid value: {go_quote(value)}: "
                              "for 'Gt', 'Lt' operators, the value must be an integer")
            else:
                bound = number
    for index, value in enumerate(values):
        if problems := is_valid_label_value(value):
            errors.append(f"values[{index}][{key}]: Invalid value: {go_quote(value)}: {'; '.join(problems)}")
    if errors:
        unique = list(dict.fromkeys(errors))
        raise _ParseError(unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]")
    return (key, _MATCH_CODES[operator], frozenset(values), bound)


def parse_label_selector(text: str) -> LabelSelector:
    """Parse a `labelSelector` query value; BadRequest carries upstream's exact message."""
    if not text:
        return LabelSelector((), text)
    return LabelSelector(tuple(_Parser(text).parse()), text)


def selector_text(selector: JSON | None) -> str:
    """A LabelSelector (matchLabels, matchExpressions) as upstream's LabelSelectorAsSelector(...).String()
    writes it: requirements sorted by key, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`."""
    if not selector:
        return ""
    requirements: list[tuple[str, str]] = [(key, f"{key}={value}")
                                           for key, value in (selector.get("matchLabels") or {}).items()]
    for expression in selector.get("matchExpressions") or ():
        key, operator = expression.get("key", ""), expression.get("operator", "")
        values = ",".join(sorted(expression.get("values") or ()))
        text = {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": key,
                "DoesNotExist": f"!{key}"}.get(operator, "")
        requirements.append((key, text))
    return ",".join(text for _key, text in sorted(requirements, key=lambda requirement: requirement[0]))
