"""The string formats upstream's CR validator checks (kube-openapi's strfmt registry), by normalised name."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Callable
from datetime import date

_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID3 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID4 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
_UUID5 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
_SIMPLE_HOSTNAME = re.compile(r"^(?=.{1,255}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                              r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
_MAC = re.compile(r"^([0-9A-Fa-f]{2}[:-]){5,19}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{4}\.){2,9}[0-9A-Fa-f]{4}$")
_HEX_COLOR = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_RGB_COLOR = re.compile(r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])"
                        r"\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$")
_SSN = re.compile(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$")
_BSON = re.compile(r"^[0-9a-fA-F]{24}$")
_ISBN10 = re.compile(r"^(?:[0-9]{9}X|[0-9]{10})$")
_ISBN13 = re.compile(r"^(?:[0-9]{13})$")
_CREDIT_CARD = re.compile(r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|"
                          r"3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$")
_DURATION = re.compile(r"^((\d+(\.\d*)?|\.\d+)\s*(ns|us|µs|ms|s|m|h|d|w)\s*)+$|"
                       r"^(\d+)\s*(ns|nano|nanos|nanosecond|nanoseconds|us|micro|micros|microsecond|microseconds|"
                       r"ms|milli|millis|millisecond|milliseconds|s|sec|secs|second|seconds|m|min|mins|minute|"
                       r"minutes|h|hr|hour|hours|d|day|days|w|wk|week|weeks)$")
_URI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _date(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


def _date_time(value: str) -> bool:
    if not _DATE_TIME.match(value):
        return False
    return _date(value[:10])


def _ipv4(value: str) -> bool:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


def _ipv6(value: str) -> bool:
    try:
        ipaddress.ip_address(value)  # Go's net.ParseIP takes both forms
    except ValueError:
        return False
    return ":" in value


def _cidr(value: str) -> bool:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return "/" in value


def _byte(value: str) -> bool:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _uri(value: str) -> bool:
    """Go's url.ParseRequestURI: an absolute URI, or an absolute path."""
    return bool(value) and (value.startswith("/") or bool(_URI_SCHEME.match(value))) and " " not in value


def _isbn(value: str) -> bool:
    digits = value.replace("-", "").replace(" ", "")
    return bool(_ISBN10.match(digits) or _ISBN13.match(digits))


def _credit_card(value: str) -> bool:
    return bool(_CREDIT_CARD.match(re.sub(r"\D", "", value)))


FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    "bsonobjectid": lambda value: bool(_BSON.match(value)),
    "uri": _uri,
    "email": lambda value: bool(_EMAIL.match(value)),
    "hostname": lambda value: bool(_SIMPLE_HOSTNAME.match(value)),
    "ipv4": _ipv4,
    "ipv6": _ipv6,
    "cidr": _cidr,
    "mac": lambda value: bool(_MAC.match(value)),
    "uuid": lambda value: bool(_UUID.match(value)),
    "uuid3": lambda value: bool(_UUID3.match(value)),
    "uuid4": lambda value: bool(_UUID4.match(value)),
    "uuid5": lambda value: bool(_UUID5.match(value)),
    "isbn": _isbn,
    "isbn10": lambda value: bool(_ISBN10.match(value.replace("-", "").replace(" ", ""))),
    "isbn13": lambda value: bool(_ISBN13.match(value.replace("-", "").replace(" ", ""))),
    "creditcard": _credit_card,
    "ssn": lambda value: bool(_SSN.match(value)),
    "hexcolor": lambda value: bool(_HEX_COLOR.match(value)),
    "rgbcolor": lambda value: bool(_RGB_COLOR.match(value)),
    "byte": _byte,
    "password": lambda value: True,
    "date": _date,
    "duration": lambda value: bool(_DURATION.match(value)),
    "datetime": _date_time,
}
