"""The commands that read and write the container's files: cat, ls, head, tail, wc, grep, tee, mkdir, rm,
rmdir, touch, cp, mv, chmod, stat. Messages as GNU coreutils words them."""

from __future__ import annotations

import posixpath
import re
import stat as stat_module
from collections.abc import Generator
from datetime import UTC, datetime
from typing import Any

from fakeapi.processes.effects import Effect, Program, Streams, read, read_all, write
from fakeapi.processes.files import Entry, FileError
from fakeapi.processes.shell.commands import fail
from fakeapi.processes.shell.interpreter import Shell, builtin
from fakeapi.processes.shell.options import Options, UsageError, parse

READ_LIMIT = 64 * 1024 * 1024  # what a command reads from its stdin at most


def _parse(streams: Streams, command: str, arguments: list[str], flags: str = "", valued: str = "",
           long: tuple[str, ...] = ()) -> Generator[Effect, Any, Options | None]:
    try:
        return parse(arguments, flags, valued, long)
    except UsageError as error:
        yield from write(streams.stderr, f"{command}: {error}\n")
        return None


def _contents(shell: Shell, streams: Streams, command: str, operand: str,
              template: str = "{command}: {name}: {reason}") -> Generator[Effect, Any, bytes | None]:
    """A file's bytes (stdin for `-`), or None once the error is reported."""
    if operand == "-":
        return (yield from read_all(streams.stdin, READ_LIMIT))
    try:
        return shell.system.files.read(shell.path(operand))
    except FileError as error:
        yield from write(streams.stderr, template.format(command=command, name=operand, reason=error.reason) + "\n")
        return None


@builtin("cat")
def cat(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = yield from _parse(streams, "cat", argv[1:], "nAuv")
    if options is None:
        return 1
    status = 0
    for operand in options.operands or ["-"]:
        if operand == "-":
            while True:  # streamed: `cat` in a pipe or an interactive session echoes as it reads
                chunk = yield from read(streams.stdin)
                if not chunk:
                    break
                yield from write(streams.stdout, chunk)
            continue
        data = yield from _contents(shell, streams, "cat", operand)
        if data is None:
            status = 1
            continue
        if "n" in options.flags:
            lines = data.decode(errors="replace").splitlines(keepends=True)
            data = "".join(f"{number:6d}\t{line}" for number, line in enumerate(lines, 1)).encode()
        yield from write(streams.stdout, data)
    return status


@builtin("ls")
def ls(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = yield from _parse(streams, "ls", argv[1:], "laA1dFhRtrS")
    if options is None:
        return 2
    flags = options.flags
    files = shell.system.files
    operands = options.operands or ["."]
    status = 0
    directories: list[tuple[str, str]] = []  # (as named, path)
    singles: list[tuple[str, Entry]] = []
    for operand in operands:
        path = shell.path(operand)
        entry = files.stat(path)
        if entry is None:
            yield from write(streams.stderr, f"ls: cannot access '{operand}': No such file or directory\n")
            status = 2
        elif entry.is_dir and "d" not in flags:
            directories.append((operand, path))
        else:
            singles.append((operand, entry))
    out: list[str] = [_render(_sorted(singles, flags), flags)] if singles else []
    headings = len(operands) > 1 or "R" in flags
    while directories:
        named, path = directories.pop(0)
        entry = files.stat(path)
        assert entry is not None
        entries = files.list(path)
        if "a" in flags:
            entries = [(".", entry), ("..", files.stat(posixpath.dirname(path)) or entry), *entries]
        elif "A" not in flags:
            entries = [(name, child) for name, child in entries if not name.startswith(".")]
        entries = _sorted(entries, flags)
        heading = f"{named}:\n" if headings else ""
        if out:
            heading = "\n" + heading
        total = f"total {sum((child.size + 1023) // 1024 for _name, child in entries)}\n" if "l" in flags else ""
        out.append(heading + total + _render(entries, flags))
        if "R" in flags:
            directories[:0] = [(posixpath.join(named, name), posixpath.join(path, name)) for name, child in entries
                               if child.is_dir and name not in (".", "..")]
    yield from write(streams.stdout, "".join(out))
    return status


def _sorted(entries: list[tuple[str, Entry]], flags: dict[str, Any]) -> list[tuple[str, Entry]]:
    if "t" in flags:
        ordered = sorted(entries, key=lambda item: (-item[1].mtime, item[0]))
    elif "S" in flags:
        ordered = sorted(entries, key=lambda item: (-item[1].size, item[0]))
    else:
        ordered = sorted(entries, key=lambda item: item[0])
    return list(reversed(ordered)) if "r" in flags else ordered


def _render(entries: list[tuple[str, Entry]], flags: dict[str, Any]) -> str:
    if "l" not in flags:
        return "".join(name + ("/" if "F" in flags and entry.is_dir else "") + "\n" for name, entry in entries)
    rows = [(_mode_text(entry), str(2 if entry.is_dir else 1), "root", "root", str(entry.size),
             _mtime_text(entry.mtime), name) for name, entry in entries]
    widths = [max((len(row[column]) for row in rows), default=0) for column in range(5)]
    return "".join(f"{row[0]} {row[1]:>{widths[1]}} {row[2]} {row[3]} {row[4]:>{widths[4]}} {row[5]} {row[6]}\n"
                   for row in rows)


def _mode_text(entry: Entry) -> str:
    return stat_module.filemode(entry.mode | (stat_module.S_IFDIR if entry.is_dir else stat_module.S_IFREG))


def _mtime_text(mtime: float) -> str:
    return datetime.fromtimestamp(mtime, UTC).strftime("%b %e %H:%M")


@builtin("head", "tail")
def head_tail(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    """`head -n N`/`-c N`/`-N`, `tail -n N`/`-n +N`/`-c N`/`-c +N` (what `kubectl cp` retries use)."""
    command = argv[0]
    arguments = [f"-n{argument[1:]}" if re.fullmatch(r"-\d+", argument) else argument for argument in argv[1:]]
    options = yield from _parse(streams, command, arguments, "qvf", "nc")
    if options is None:
        return 1
    by_bytes = "c" in options.flags
    amount = options.value("c" if by_bytes else "n", "10")
    from_start = amount.startswith("+")
    try:
        count = int(amount.lstrip("+-"))
    except ValueError:
        return (yield from fail(streams, command, f"invalid number of {'bytes' if by_bytes else 'lines'}: "
                                                  f"'{amount}'"))
    status = 0
    for operand in options.operands or ["-"]:
        data = yield from _contents(shell, streams, command, operand,
                                    "{command}: cannot open '{name}' for reading: {reason}")
        if data is None:
            status = 1
            continue
        if by_bytes:
            if command == "head":
                part = data[:count]
            else:
                part = data[max(count - 1, 0):] if from_start else (data[-count:] if count else b"")
        else:
            lines = data.splitlines(keepends=True)
            if command == "head":
                part = b"".join(lines[:count])
            else:
                part = b"".join(lines[max(count - 1, 0):] if from_start else (lines[-count:] if count else []))
        yield from write(streams.stdout, part)
    return status


@builtin("wc")
def wc(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = yield from _parse(streams, "wc", argv[1:], "lwcm")
    if options is None:
        return 1
    chosen = [letter for letter in "lwc" if letter in options.flags or (letter == "c" and "m" in options.flags)] \
        or ["l", "w", "c"]
    status = 0
    rows: list[tuple[list[int], str]] = []
    for operand in options.operands or ["-"]:
        data = yield from _contents(shell, streams, "wc", operand)
        if data is None:
            status = 1
            continue
        counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data)}
        rows.append(([counts[letter] for letter in chosen], "" if operand == "-" else operand))
    if len(rows) > 1:
        rows.append(([sum(row[0][index] for row in rows) for index in range(len(chosen))], "total"))
    width = max((len(str(number)) for numbers, _name in rows for number in numbers), default=1)
    if len(chosen) == 1 and len(rows) == 1 and not rows[0][1]:
        width = 0
    for numbers, name in rows:
        text = " ".join(f"{number:>{width}}" for number in numbers)
        yield from write(streams.stdout, f"{text} {name}".rstrip() + "\n")
    return status


@builtin("grep", "egrep", "fgrep")
def grep(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = yield from _parse(streams, "grep", argv[1:], "vicqnlEFwxsrho", "e")
    if options is None:
        return 2
    flags = options.flags
    operands = list(options.operands)
    if "e" in flags:
        pattern = options.value("e")
    elif operands:
        pattern = operands.pop(0)
    else:
        return (yield from fail(streams, "grep", "no pattern given (usage: grep [OPTION]... PATTERNS [FILE]...)", 2))
    if "F" in flags or argv[0] == "fgrep":
        expression = re.escape(pattern)
    elif "E" in flags or argv[0] == "egrep":
        expression = pattern
    else:  # basic regular expressions: \( \) \| \{ \} are the operators, ( ) | { } literal
        expression = re.sub(r"\\([(){}|+?])|([(){}|+?])", lambda m: m.group(1) or "\\" + m.group(2), pattern)
    if "w" in flags:
        expression = rf"\b(?:{expression})\b"
    if "x" in flags:
        expression = rf"(?:{expression})"
    try:
        matcher = re.compile(expression.encode(), re.IGNORECASE if "i" in flags else 0)
    except re.error:
        return (yield from fail(streams, "grep", "Invalid regular expression", 2))
    found = False
    status = 0
    sources = operands or ["-"]
    for operand in sources:
        data = yield from _contents(shell, streams, "grep", operand)
        if data is None:
            status = 2
            continue
        count = 0
        out: list[bytes] = []
        for number, line in enumerate(data.splitlines(), 1):
            hit = (matcher.fullmatch(line) if "x" in flags else matcher.search(line)) is not None
            if hit == ("v" in flags):
                continue
            count += 1
            prefix = (operand.encode() + b":") if len(sources) > 1 and "h" not in flags else b""
            if "n" in flags:
                prefix += str(number).encode() + b":"
            out.append(prefix + line + b"\n")
        found = found or count > 0
        if "q" in flags:
            continue
        if "l" in flags:
            if count:
                yield from write(streams.stdout, operand + "\n")
        elif "c" in flags:
            label = f"{operand}:" if len(sources) > 1 else ""
            yield from write(streams.stdout, f"{label}{count}\n")
        else:
            yield from write(streams.stdout, b"".join(out))
    if status:
        return status
    return 0 if found else 1


@builtin("tee")
def tee(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = yield from _parse(streams, "tee", argv[1:], "a")
    if options is None:
        return 1
    data = yield from read_all(streams.stdin, READ_LIMIT)
    yield from write(streams.stdout, data)
    status = 0
    for operand in options.operands:
        try:
            shell.system.files.write(shell.path(operand), data, _now(shell), append="a" in options.flags)
        except FileError as error:
            yield from write(streams.stderr, f"tee: {operand}: {error.reason}\n")
            status = 1
    return status


@builtin("mkdir")
def mkdir(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = yield from _parse(streams, "mkdir", argv[1:], "pv", "m")
    if options is None:
        return 1
    if not options.operands:
        return (yield from fail(streams, "mkdir", "missing operand"))
    status = 0
    for operand in options.operands:
        try:
            shell.system.files.mkdir(shell.path(operand), _now(shell), parents="p" in options.flags)
        except FileError as error:
            if error.code == "EEXIST" and "p" in options.flags:
                continue
            yield from write(streams.stderr, f"mkdir: cannot create directory '{operand}': {error.reason}\n")
            status = 1
    return status


@builtin("rmdir")
def rmdir(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    status = 0
    for operand in argv[1:]:
        path = shell.path(operand)
        try:
            if not shell.system.files.is_dir(path):
                raise FileError("ENOTDIR" if shell.system.files.exists(path) else "ENOENT", path)
            shell.system.files.remove(path)
        except FileError as error:
            yield from write(streams.stderr, f"rmdir: failed to remove '{operand}': {error.reason}\n")
            status = 1
    return status


@builtin("rm")
def rm(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = yield from _parse(streams, "rm", argv[1:], "rRfvid")
    if options is None:
        return 1
    recursive = "r" in options.flags or "R" in options.flags
    force = "f" in options.flags
    status = 0
    for operand in options.operands:
        path = shell.path(operand)
        files = shell.system.files
        try:
            if files.is_dir(path) and not recursive:
                yield from write(streams.stderr, f"rm: cannot remove '{operand}': Is a directory\n")
                status = 1
                continue
            files.remove(path, recursive=recursive)
        except FileError as error:
            if force and error.code == "ENOENT":
                continue
            yield from write(streams.stderr, f"rm: cannot remove '{operand}': {error.reason}\n")
            status = 1
    if not options.operands and not force:
        return (yield from fail(streams, "rm", "missing operand"))
    return status


@builtin("touch")
def touch(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = yield from _parse(streams, "touch", argv[1:], "acm")
    if options is None:
        return 1
    status = 0
    for operand in options.operands:
        try:
            shell.system.files.touch(shell.path(operand), _now(shell))
        except FileError as error:
            yield from write(streams.stderr, f"touch: cannot touch '{operand}': {error.reason}\n")
            status = 1
    return status


@builtin("cp", "mv")
def cp_mv(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    command = argv[0]
    options = yield from _parse(streams, command, argv[1:], "rRafpvn")
    if options is None:
        return 1
    files = shell.system.files
    operands = options.operands
    if len(operands) < 2:
        return (yield from fail(streams, command, "missing destination file operand" if operands else
                                "missing file operand"))
    *sources, destination = operands
    into = files.is_dir(shell.path(destination))
    status = 0
    for source in sources:
        source_path = shell.path(source)
        target = posixpath.join(shell.path(destination), posixpath.basename(source_path)) if into \
            else shell.path(destination)
        try:
            entry = files.stat(source_path)
            if entry is None:
                raise FileError("ENOENT", source)
            if entry.is_dir and command == "cp" and not ({"r", "R", "a"} & set(options.flags)):
                yield from write(streams.stderr, f"cp: -r not specified; omitting directory '{source}'\n")
                status = 1
                continue
            _copy(shell, source_path, target)
            if command == "mv":
                files.remove(source_path, recursive=True)
        except FileError as error:
            verb = "cannot stat" if error.code == "ENOENT" and error.path in (source, source_path) else \
                f"cannot create regular file '{destination}'"
            yield from write(streams.stderr, f"{command}: {verb}" + (f" '{source}'" if verb == "cannot stat" else "")
                             + f": {error.reason}\n")
            status = 1
    return status


def _copy(shell: Shell, source: str, target: str) -> None:
    files = shell.system.files
    now = _now(shell)
    for path, entry in list(files.walk(source)):
        destination = target + path[len(source):]
        if entry.is_dir:
            if not files.is_dir(destination):
                files.mkdir(destination, now, mode=entry.mode)
        else:
            files.write(destination, entry.data or b"", now, mode=entry.mode)


@builtin("chmod")
def chmod(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    arguments = [argument for argument in argv[1:] if argument not in ("-R", "-v")]
    if len(arguments) < 2:
        return (yield from fail(streams, "chmod", "missing operand"))
    mode_text, *operands = arguments
    status = 0
    for operand in operands:
        path = shell.path(operand)
        entry = shell.system.files.stat(path)
        try:
            if entry is None:
                raise FileError("ENOENT", operand)
            shell.system.files.chmod(path, _mode(mode_text, entry.mode))
        except (FileError, ValueError) as error:
            reason = error.reason if isinstance(error, FileError) else f"invalid mode: '{mode_text}'"
            yield from write(streams.stderr, f"chmod: cannot access '{operand}': {reason}\n" if
                             isinstance(error, FileError) else f"chmod: {reason}\n")
            status = 1
    return status


def _mode(text: str, current: int) -> int:
    if re.fullmatch(r"[0-7]{1,4}", text):
        return int(text, 8)
    mode = current
    for clause in text.split(","):
        match = re.fullmatch(r"([ugoa]*)([-+=])([rwx]*)", clause)
        if match is None:
            raise ValueError(text)
        who = match.group(1) or "a"
        bits = sum({"r": 4, "w": 2, "x": 1}[letter] for letter in match.group(3))
        mask = sum(bits << shift for letter, shift in (("u", 6), ("g", 3), ("o", 0)) if letter in who or who == "a")
        if match.group(2) == "+":
            mode |= mask
        elif match.group(2) == "-":
            mode &= ~mask
        else:
            clear = sum(7 << shift for letter, shift in (("u", 6), ("g", 3), ("o", 0)) if letter in who or who == "a")
            mode = (mode & ~clear) | mask
    return mode


@builtin("stat")
def stat(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = yield from _parse(streams, "stat", argv[1:], "L", "c")
    if options is None:
        return 1
    status = 0
    for operand in options.operands:
        entry = shell.system.files.stat(shell.path(operand))
        if entry is None:
            yield from write(streams.stderr, f"stat: cannot statx '{operand}': No such file or directory\n")
            status = 1
            continue
        if "c" in options.flags:
            text = options.value("c").replace("%s", str(entry.size)).replace("%n", operand).replace(
                "%a", f"{entry.mode & 0o7777:o}").replace("%Y", str(int(entry.mtime))).replace(
                "%F", "directory" if entry.is_dir else "regular file")
            yield from write(streams.stdout, text + "\n")
        else:
            kind = "directory" if entry.is_dir else "regular file"
            yield from write(streams.stdout, f"  File: {operand}\n  Size: {entry.size}\t{kind}\n"
                                             f"Access: ({entry.mode & 0o7777:04o}/{_mode_text(entry)})\n")
    return status


def _now(shell: Shell) -> float:
    return shell.system.now().timestamp()
