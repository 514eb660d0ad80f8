"""The Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library) x-kubernetes-validations rules use: lists,
regex, URLs, quantities, IP and CIDR, format, and the sets extension. Errors are upstream's texts.

Two things the runtime cannot declare as upstream does are declared under other names, which compilation
substitutes (fakeapi.machinery.cel.rewrite): `indexOf`/`lastIndexOf`, whose string overloads belong to the
strings extension (one function may not be declared twice), are `_idxOf_`/`_lastIdxOf_` with the string and
the list overloads; and the format library's functions that return optionals (a value the runtime does not
take from Python) return a zero value for "none", wrapped in `optional.ofNonZeroValue`."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from cel_expr_python import cel

from fakeapi.machinery.cel.types import PACKAGE, make
from fakeapi.machinery.jsonschema.formats import FORMAT_CHECKS
from fakeapi.machinery.quantity import Quantity, add_quantities, format_quantity, parse, quantity_error
from fakeapi.machinery.validation import names

T = cel.Type
QUANTITY = T(f"{PACKAGE}.Quantity")
URL = T(f"{PACKAGE}.URL")
IP = T(f"{PACKAGE}.IP")
CIDR = T(f"{PACKAGE}.CIDR")
FORMAT = T(f"{PACKAGE}.Format")
DYN_LIST = T.List(T.DYN)
STRING_LIST = T.List(T.STRING)


class CelError(Exception):
    """An evaluation error with upstream's text."""


def _overload(name: str, result: Any, params: list[Any], member: bool, impl: Callable[..., Any]) -> Any:
    return cel.Overload(name, result, params, member, impl=impl)


def _fn(name: str, *overloads: Any) -> Any:
    return cel.FunctionDecl(name, list(overloads))


# ---- lists


def _comparable(items: list[Any]) -> list[Any]:
    return list(items)


def _is_sorted(items: list[Any]) -> bool:
    values = _comparable(items)
    return all(values[index] <= values[index + 1] for index in range(len(values) - 1))


def _sum(items: list[Any]) -> Any:
    total: Any = 0
    for item in items:
        total = total + item
    return total


def _min(items: list[Any]) -> Any:
    if not items:
        raise CelError("min called on empty list")
    return min(items)


def _max(items: list[Any]) -> Any:
    if not items:
        raise CelError("max called on empty list")
    return max(items)


def _index_of(items: Any, wanted: Any, offset: int | None = None) -> int:
    if isinstance(items, str):
        return _string_index_of(items, wanted, 0 if offset is None else offset)
    return next((index for index, item in enumerate(items) if _equal(item, wanted)), -1)


def _last_index_of(items: Any, wanted: Any, offset: int | None = None) -> int:
    if isinstance(items, str):
        return _string_last_index_of(items, wanted, offset)
    return next((index for index in range(len(items) - 1, -1, -1) if _equal(items[index], wanted)), -1)


def _equal(a: Any, b: Any) -> bool:
    return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)


def _string_index_of(text: str, sub: str, offset: int) -> int:
    """The strings extension's indexOf, in code points."""
    if not sub:
        return offset
    if offset < 0:
        raise CelError(f"index out of range: {offset}")
    if offset >= len(text):
        return -1
    return text.find(sub, offset)


def _string_last_index_of(text: str, sub: str, offset: int | None) -> int:
    if offset is None:
        if not sub:
            return len(text)
        offset = len(text) - 1
    if not sub:
        return offset
    if offset < 0:
        raise CelError(f"index out of range: {offset}")
    if offset >= len(text):
        return -1
    return text.rfind(sub, 0, offset + len(sub))


# one overload per item type: the runtime matches no `dyn` argument of a function of Python's
_ITEM_TYPES = (("string", T.STRING), ("int", T.INT), ("uint", T.UINT), ("double", T.DOUBLE), ("bool", T.BOOL),
               ("bytes", T.BYTES), ("list", DYN_LIST), ("map", T.Map(T.DYN, T.DYN)))

LISTS = [
    _fn("isSorted", _overload("list_is_sorted", T.BOOL, [DYN_LIST], True, _is_sorted)),
    _fn("sum", _overload("list_sum", T.DYN, [DYN_LIST], True, _sum)),
    _fn("min", _overload("list_min", T.DYN, [DYN_LIST], True, _min)),
    _fn("max", _overload("list_max", T.DYN, [DYN_LIST], True, _max)),
    _fn("_idxOf_", _overload("string_index_of_string", T.INT, [T.STRING, T.STRING], True, _index_of),
        _overload("string_index_of_string_int", T.INT, [T.STRING, T.STRING, T.INT], True, _index_of),
        *(_overload(f"list_a_index_of_int_{name}", T.INT, [DYN_LIST, item], True, _index_of)
          for name, item in _ITEM_TYPES)),
    _fn("_lastIdxOf_", _overload("string_last_index_of_string", T.INT, [T.STRING, T.STRING], True, _last_index_of),
        _overload("string_last_index_of_string_int", T.INT, [T.STRING, T.STRING, T.INT], True, _last_index_of),
        *(_overload(f"list_a_last_index_of_int_{name}", T.INT, [DYN_LIST, item], True, _last_index_of)
          for name, item in _ITEM_TYPES)),
]

# ---- regex


def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as error:
        raise CelError(f"error parsing regexp: {error.msg}") from None


def _find(text: str, pattern: str) -> str:
    found = _compile(pattern).search(text)
    return found.group(0) if found else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    found = [match.group(0) for match in _compile(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


REGEX = [
    _fn("find", _overload("string_find_string", T.STRING, [T.STRING, T.STRING], True, _find)),
    _fn("findAll", _overload("string_find_all_string", STRING_LIST, [T.STRING, T.STRING], True, _find_all),
        _overload("string_find_all_string_int", STRING_LIST, [T.STRING, T.STRING, T.INT], True, _find_all)),
]

# ---- quantities


def _quantity(text: str) -> Any:
    error = quantity_error(text)
    if error is not None:
        raise CelError(error)
    try:
        return make("Quantity", format_quantity(parse(text)))
    except ValueError as failure:
        raise CelError(str(failure)) from None


def _is_quantity(text: str) -> bool:
    try:
        _quantity(text)
    except CelError:
        return False
    return True


def _q(value: Any) -> Quantity:
    return parse(value.text)


def _value(value: Any) -> Fraction:
    return _q(value).value


def _as_integer(value: Any) -> int:
    amount = _value(value)
    if amount.denominator != 1 or not -(2**63) <= amount < 2**63:
        raise CelError("cannot convert value to integer")
    return int(amount)


def _add(a: Any, b: Any) -> Any:
    other = parse(str(b)) if isinstance(b, int) else _q(b)
    return make("Quantity", format_quantity(add_quantities(_q(a), other)))


def _sub(a: Any, b: Any) -> Any:
    other = parse(str(b)) if isinstance(b, int) else _q(b)
    negative = parse(str(-other.value)) if other.value.denominator == 1 else parse(f"{float(-other.value)}")
    return make("Quantity", format_quantity(add_quantities(_q(a), negative)))


def _compare(a: Any, b: Any) -> int:
    left, right = _value(a), _value(b)
    return (left > right) - (left < right)


QUANTITIES = [
    _fn("quantity", _overload("string_to_quantity", QUANTITY, [T.STRING], False, _quantity)),
    _fn("isQuantity", _overload("is_quantity_string", T.BOOL, [T.STRING], False, _is_quantity)),
    _fn("isInteger", _overload("quantity_is_integer", T.BOOL, [QUANTITY], True,
                               lambda q: _value(q).denominator == 1 and -(2**63) <= _value(q) < 2**63)),
    _fn("asInteger", _overload("quantity_as_integer", T.INT, [QUANTITY], True, _as_integer)),
    _fn("asApproximateFloat", _overload("quantity_as_float", T.DOUBLE, [QUANTITY], True,
                                        lambda q: float(_value(q)))),
    _fn("sign", _overload("quantity_sign", T.INT, [QUANTITY], True, lambda q: (_value(q) > 0) - (_value(q) < 0))),
    _fn("add", _overload("quantity_add", QUANTITY, [QUANTITY, QUANTITY], True, _add),
        _overload("quantity_add_int", QUANTITY, [QUANTITY, T.INT], True, _add)),
    _fn("sub", _overload("quantity_sub", QUANTITY, [QUANTITY, QUANTITY], True, _sub),
        _overload("quantity_sub_int", QUANTITY, [QUANTITY, T.INT], True, _sub)),
    _fn("isLessThan", _overload("quantity_less", T.BOOL, [QUANTITY, QUANTITY], True, lambda a, b: _compare(a, b) < 0)),
    _fn("isGreaterThan", _overload("quantity_greater", T.BOOL, [QUANTITY, QUANTITY], True,
                                   lambda a, b: _compare(a, b) > 0)),
    _fn("compareTo", _overload("quantity_compare_to", T.INT, [QUANTITY, QUANTITY], True, _compare)),
]

# ---- URLs


def _url(text: str) -> Any:
    parts = urlsplit(text)
    if not (text.startswith("/") or (parts.scheme and (parts.netloc or parts.path))) or " " in text:
        raise CelError(f'URL parse error during conversion from string: parse "{text}": invalid URI for request')
    return make("URL", text)


def _is_url(text: str) -> bool:
    try:
        _url(text)
    except CelError:
        return False
    return True


def _port(value: Any) -> str:
    netloc: str = urlsplit(value.text).netloc.rsplit("@", 1)[-1]
    if netloc.startswith("["):
        rest = netloc.split("]", 1)[1]
        return rest[1:] if rest.startswith(":") else ""
    return netloc.rsplit(":", 1)[1] if ":" in netloc else ""


def _hostname(value: Any) -> str:
    netloc: str = urlsplit(value.text).netloc.rsplit("@", 1)[-1]
    if netloc.startswith("["):
        return netloc[1:].split("]", 1)[0]
    return netloc.rsplit(":", 1)[0] if ":" in netloc else netloc


URLS = [
    _fn("url", _overload("string_to_url", URL, [T.STRING], False, _url)),
    _fn("isURL", _overload("is_url_string", T.BOOL, [T.STRING], False, _is_url)),
    _fn("getScheme", _overload("url_get_scheme", T.STRING, [URL], True, lambda u: urlsplit(u.text).scheme)),
    _fn("getHost", _overload("url_get_host", T.STRING, [URL], True,
                             lambda u: urlsplit(u.text).netloc.rsplit("@", 1)[-1])),
    _fn("getHostname", _overload("url_get_hostname", T.STRING, [URL], True, _hostname)),
    _fn("getPort", _overload("url_get_port", T.STRING, [URL], True, _port)),
    _fn("getEscapedPath", _overload("url_get_escaped_path", T.STRING, [URL], True,
                                    lambda u: quote(urlsplit(u.text).path, safe="/:@!$&'()*+,;=-._~"))),
    _fn("getQuery", _overload("url_get_query", T.Map(T.STRING, STRING_LIST), [URL], True,
                              lambda u: parse_qs(urlsplit(u.text).query, keep_blank_values=True))),
]

# ---- IP and CIDR


def _parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    if "%" in text:
        raise CelError(f"IP address with zone value is not allowed: {text}")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise CelError(f'IP Address "{text}" parse error during conversion from string: ParseAddr("{text}"): '
                       "unable to parse IP") from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise CelError(f"IPv4-mapped IPv6 address is not allowed: {text}")
    return address


def _ip(text: str) -> Any:
    return make("IP", str(_parse_ip(text)))


def _is_ip(text: str) -> bool:
    try:
        _parse_ip(text)
    except CelError:
        return False
    return True


def _is_canonical(text: str) -> bool:
    return str(_parse_ip(text)) == text


def _address(value: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(value.text)


def _parse_cidr(text: str) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    try:
        interface = ipaddress.ip_interface(text)
    except ValueError:
        raise CelError(f'network address parse error during conversion from string: netip.ParsePrefix("{text}"): '
                       "bad prefix") from None
    if "/" not in text:
        raise CelError(f'network address parse error during conversion from string: netip.ParsePrefix("{text}"): '
                       "no '/'")
    return interface


def _cidr(text: str) -> Any:
    return make("CIDR", str(_parse_cidr(text)))


def _is_cidr(text: str) -> bool:
    try:
        _parse_cidr(text)
    except CelError:
        return False
    return True


def _network(value: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_interface(value.text).network


def _contains_ip(cidr: Any, address: Any) -> bool:
    found = _parse_ip(address) if isinstance(address, str) else _address(address)
    return found.version == _network(cidr).version and found in _network(cidr)


def _contains_cidr(cidr: Any, other: Any) -> bool:
    inner = _parse_cidr(other).network if isinstance(other, str) else _network(other)
    outer = _network(cidr)
    return inner.version == outer.version and inner.subnet_of(outer)  # type: ignore[arg-type]


def _global_unicast(value: Any) -> bool:
    """Go's IsGlobalUnicast: not unspecified, loopback, multicast, link-local, nor the IPv4 broadcast address."""
    address = _address(value)
    if address.is_unspecified or address.is_loopback or address.is_multicast or address.is_link_local:
        return False
    return str(address) != "255.255.255.255"


IPS = [
    _fn("ip", _overload("string_to_ip", IP, [T.STRING], False, _ip),
        _overload("cidr_ip", IP, [CIDR], True, lambda c: make("IP", str(ipaddress.ip_interface(c.text).ip)))),
    _fn("isIP", _overload("is_ip", T.BOOL, [T.STRING], False, _is_ip)),
    _fn("ip.isCanonical", _overload("ip_is_canonical", T.BOOL, [T.STRING], False, _is_canonical)),
    _fn("family", _overload("ip_family", T.INT, [IP], True, lambda a: _address(a).version)),
    _fn("isUnspecified", _overload("ip_is_unspecified", T.BOOL, [IP], True, lambda a: _address(a).is_unspecified)),
    _fn("isLoopback", _overload("ip_is_loopback", T.BOOL, [IP], True, lambda a: _address(a).is_loopback)),
    _fn("isLinkLocalMulticast", _overload("ip_is_link_local_multicast", T.BOOL, [IP], True,
                                          lambda a: _address(a).is_multicast and _address(a).is_link_local)),
    _fn("isLinkLocalUnicast", _overload("ip_is_link_local_unicast", T.BOOL, [IP], True,
                                        lambda a: _address(a).is_link_local and not _address(a).is_multicast)),
    _fn("isGlobalUnicast", _overload("ip_is_global_unicast", T.BOOL, [IP], True, _global_unicast)),
    _fn("cidr", _overload("string_to_cidr", CIDR, [T.STRING], False, _cidr)),
    _fn("isCIDR", _overload("is_cidr", T.BOOL, [T.STRING], False, _is_cidr)),
    _fn("containsIP", _overload("cidr_contains_ip_string", T.BOOL, [CIDR, T.STRING], True, _contains_ip),
        _overload("cidr_contains_ip_ip", T.BOOL, [CIDR, IP], True, _contains_ip)),
    _fn("containsCIDR", _overload("cidr_contains_cidr_string", T.BOOL, [CIDR, T.STRING], True, _contains_cidr),
        _overload("cidr_contains_cidr", T.BOOL, [CIDR, CIDR], True, _contains_cidr)),
    _fn("masked", _overload("cidr_masked", CIDR, [CIDR], True, lambda c: make("CIDR", str(_network(c))))),
    _fn("prefixLength", _overload("cidr_prefix_length", T.INT, [CIDR], True, lambda c: _network(c).prefixlen)),
]


# ---- the sets extension


SETS = [
    _fn("sets.contains", _overload("list_sets_contains_list", T.BOOL, [DYN_LIST, DYN_LIST], False,
                                   lambda a, b: all(item in a for item in b))),
    _fn("sets.equivalent", _overload("list_sets_equivalent_list", T.BOOL, [DYN_LIST, DYN_LIST], False,
                                     lambda a, b: all(item in b for item in a) and all(item in a for item in b))),
    _fn("sets.intersects", _overload("list_sets_intersects_list", T.BOOL, [DYN_LIST, DYN_LIST], False,
                                     lambda a, b: any(item in b for item in a))),
]

# ---- format


def _dns_label(prefix: bool) -> Callable[[str], list[str]]:
    return lambda text: names.name_is_dns_label(text, prefix)


def _dns_subdomain(prefix: bool) -> Callable[[str], list[str]]:
    return lambda text: names.name_is_dns_subdomain(text, prefix)


def _dns1035_label(prefix: bool) -> Callable[[str], list[str]]:
    def check(text: str) -> list[str]:
        if prefix:
            text = text[:-1] + "a" if text.endswith("-") else text
        return names.is_dns1035_label(text)
    return check


def _uri(text: str) -> list[str]:
    parts = urlsplit(text)
    if not text or (not parts.scheme and not text.startswith("/")) or " " in text:
        return [f'parse "{text}": invalid URI for request']
    return []


def _strfmt(fmt: str, detail: str) -> Callable[[str], list[str]]:
    check = FORMAT_CHECKS[fmt]
    return lambda text: [] if check(text) else [detail]


FORMATS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": _dns_label(False), "dns1123Subdomain": _dns_subdomain(False),
    "dns1035Label": _dns1035_label(False), "qualifiedName": names.is_qualified_name,
    "dns1123LabelPrefix": _dns_label(True), "dns1123SubdomainPrefix": _dns_subdomain(True),
    "dns1035LabelPrefix": _dns1035_label(True), "labelValue": names.is_valid_label_value, "uri": _uri,
    "uuid": _strfmt("uuid", "does not match the UUID format"), "byte": _strfmt("byte", "invalid base64"),
    "date": _strfmt("date", "invalid date"), "datetime": _strfmt("datetime", "invalid datetime"),
}


def _format_validate(fmt: Any, text: str) -> list[str]:
    """The errors of `text` in a format (none: the optional's none)."""
    return FORMATS[fmt.text](text)


def _format_named(name: str) -> Any:
    """The named format, or the zero Format (the optional's none)."""
    return make("Format", name if name in FORMATS else "")


FORMAT_LIBRARY = [
    _fn("_fmtval_", _overload("format-validate", STRING_LIST, [FORMAT, T.STRING], True, _format_validate)),
    _fn("format._nmd_", _overload("format-named", FORMAT, [T.STRING], False, _format_named)),
    *(_fn(f"format.{name}", _overload(f"format.{name}", FORMAT, [], False, lambda name=name: make("Format", name)))
      for name in FORMATS),
]

KUBERNETES_LIBRARIES = [*LISTS, *REGEX, *QUANTITIES, *URLS, *IPS, *SETS, *FORMAT_LIBRARY]
