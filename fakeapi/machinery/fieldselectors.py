"""Field selectors as upstream's `fields.ParseSelector`, checked against a kind's field labels."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Final

from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.labels import go_quote
from fakeapi.machinery.types import JSON

Term = tuple[str, bool, str]
"""(field, equal?, value): `=`/`==` terms are equal, `!=` terms are not."""

_OPERATOR: Final = re.compile("!=|==|=")  # leftmost wins; at one position "!=" then "==" then "="
_SPECIAL_IN_VALUE: Final = re.compile(r"[\\,=]")
_NONE: Final[JSON] = {}


def metadata_fields(obj: JSON) -> dict[str, str]:
    """The fields every kind exposes (upstream's DefaultClusterScopedAttr / DefaultNamespaceScopedAttr)."""
    meta = obj.get("metadata") or _NONE
    return {"metadata.name": meta.get("name") or "", "metadata.namespace": meta.get("namespace") or ""}


@dataclass(frozen=True)
class FieldLabels:
    """What a kind offers field selectors: its `<kind>ToSelectableFields`, read off wire objects (they run per
    object on every filtered list and watch event), and the labels a request may name."""

    fields_of: Callable[[JSON], dict[str, str]] = metadata_fields
    # the labels upstream's field-label conversion accepts; None: DefaultMetaV1FieldSelectorConversion
    supported: frozenset[str] | None = None
    renamed: Mapping[str, str] = dataclass_field(default_factory=dict)  # old names upstream still converts

    def convert(self, label: str) -> str:
        if self.supported is None:
            if label in _META_LABELS:
                return label
            raise BadRequest(f'{go_quote(label)} is not a known field selector: only "metadata.name", '
                             '"metadata.namespace"')
        if label in self.supported:
            return label
        renamed = self.renamed.get(label)
        if renamed is None:
            raise BadRequest(f"field label not supported: {label}")
        return renamed


def exposed_labels(fields_of: Callable[[JSON], dict[str, str]]) -> frozenset[str]:
    """Every label a fields function exposes (read off an empty object)."""
    return frozenset(fields_of(_NONE))


_META_LABELS: Final = exposed_labels(metadata_fields)
METADATA_LABELS = FieldLabels()


class FieldSelector:
    """A parsed, kind-checked field selector: an AND of `field=value` / `field!=value` terms. Immutable."""

    __slots__ = ("_terms", "_fields_of", "text")

    def __init__(self, terms: tuple[Term, ...], labels: FieldLabels, text: str) -> None:
        self._terms = terms
        self._fields_of = labels.fields_of
        self.text = text

    def __repr__(self) -> str:
        return f"FieldSelector({self.text!r})"

    def empty(self) -> bool:
        return not self._terms

    def matches(self, fields: Mapping[str, str]) -> bool:
        for field, equal, value in self._terms:
            if (fields.get(field, "") == value) is not equal:
                return False
        return True

    def matches_object(self, obj: JSON) -> bool:
        """Whether the object's selectable fields match (those of the kind this selector was parsed for)."""
        return not self._terms or self.matches(self._fields_of(obj))

    def requirements(self) -> list[tuple[str, str, str]]:
        return [(field, "=" if equal else "!=", value) for field, equal, value in self._terms]

    def requires_exact_match(self, field: str) -> str | None:
        """The value an `=` term demands of `field` (upstream's RequiresExactMatch), else None."""
        for name, equal, value in self._terms:
            if equal and name == field:
                return value
        return None


def _split_terms(text: str) -> list[str]:
    """Split on commas that are not backslash-escaped; escapes stay in the terms."""
    if "\\" not in text:
        return text.split(",")
    terms, start, escaped = [], 0, False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            terms.append(text[start:index])
            start = index + 1
    terms.append(text[start:])
    return terms


def _unescape(value: str) -> str:
    if not _SPECIAL_IN_VALUE.search(value):
        return value
    out: list[str] = []
    escaped = False
    for char in value:
        if escaped:
            if char not in "\\,=":
                raise BadRequest(f"invalid field selector: invalid escape sequence: \\{char}")
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in ",=":
            # upstream prints the rune with %v: its code point as a number
            raise BadRequest(f"invalid field selector: unescaped character in value: {ord(char)}")
        else:
            out.append(char)
    if escaped:
        raise BadRequest("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def parse_field_selector(text: str, labels: FieldLabels = METADATA_LABELS) -> FieldSelector:
    """Parse a `fieldSelector` query value for a kind with these field labels; BadRequest carries upstream's
    exact message.

    As upstream, terms are sorted, then all parsed (syntax and escapes), then their labels checked.
    """
    parsed: list[Term] = []
    for part in sorted(_split_terms(text)) if text else ():
        if not part:
            continue
        operator = _OPERATOR.search(part)
        if operator is None:
            raise BadRequest(f"invalid selector: '{text}'; can't understand '{part}'")
        value = _unescape(part[operator.end():])
        parsed.append((part[:operator.start()], operator.group() != "!=", value))
    terms = tuple((labels.convert(label), equal, value) for label, equal, value in parsed)
    return FieldSelector(terms, labels, text)
