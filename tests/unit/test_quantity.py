"""Quantity parsing and canonical form, mirroring apimachinery's quantity_test.go tables."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fakeapi.machinery.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    FORMAT_ERROR,
    NUMERIC_ERROR,
    SUFFIX_ERROR,
    add_quantities,
    canonical_quantity,
    parse,
    parse_quantity,
    quantities_equal,
    round_up_to_milli,
)

GI = 1024**3


@pytest.mark.parametrize(
    ("text", "value", "fmt"),
    [
        ("0", 0, DECIMAL_SI),
        ("0n", 0, DECIMAL_SI),
        ("0Ki", 0, BINARY_SI),
        ("0T", 0, DECIMAL_SI),
        ("1", 1, DECIMAL_SI),
        ("1Ki", 1024, BINARY_SI),
        ("7Mi", 7 * 1024**2, BINARY_SI),
        ("6Gi", 6 * GI, BINARY_SI),
        ("3Ei", 3 * 1024**6, BINARY_SI),
        ("5n", Fraction(5, 10**9), DECIMAL_SI),
        ("4u", Fraction(4, 10**6), DECIMAL_SI),
        ("3m", Fraction(3, 1000), DECIMAL_SI),
        ("50k", 50_000, DECIMAL_SI),
        ("300T", 300 * 10**12, DECIMAL_SI),
        ("1E", 10**18, DECIMAL_SI),
        ("12E", 12 * 10**18, DECIMAL_SI),
        ("1E-3", Fraction(1, 1000), DECIMAL_EXPONENT),
        ("1e3", 1000, DECIMAL_EXPONENT),
        ("1.3E+6", 1_300_000, DECIMAL_EXPONENT),
        ("1.7E18", 17 * 10**17, DECIMAL_EXPONENT),
        ("100.035k", 100_035, DECIMAL_SI),
        ("0.0005k", Fraction(1, 2), DECIMAL_SI),
        ("0.5e-2", Fraction(5, 1000), DECIMAL_EXPONENT),
        ("6.987654321G", 6_987_654_321, DECIMAL_SI),
        ("1.01E", 101 * 10**16, DECIMAL_SI),
        # finer than nano rounds away from zero
        ("3.001n", Fraction(4, 10**9), DECIMAL_SI),
        ("1.1E-9", Fraction(2, 10**9), DECIMAL_EXPONENT),
        ("0.0000000001", Fraction(1, 10**9), DECIMAL_SI),
        ("0.00000012345", Fraction(124, 10**9), DECIMAL_SI),
        ("-3.001n", Fraction(-4, 10**9), DECIMAL_SI),
        # binary quantities are capped at 2^63-1
        ("9Ei", 2**63 - 1, BINARY_SI),
        ("9223372036854775807Ki", 2**63 - 1, BINARY_SI),
        ("100.035Ki", Fraction(10243584, 100), BINARY_SI),
        ("0.5Mi", 512 * 1024, BINARY_SI),
        ("0.000000000001Ki", Fraction(2, 10**9), DECIMAL_SI),  # rounds up, changes format
        (".001", Fraction(1, 1000), DECIMAL_SI),
        ("1.", 1, DECIMAL_SI),
        ("1.G", 10**9, DECIMAL_SI),
        ("+1.5", Fraction(3, 2), DECIMAL_SI),
        ("-1.5Gi", -3 * GI // 2, BINARY_SI),
        # the scanner is laxer than its error message: an empty number is zero
        (".", 0, DECIMAL_SI),
        ("-", 0, DECIMAL_SI),
        ("k", 0, DECIMAL_SI),
    ],
)
def test_parse_is_exact_and_keeps_the_suffix_family(text: str, value: Fraction | int, fmt: str) -> None:
    assert parse_quantity(text) == value
    assert parse(text).format == fmt


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # TestQuantityString alternates -> expected
        ("1024Mi", "1Gi"),
        ("307200Ki", "300Mi"),
        ("1025024Mi", "1001Gi"),
        ("1024Gi", "1Ti"),
        ("5000m", "5"),
        ("1000M", "1G"),
        ("0.001T", "1G"),
        ("1000u", "1m"),
        ("1.08", "1080m"),
        ("1080000000n", "1080m"),
        ("1000E", "1e21"),
        ("1000000E", "1e24"),
        (".001e12", "1e9"),
        ("0.001e0", "1e-3"),
        ("1000e-12", "1e-9"),
        ("00", "0"),
        # TestQuantityParseEmit
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
        ("-.001Ki", "-1024m"),
        # the common wire forms
        ("0.1", "100m"),
        ("1000m", "1"),
        ("1.5", "1500m"),
        ("-1.5", "-1500m"),
        ("1.5Gi", "1536Mi"),
        ("0.5Mi", "512Ki"),
        ("0.5Ki", "512"),  # binary below 1Ki prints in decimal
        ("1.1Ki", "1126400m"),  # binary that is not whole prints in decimal
        ("1.5Ki", "1536"),
        ("9Ei", "9223372036854775807"),
        ("10e2", "1e3"),
        ("1.5e3", "1500"),
        ("0m", "0"),
        ("0Mi", "0"),
        ("1e-99999", "1e-9"),
        # JSON whitespace is trimmed before parsing (TestJSONWhitespace)
        (" 1", "1"),
        ("1 ", "1"),
        (" -1", "-1"),
    ],
)
def test_canonical_form_is_what_the_apiserver_serialises(text: str, canonical: str) -> None:
    assert canonical_quantity(text) == canonical


@pytest.mark.parametrize(
    "text",
    [
        # canonical strings parse to themselves (TestQuantityString expectations)
        "1Gi", "300Mi", "6Ki", "1001Gi", "1Ti", "5", "500m", "1G", "1m", "80m", "1080m", "300M",
        "1T", "1E", "1234567M", "1234567m", "3k", "1025", "0", "1e9", "1e-3", "1e-9", "80e-3",
        "300e6", "1e12", "1e3", "3e3", "1n", "80n", "1080n", "1u", "80u", "1080u", "-100m",
        # upstream's fast path echoes a string it considers canonical, quirks included
        "+1", "01", "007m", "1E3", "1e0", "1.G", "+1Ki",
    ],
)  # fmt: skip
def test_canonical_text_is_echoed_as_sent(text: str) -> None:
    assert canonical_quantity(text) == text


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [(100, "100"), (1000, "1k"), (0, "0"), (-2, "-2"), (0.5, "500m"), (1.25, "1250m"), (2.0, "2")],
)
def test_json_numbers_are_reserialised_as_strings(raw: int | float, canonical: str) -> None:
    assert canonical_quantity(raw) == canonical


@pytest.mark.parametrize(
    ("text", "rounded"),
    [
        ("1n", "1m"),  # TestSetMinimumScalePod
        ("-1n", "-1m"),  # away from zero
        ("1.0001", "1001m"),
        ("100m", "100m"),
        ("0.1", "100m"),
        ("1000m", "1"),
        ("1u", "1m"),
        ("999999n", "1m"),
        ("999999999n", "1"),
        ("1.0001Ki", "1024103m"),
        ("1e-10", "1e-3"),  # keeps the exponent family
        ("128Mi", "128Mi"),
        ("01", "01"),  # already milli-exact: the echoed text survives
    ],
)
def test_round_up_to_milli_rounds_away_from_zero(text: str, rounded: str) -> None:
    assert round_up_to_milli(text) == rounded


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", FORMAT_ERROR),
        ("1.1.M", FORMAT_ERROR),
        ("1+1.0M", FORMAT_ERROR),
        ("0.1am", FORMAT_ERROR),
        ("aoeu", FORMAT_ERROR),
        ("1 2", FORMAT_ERROR),
        ("1e3e3", FORMAT_ERROR),
        ("nan", FORMAT_ERROR),
        (True, FORMAT_ERROR),
        (None, FORMAT_ERROR),
        ({"cpu": 1}, FORMAT_ERROR),
        ("0.1mi", SUFFIX_ERROR),
        (".5i", SUFFIX_ERROR),
        ("1i", SUFFIX_ERROR),
        ("-3.01i", SUFFIX_ERROR),
        ("-3.01e-", SUFFIX_ERROR),
        ("1e", SUFFIX_ERROR),
        ("1mm", SUFFIX_ERROR),
        ("1e99999999999999999999", SUFFIX_ERROR),
        ("1e99999", NUMERIC_ERROR),  # a deliberate bound: see _MAX_EXPONENT
    ],
)
def test_bad_quantities_raise_upstreams_message(raw: object, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_quantity(raw)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_format_error_quotes_upstreams_regular_expression() -> None:
    assert FORMAT_ERROR == (
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ("1", "1000m", True),
        ("1Gi", "1073741824", True),
        ("1Gi", "1024Mi", True),
        ("1k", "1e3", True),
        (1, "1", True),
        ("0", "0Mi", True),
        ("100m", "50m", False),
        ("1Gi", "1G", False),
    ],
)
def test_quantities_compare_numerically(a: str | int, b: str, equal: bool) -> None:
    assert quantities_equal(a, b) is equal


@pytest.mark.parametrize("text", ["100m", "1Gi"])
def test_adding_zero_preserves_the_suffix_either_way(text: str) -> None:
    zero, value = parse("0"), parse(text)
    assert canonical_quantity(_format(add_quantities(value, zero))) == text
    assert canonical_quantity(_format(add_quantities(zero, value))) == text


def test_a_sum_keeps_the_first_operands_family() -> None:
    total = add_quantities(parse("512Mi"), parse("512M"))
    assert total.format == BINARY_SI
    assert total.value == 512 * 1024**2 + 512 * 10**6


def _format(quantity: object) -> str:
    from fakeapi.machinery.quantity import Quantity, format_quantity

    assert isinstance(quantity, Quantity)
    return format_quantity(quantity)
