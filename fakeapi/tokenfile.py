"""`--token-auth-file`: kube-apiserver's static token file, read once at start.

Each record is `token,user name,user uid[,"group1,group2"]`, read as Go's encoding/csv reads it (RFC 4180
quoting: `"a,b"` is one field and `""` a quote inside one; no comment lines; blank lines skipped; leading
spaces kept) and taken as upstream takes it: columns past the fourth are ignored, the groups are the
fourth column split at commas (an empty one is the group ""), a record with an empty token is skipped and
a later record with the same token replaces the earlier one.
"""

from __future__ import annotations

from fakeapi.machinery.users import UserInfo

BARE_QUOTE = 'bare " in non-quoted-field'
BAD_QUOTE = 'extraneous or missing " in quoted-field'


class TokenFileError(ValueError):
    """Why the file cannot be used, in upstream's words."""


def parse_token_file(text: str, name: str) -> tuple[dict[str, UserInfo], list[str]]:
    """token -> user, in the order tokens first appear in the file, and upstream's warnings about the
    records it skips or replaces; `name` is the path errors and warnings name."""
    users: dict[str, UserInfo] = {}
    warnings: list[str] = []
    for number, record in enumerate(csv_records(text), start=1):
        if len(record) < 3:
            raise TokenFileError(f"token file '{name}' must have at least 3 columns (token, user name, user uid), "
                                 f"found {len(record)}")
        token, username, uid = record[:3]
        if not token:
            warnings.append(f"empty token has been found in token file '{name}', record number '{number}'")
            continue
        if token in users:
            warnings.append(f"duplicate token has been found in token file '{name}', record number '{number}'")
        users[token] = UserInfo(username, uid, tuple(record[3].split(",")) if len(record) > 3 else ())
    return users, warnings


def csv_records(text: str) -> list[list[str]]:
    """The records of `text` as Go's csv.Reader returns them with FieldsPerRecord -1 (TokenFileError for
    what it refuses, with its line and 1-based column)."""
    lines = _lines(text)
    records: list[list[str]] = []
    index = 0
    while index < len(lines):
        if lines[index] == "\n":  # blank lines are skipped
            index += 1
            continue
        record, index = _record(lines, index)
        records.append(record)
    return records


def _lines(text: str) -> list[str]:
    """The lines of `text`, each with its "\n" (a "\r\n" becomes "\n"; the last may have none). Only "\n"
    ends a line: the other characters str.splitlines splits at are data to Go's reader."""
    *ended, last = text.split("\n")
    lines = [line.removesuffix("\r") + "\n" for line in ended]
    if last:
        lines.append(last.removesuffix("\r"))  # Go drops a "\r" that ends the text
    return lines


def _record(lines: list[str], index: int) -> tuple[list[str], int]:
    """The record starting at lines[index], and the index of the line after it."""
    start_line = index + 1
    line, column = lines[index], 1
    fields: list[str] = []
    while True:
        if not line.startswith('"'):
            end = line.find(",")
            field = line[:end] if end >= 0 else line.removesuffix("\n")
            quote = field.find('"')
            if quote >= 0:
                raise _parse_error(start_line, index + 1, column + quote, BARE_QUOTE)
            fields.append(field)
            if end < 0:
                return fields, index + 1
            line, column = line[end + 1:], column + end + 1
            continue
        # a quoted field: it may span lines
        line, column = line[1:], column + 1
        value = ""
        while True:
            quote = line.find('"')
            if quote < 0:
                value += line
                if index + 1 == len(lines):  # the text ended inside the quotes
                    raise _parse_error(start_line, index + 1, column + len(line), BAD_QUOTE)
                index += 1
                line, column = lines[index], 1
                continue
            value += line[:quote]
            line, column = line[quote + 1:], column + quote + 1
            if line.startswith('"'):  # "" is a quote
                value += '"'
                line, column = line[1:], column + 1
            elif line.startswith(","):
                fields.append(value)
                line, column = line[1:], column + 1
                break
            elif line in ("\n", ""):
                fields.append(value)
                return fields, index + 1
            else:
                raise _parse_error(start_line, index + 1, column - 1, BAD_QUOTE)


def _parse_error(start_line: int, line: int, column: int, why: str) -> TokenFileError:
    if start_line != line:
        return TokenFileError(f"record on line {start_line}; parse error on line {line}, column {column}: {why}")
    return TokenFileError(f"parse error on line {line}, column {column}: {why}")
