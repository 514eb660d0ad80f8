"""Field selectors as upstream's `fields.ParseSelector` plus each kind's field-label conversion and fields."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.labels import go_quote
from fakeapi.machinery.types import JSON

Term = tuple[str, bool, str]
"""(field, equal?, value): `=`/`==` terms are equal, `!=` terms are not."""

_OPERATOR: Final = re.compile("!=|==|=")  # leftmost wins; at one position "!=" then "==" then "="
_SPECIAL_IN_VALUE: Final = re.compile(r"[\\,=]")
_NONE: Final[JSON] = {}


# What each kind exposes to field selectors (upstream's <kind>ToSelectableFields), read off wire objects.
# Literal dicts: these run per object on every filtered list and watch event.

def _pod_fields(pod: JSON) -> dict[str, str]:
    meta = pod.get("metadata") or _NONE
    spec = pod.get("spec") or _NONE
    status = pod.get("status") or _NONE
    # upstream reads the internal PodIPs[0], which v1 podIPs fills (or podIP when podIPs is empty)
    ips = status.get("podIPs")
    return {
        "metadata.name": meta.get("name") or "",
        "metadata.namespace": meta.get("namespace") or "",
        "spec.nodeName": spec.get("nodeName") or "",
        "spec.restartPolicy": spec.get("restartPolicy") or "",
        "spec.schedulerName": spec.get("schedulerName") or "",
        "spec.serviceAccountName": spec.get("serviceAccountName") or "",
        "spec.hostNetwork": "true" if spec.get("hostNetwork") is True else "false",
        "status.phase": status.get("phase") or "",
        "status.podIP": (ips[0].get("ip") or "") if ips else (status.get("podIP") or ""),
        "status.nominatedNodeName": status.get("nominatedNodeName") or "",
    }


def _namespace_fields(namespace: JSON) -> dict[str, str]:
    return {
        "metadata.name": (namespace.get("metadata") or _NONE).get("name") or "",
        "status.phase": (namespace.get("status") or _NONE).get("phase") or "",
    }


def _event_fields(event: JSON) -> dict[str, str]:
    meta = event.get("metadata") or _NONE
    involved = event.get("involvedObject") or _NONE
    reporting = event.get("reportingComponent") or ""
    return {
        "involvedObject.kind": involved.get("kind") or "",
        "involvedObject.namespace": involved.get("namespace") or "",
        "involvedObject.name": involved.get("name") or "",
        "involvedObject.uid": involved.get("uid") or "",
        "involvedObject.apiVersion": involved.get("apiVersion") or "",
        "involvedObject.resourceVersion": involved.get("resourceVersion") or "",
        "involvedObject.fieldPath": involved.get("fieldPath") or "",
        "reason": event.get("reason") or "",
        "reportingComponent": reporting,
        "source": (event.get("source") or _NONE).get("component") or reporting,
        "type": event.get("type") or "",
        "metadata.name": meta.get("name") or "",
        "metadata.namespace": meta.get("namespace") or "",
    }


def _meta_fields(obj: JSON) -> dict[str, str]:
    meta = obj.get("metadata") or _NONE
    return {"metadata.name": meta.get("name") or "", "metadata.namespace": meta.get("namespace") or ""}


_SELECTABLE: Final[dict[str, Callable[[JSON], dict[str, str]]]] = {
    "Pod": _pod_fields,
    "Namespace": _namespace_fields,
    "Event": _event_fields,
}

# The field labels a request may name (upstream's AddFieldLabelConversionFunc per kind) and renames.
_SUPPORTED: Final[dict[str, frozenset[str]]] = {
    # status.podIPs is accepted but never exposed, so it always reads as ""
    "Pod": frozenset(_pod_fields(_NONE)) | {"status.podIPs"},
    "Namespace": frozenset(_namespace_fields(_NONE)),
    "Event": frozenset(_event_fields(_NONE)),
}
_RENAMED: Final[dict[str, dict[str, str]]] = {"Pod": {"spec.host": "spec.nodeName"}}  # old v1 clients
_META_LABELS: Final = frozenset(_meta_fields(_NONE))


def selectable_fields(kind: str, obj: JSON) -> dict[str, str]:
    """The field set upstream matches field selectors against for this object."""
    return _SELECTABLE.get(kind, _meta_fields)(obj)


def _convert_label(kind: str, label: str) -> str:
    supported = _SUPPORTED.get(kind)
    if supported is None:  # upstream's DefaultMetaV1FieldSelectorConversion
        if label in _META_LABELS:
            return label
        raise BadRequest(f'{go_quote(label)} is not a known field selector: only "metadata.name", '
                         '"metadata.namespace"')
    if label in supported:
        return label
    renamed = _RENAMED.get(kind, {}).get(label)
    if renamed is None:
        raise BadRequest(f"field label not supported: {label}")
    return renamed


class FieldSelector:
    """A parsed, kind-checked field selector: an AND of `field=value` / `field!=value` terms. Immutable."""

    __slots__ = ("_terms", "_fields_of", "text")

    def __init__(self, terms: tuple[Term, ...], kind: str, text: str) -> None:
        self._terms = terms
        self._fields_of = _SELECTABLE.get(kind, _meta_fields)
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
        """`matches(selectable_fields(kind, obj))` for the kind this selector was parsed for."""
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


def parse_field_selector(text: str, kind: str) -> FieldSelector:
    """Parse a `fieldSelector` query value for `kind`; BadRequest carries upstream's exact message.

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
    terms = tuple((_convert_label(kind, field), equal, value) for field, equal, value in parsed)
    return FieldSelector(terms, kind, text)
