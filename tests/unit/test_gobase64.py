"""[]byte fields read and written as Go's encoding/json does: standard base64, Go's errors and offsets."""

from __future__ import annotations

import pytest

from fakeapi.machinery import gobase64


@pytest.mark.parametrize(("text", "decoded"), [
    ("", b""),
    ("YWJj", b"abc"),
    ("YQ==", b"a"),
    ("YWI=", b"ab"),
    ("YW\nJj", b"abc"),  # newlines are skipped anywhere
    ("YQ=\r\n=", b"a"),
    ("YR==", b"a"),  # bits after the last byte are ignored, as Go's non-strict decoder does
    ("+/+/", b"\xfb\xff\xbf"),
])
def test_decodes_what_go_decodes(text: str, decoded: bytes) -> None:
    assert gobase64.decode(text) == decoded


@pytest.mark.parametrize(("text", "offset"), [
    ("YQ", 0),  # a short final group: padding is required
    ("YWJjZA", 4),
    ("YQ=", 3),  # "=" must be followed by a second "="
    ("YQ=x", 2),
    ("Y===", 1),  # padding after one symbol
    ("====", 0),
    ("YQ==YQ==", 4),  # nothing may follow the padding
    ("a!bc", 1),
    ("YWJj-", 4),  # the URL alphabet is not the standard one
    ("é", 0),
])
def test_refuses_what_go_refuses_naming_the_byte(text: str, offset: int) -> None:
    with pytest.raises(gobase64.CorruptInput, match=f"^illegal base64 data at input byte {offset}$"):
        gobase64.decode(text)


def test_values_are_written_back_canonically() -> None:
    assert gobase64.canonical("YW\nJj") == "YWJj"
    assert gobase64.canonical("YR==") == "YQ=="
    assert [gobase64.decoded_length(gobase64.encode(b"x" * size)) for size in range(5)] == [0, 1, 2, 3, 4]
