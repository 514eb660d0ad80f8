"""String-format checks (apimachinery `util/validation`): each returns upstream's list of messages."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

NameValidator = Callable[[str, bool], list[str]]
"""Upstream's ValidateNameFunc: (name, is_prefix) -> messages."""

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
LABEL_VALUE_MAX = 63
QUALIFIED_NAME_MAX = 63
MAX_INT32 = 2147483647

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QNAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
_LABEL_VALUE_FMT = "(" + _QNAME_FMT + ")?"
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_MSG = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_'"
)
_CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+"
_CONFIG_MAP_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
_HTTP_HEADER_FMT = "[-A-Za-z0-9]+"
_HTTP_HEADER_MSG = "a valid HTTP header must consist of alphanumeric characters or '-'"
_ENV_VAR_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*"
_ENV_VAR_MSG = (
    "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', "
    "or '.', and must not start with a digit"
)
_RELAXED_ENV_VAR_MSG = (
    "a valid environment variable name must consist only of printable ASCII characters other than '='"
)

_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)
_QNAME_RE = re.compile(_QNAME_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_C_IDENTIFIER_RE = re.compile(_C_IDENTIFIER_FMT)
_CONFIG_MAP_KEY_RE = re.compile(_CONFIG_MAP_KEY_FMT)
_HTTP_HEADER_RE = re.compile(_HTTP_HEADER_FMT)
_ENV_VAR_RE = re.compile(_ENV_VAR_FMT)
_PORT_NAME_CHARSET_RE = re.compile("[-a-z0-9]+")
_PORT_NAME_LETTER_RE = re.compile("[a-z]")
_SLOPPY_IPV4_RE = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")
_DIGITS_RE = re.compile(r"[0-9]+")
# Go's regexp has no \Z quirks, but Python's `$` matches before a trailing newline: use fullmatch.


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def empty_error() -> str:
    return "must be non-empty"


def inclusive_range_error(lo: int, hi: int) -> str:
    return f"must be between {lo} and {hi}, inclusive"


def is_dns1123_label(value: str) -> list[str]:
    errs: list[str] = []
    if len(value) > DNS1123_LABEL_MAX:
        errs.append(max_len_error(DNS1123_LABEL_MAX))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")  # a valid subdomain (its length checked above): dots it is
        else:
            errs.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
_DNS1035_LABEL_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                      "alphabetic character, and end with an alphanumeric character")


def is_dns1035_label(value: str) -> list[str]:
    errs: list[str] = []
    if len(value) > DNS1123_LABEL_MAX:
        errs.append(max_len_error(DNS1123_LABEL_MAX))
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errs.append(regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    errs: list[str] = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """A "qualified name" (label key): optional DNS-subdomain prefix, '/', and a name of <= 63 chars."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + empty_error())
        else:
            errs.extend("prefix part " + msg for msg in is_dns1123_subdomain(prefix))
    else:
        return [
            "a qualified name "
            + regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part " + empty_error())
    elif len(name) > QUALIFIED_NAME_MAX:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX))
    if not _QNAME_RE.fullmatch(name):
        errs.append("name part " + regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_valid_label_value(value: str) -> list[str]:
    errs: list[str] = []
    if len(value) > LABEL_VALUE_MAX:
        errs.append(max_len_error(LABEL_VALUE_MAX))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def is_c_identifier(value: str) -> list[str]:
    if _C_IDENTIFIER_RE.fullmatch(value):
        return []
    return [regex_error(_C_IDENTIFIER_MSG, _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")]


def is_valid_port_num(port: int) -> list[str]:
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


def is_valid_port_name(port: str) -> list[str]:
    """IANA_SVC_NAME: <= 15 chars of [-a-z0-9], at least one letter, no '--', no leading/trailing '-'."""
    errs: list[str] = []
    if len(port) > 15:
        errs.append(max_len_error(15))
    if not _PORT_NAME_CHARSET_RE.fullmatch(port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER_RE.search(port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def is_valid_user_id(uid: int) -> list[str]:
    return [] if 0 <= uid <= MAX_INT32 else [inclusive_range_error(0, MAX_INT32)]


def is_valid_group_id(gid: int) -> list[str]:
    return [] if 0 <= gid <= MAX_INT32 else [inclusive_range_error(0, MAX_INT32)]


def _chdir_prefix(value: str) -> list[str]:
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


def is_env_var_name(value: str) -> list[str]:
    errs: list[str] = []
    if not _ENV_VAR_RE.fullmatch(value):
        errs.append(regex_error(_ENV_VAR_MSG, _ENV_VAR_FMT, "my.env-name", "MY_ENV.NAME", "MyEnvName1"))
    return errs + _chdir_prefix(value)


def is_relaxed_env_var_name(value: str) -> list[str]:
    errs: list[str] = []
    if not value:
        errs.append("environment variable name " + empty_error())
    if any(not (" " <= ch <= "~") or ch == "=" for ch in value):
        errs.append(_RELAXED_ENV_VAR_MSG)
    return errs


def is_config_map_key(value: str) -> list[str]:
    errs: list[str] = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX))
    if not _CONFIG_MAP_KEY_RE.fullmatch(value):
        errs.append(regex_error(_CONFIG_MAP_KEY_MSG, _CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    return errs + _chdir_prefix(value)


def is_http_header_name(value: str) -> list[str]:
    if _HTTP_HEADER_RE.fullmatch(value):
        return []
    return [regex_error(_HTTP_HEADER_MSG, _HTTP_HEADER_FMT, "X-Header-Name")]


def parse_ip_sloppy(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """Like Go's netutils.ParseIPSloppy: IPv4 octets may carry leading zeros; no IPv6 zones."""
    if "%" in value:
        return None
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        pass
    if _SLOPPY_IPV4_RE.fullmatch(value):
        octets = [int(part) for part in value.split(".")]
        if all(octet <= 255 for octet in octets):
            return ipaddress.IPv4Address(".".join(map(str, octets)))
    return None


def is_ipv6(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Go's `ip.To4() == nil`: IPv4-mapped IPv6 addresses count as IPv4."""
    return isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None


def is_valid_ip(value: str) -> list[str]:
    if parse_ip_sloppy(value) is None:
        return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
    return []


def parse_cidr_sloppy(value: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """Like Go's netutils.ParseCIDRSloppy: a sloppy IP, `/`, then a decimal prefix length (leading zeros
    allowed) within the address's bits; host bits may be set. The network, or None."""
    address, slash, prefix = value.partition("/")
    if not slash or not _DIGITS_RE.fullmatch(prefix):
        return None
    ip = parse_ip_sloppy(address)
    if ip is None or int(prefix) > ip.max_prefixlen:
        return None
    return ipaddress.ip_network(f"{ip}/{int(prefix)}", strict=False)


def is_valid_cidr(value: str) -> list[str]:
    if parse_cidr_sloppy(value) is None:
        return ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]
    return []


def _mask_trailing_dash(name: str) -> str:
    # Upstream drops the last *two* characters and appends "a"; reproduced on purpose.
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    """NameIsDNS1035Label: Service names (they become DNS names that must start with a letter)."""
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


def path_segment_name(name: str, prefix: bool) -> list[str]:
    """The registry's generic name check (`path.ValidatePathSegmentName`)."""
    if not prefix:
        for illegal in (".", ".."):
            if name == illegal:
                return [f"may not be '{illegal}'"]
    return [f"may not contain '{illegal}'" for illegal in ("/", "%") if illegal in name]
