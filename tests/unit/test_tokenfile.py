"""`--token-auth-file` read as kube-apiserver reads it: Go's encoding/csv (RFC 4180 quotes, variable
field counts, blank lines skipped, no comments) and upstream's tokenfile rules and messages."""

from __future__ import annotations

import pytest

from fakeapi.machinery.users import UserInfo
from fakeapi.tokenfile import TokenFileError, csv_records, parse_token_file


def users(text: str) -> dict[str, UserInfo]:
    return parse_token_file(text, "tokens.csv")[0]


def test_a_record_is_token_user_uid_and_quoted_groups() -> None:
    assert users('s3cr3t,alice,1001,"dev,ops"\n') == {"s3cr3t": UserInfo("alice", "1001", ("dev", "ops"))}


@pytest.mark.parametrize(("text", "token", "expected"), [
    ("t,bob,7", "t", UserInfo("bob", "7")),  # no groups column, no final newline
    ("t,bob,7,\n", "t", UserInfo("bob", "7", ("",))),  # an empty groups column is the group ""
    ("t,bob,7,dev,ignored,too\n", "t", UserInfo("bob", "7", ("dev",))),  # columns past the fourth are ignored
    ("t,,,\r\n", "t", UserInfo("", "", ("",))),  # CRLF endings
    ('t," bob ","","a ""quoted"" group"\n', "t", UserInfo(" bob ", "", ('a "quoted" group',))),
    (" t,bob,7\n", " t", UserInfo("bob", "7")),  # leading spaces are part of the token
])
def test_fields_are_taken_as_written(text: str, token: str, expected: UserInfo) -> None:
    assert users(text) == {token: expected}


def test_blank_lines_are_skipped_and_comments_are_records() -> None:
    assert csv_records("a,b,c\n\n\n#d,e,f\n") == [["a", "b", "c"], ["#d", "e", "f"]]


def test_a_quoted_field_may_span_lines() -> None:
    assert csv_records('t,"two\nlines",u\nx,y,z\n') == [["t", "two\nlines", "u"], ["x", "y", "z"]]


def test_empty_tokens_are_skipped_and_a_repeated_token_takes_the_later_user_with_warnings() -> None:
    tokens, warnings = parse_token_file(",nobody,0\nt,first,1\nu,other,2\nt,second,3\n", "tokens.csv")
    assert tokens == {"t": UserInfo("second", "3"), "u": UserInfo("other", "2")}
    assert list(tokens) == ["t", "u"]  # the file's first token stays first (the kubeconfig's)
    assert warnings == ["empty token has been found in token file 'tokens.csv', record number '1'",
                        "duplicate token has been found in token file 'tokens.csv', record number '4'"]


@pytest.mark.parametrize(("text", "message"), [
    ("t,alice\n", "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2"),
    ("ok,a,1\n \n", "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 1"),
    ('t,al"ice,1\n', 'parse error on line 1, column 5: bare " in non-quoted-field'),
    ('ok,a,1\nt,"alice"x,1\n', 'parse error on line 2, column 9: extraneous or missing " in quoted-field'),
    ('t,"alice,1\n', 'parse error on line 1, column 12: extraneous or missing " in quoted-field'),
    ('t,"alice,1', 'parse error on line 1, column 11: extraneous or missing " in quoted-field'),
    ('t,"two\nlines" ,1\n',
     'record on line 1; parse error on line 2, column 6: extraneous or missing " in quoted-field'),
])
def test_what_upstream_refuses_is_refused_with_its_message(text: str, message: str) -> None:
    with pytest.raises(TokenFileError) as error:
        parse_token_file(text, "tokens.csv")
    assert str(error.value) == message
