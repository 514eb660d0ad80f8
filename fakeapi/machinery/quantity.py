"""Resource quantities as apimachinery's resource.Quantity: exact parsing and canonical wire form.

A quantity keeps the family of its suffix (decimal SI, binary SI or decimal exponent) and is
re-serialised in that family's canonical form: `0.1` -> `100m`, `1024Mi` -> `1Gi`, `1.5Gi` ->
`1536Mi`. Like upstream, a string that parsed on the fast path and was already canonical is
echoed as sent (so `+1` and `01` stay as they are).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
NUMERIC_ERROR = "unable to parse numeric part of quantity"
SUFFIX_ERROR = "unable to parse quantity's suffix"

# the shape check of decoding, which takes what the full parse may still refuse for its size
_SHAPE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)([eEinumkKMGTP]*[-+]?[0-9]*)")
_SUFFIXES = frozenset(("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))
_EXPONENT_SUFFIX = re.compile(r"[eE][-+]?[0-9]+")
# sign, number (leading zeros dropped, as upstream's scanner does), fraction, suffix
_SCAN = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[+-]?[0-9]*)")
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX_OF = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX_OF = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_INT64_MAX = 2**63 - 1
_NANO = 10**9
_NANOS_PER_MILLI = 10**6
_MAX_BINARY_NANOS = _INT64_MAX * _NANO
_BINARY_DECIMAL_BELOW = 1024 * _NANO  # binary quantities smaller than 1Ki print in decimal
# 10**exponent is computed exactly; beyond this a hostile "1e2000000000" would exhaust memory
_MAX_EXPONENT = 10_000


def quantity_error(text: str) -> str | None:
    """Why decoding a Quantity rejects `text` (apimachinery's exact message), or None if it decodes."""
    text = text.strip()
    if text == "0":
        return None
    match = _SHAPE.fullmatch(text)
    if match is None:
        return FORMAT_ERROR
    suffix = match.group(1)
    if suffix in _SUFFIXES or _EXPONENT_SUFFIX.fullmatch(suffix):
        return None
    return SUFFIX_ERROR


def number_text(value: int | float) -> str:
    """A JSON number as a quantity string (upstream stores quantities as strings)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


class Quantity(NamedTuple):
    """A parsed quantity: its value in nano units (parsing keeps nothing finer), its suffix family,
    and the text upstream echoes instead of the canonical form (or None)."""

    nanos: int
    format: str
    text: str | None = None

    @property
    def value(self) -> Fraction:
        return Fraction(self.nanos, _NANO)


def parse(raw: str | int | float) -> Quantity:
    """Parse a quantity as it arrives in JSON (a string, or a bare number). Raises ValueError."""
    return _parse_text(_as_text(raw))


def parse_quantity(raw: str | int | float) -> Fraction:
    """The exact value of a quantity. Raises ValueError with upstream's message on bad input."""
    return _value(_as_text(raw))


def canonical_quantity(raw: str | int | float) -> str:
    """The quantity as the apiserver re-serialises it (`0.1` -> `100m`, `1000m` -> `1`)."""
    return _canonical_text(_as_text(raw))


def round_up_to_milli(raw: str | int | float) -> str:
    """SetDefaults_ResourceList: round away from zero to milli precision, then canonicalise (`1n` -> `1m`)."""
    return _rounded_text(_as_text(raw))


def round_resource_list(resource_list: Any, rounded: Callable[[str], str | None] | None = None) -> None:
    """SetDefaults_ResourceList on a wire ResourceList (in place): every quantity rounded up to milli and
    re-serialised canonically. A quantity that does not parse is left for validation to report.
    `rounded` is the caller's memo of `rounded_to_milli`, if it keeps one."""
    if not isinstance(resource_list, dict):
        return
    for name, amount in resource_list.items():
        if type(amount) is str:
            text = (rounded or rounded_to_milli)(amount)
            if text is not None and text != amount:
                resource_list[name] = text
        elif amount is None:
            resource_list[name] = "0"  # a JSON null decodes to a zero Quantity
        elif isinstance(amount, int | float) and not isinstance(amount, bool):
            try:
                resource_list[name] = round_up_to_milli(amount)
            except ValueError:
                pass


def rounded_to_milli(amount: str) -> str | None:
    """`round_up_to_milli` of a text, None if it does not parse."""
    try:
        return round_up_to_milli(amount)
    except ValueError:
        return None


def quantities_equal(a: str | int | float, b: str | int | float) -> bool:
    """Numeric equality (`1` == `1000m`, `1Gi` == `1073741824`). Raises ValueError on bad input."""
    return parse(a).nanos == parse(b).nanos


def format_quantity(quantity: Quantity) -> str:
    """Quantity.String(): the echoed text if upstream kept it, else the canonical form."""
    if quantity.text is not None:
        return quantity.text
    return _format(quantity.nanos, quantity.format)


def add_quantities(a: Quantity, b: Quantity) -> Quantity:
    """Quantity.Add: the sum keeps `a`'s format unless `a` is zero."""
    return Quantity(a.nanos + b.nanos, b.format if a.nanos == 0 else a.format)


def _as_text(raw: object) -> str:
    # bool is an int subclass, but JSON true/false is no quantity
    if isinstance(raw, str):
        return raw
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw)
    if isinstance(raw, float):
        return repr(raw)  # the JSON literal itself is lost; repr is the shortest round-trip form
    raise ValueError(FORMAT_ERROR)


def _value(text: str) -> Fraction:
    return _parse_text(text).value


def _canonical_text(text: str) -> str:
    return format_quantity(_parse_text(text))


def _rounded_text(text: str) -> str:
    quantity = _parse_text(text)
    if quantity.nanos % _NANOS_PER_MILLI == 0:
        return format_quantity(quantity)  # already milli-exact: upstream keeps its echoed text
    return _format(_ceil_away_from_zero(quantity.nanos, _NANOS_PER_MILLI), quantity.format)


def _parse_text(raw: str) -> Quantity:
    # UnmarshalJSON trims surrounding whitespace before parsing
    text = raw.strip()
    if not text:
        raise ValueError(FORMAT_ERROR)
    if text == "0":
        return Quantity(0, DECIMAL_SI, text)
    match = _SCAN.fullmatch(text)
    if match is None:
        raise ValueError(FORMAT_ERROR)
    sign, num, denom, suffix = match.group(1), match.group(2) or "0", match.group(3) or "", match.group(4)
    base, exponent, fmt = _interpret_suffix(suffix)
    if len(num) + len(denom) > 4000:  # Python refuses longer int conversions
        raise ValueError(NUMERIC_ERROR)
    digits = int(num + denom)
    echoed = text if _fast_path_keeps_text(digits, num, denom, base, exponent) else None
    # parsing keeps values down to nano only, rounding a finer value away from zero
    if base == 2:
        nanos = _shift_to_nanos(digits << exponent, 9 - len(denom))
        nanos = min(nanos, _MAX_BINARY_NANOS)  # upstream silently caps binary quantities
        if 0 < nanos < _NANO:
            fmt = DECIMAL_SI
    else:
        nanos = _shift_to_nanos(digits, exponent - len(denom) + 9)
    return Quantity(-nanos if sign == "-" else nanos, fmt, echoed)


def _interpret_suffix(suffix: str) -> tuple[int, int, str]:
    exponent = _DECIMAL_SUFFIXES.get(suffix)
    if exponent is not None:
        return 10, exponent, DECIMAL_SI
    exponent = _BINARY_SUFFIXES.get(suffix)
    if exponent is not None:
        return 2, exponent, BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        try:
            parsed = int(suffix[1:])  # the scanner allows only [+-]?[0-9]* here
        except ValueError:
            raise ValueError(SUFFIX_ERROR) from None
        if not -(2**63) <= parsed < 2**63:
            raise ValueError(SUFFIX_ERROR)
        exponent = (parsed + 2**31) % 2**32 - 2**31  # Go converts the exponent with int32(...)
        return 10, exponent, DECIMAL_EXPONENT
    raise ValueError(SUFFIX_ERROR)


def _shift_to_nanos(digits: int, power: int) -> int:
    """digits * 10**power as a whole number (of nanos), rounded up; digits >= 0."""
    if power >= 0:
        if power > _MAX_EXPONENT and digits:
            raise ValueError(NUMERIC_ERROR)
        scale: int = 10**power
        return digits * scale
    if -power > _MAX_EXPONENT:
        return 1 if digits else 0  # far below one nano: rounds up to it
    unit: int = 10**-power
    return -(-digits // unit)


def _fast_path_keeps_text(digits: int, num: str, denom: str, base: int, exponent: int) -> bool:
    """Whether upstream's int64 fast path parses this and keeps the original string as its String()."""
    if base == 2:
        if denom:
            return False
        precision = 15 - len(num) - exponent * 3 // 10 - 1
        if precision < 0 or digits << exponent > _INT64_MAX:
            return False
        return digits & 0x07 != 0
    scale = exponent - len(denom)
    if 18 - (len(num) + len(denom)) < 0 or scale < -9:
        return False
    shifted = num + denom
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def _ceil_away_from_zero(nanos: int, unit: int) -> int:
    """Round a nano count away from zero to a multiple of `unit`."""
    magnitude = -(-abs(nanos) // unit) * unit
    return magnitude if nanos >= 0 else -magnitude


def _format(nanos: int, fmt: str) -> str:
    """CanonicalizeBytes: no fractional digits, the largest suffix that loses no precision."""
    if nanos == 0:
        return "0"
    if fmt == BINARY_SI:
        if -_BINARY_DECIMAL_BELOW < nanos < _BINARY_DECIMAL_BELOW or nanos % _NANO:
            fmt = DECIMAL_SI  # upstream shows such values in decimal rather than round them
        else:
            amount, power = abs(nanos) // _NANO, 0
            while amount % 1024 == 0 and power < len(_BINARY_SUFFIX_OF) - 1:
                amount //= 1024
                power += 1
            return f"{'-' if nanos < 0 else ''}{amount}{_BINARY_SUFFIX_OF[power]}"
    # mantissa * 10**exponent with exponent a multiple of 3 and as large as possible
    mantissa, exponent = nanos, -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    if shift:
        mantissa *= 10**shift
        exponent -= shift
    if fmt == DECIMAL_SI:
        suffix = _DECIMAL_SUFFIX_OF.get(exponent)
        if suffix is not None:
            return f"{mantissa}{suffix}"
    return f"{mantissa}e{exponent}" if exponent else str(mantissa)
