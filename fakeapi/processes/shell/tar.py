"""tar over the container's files, as GNU tar answers what `kubectl cp` runs: `tar cf - PATH` (to copy
from a container; leading `/` removed from member names, with GNU's notice on stderr) and
`tar -xmf - -C DIR` or `tar --no-same-permissions --no-same-owner -xmf - -C DIR` (to copy into one);
`t` lists, `z` (gzip) works both ways, `f FILE` reads or writes an archive file in the container."""

from __future__ import annotations

import gzip
import io
import posixpath
import tarfile

from fakeapi.processes.effects import Program, Streams, read_all, write
from fakeapi.processes.files import FileError
from fakeapi.processes.shell.filecommands import READ_LIMIT
from fakeapi.processes.shell.interpreter import Shell, builtin

FAILED = "tar: Exiting with failure status due to previous errors\n"


@builtin("tar")
def tar(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    arguments = list(argv[1:])
    if arguments and not arguments[0].startswith("-"):
        arguments[0] = "-" + arguments[0]  # the old style: `tar cf - x`
    mode = ""
    archive = "-"
    directory = "."
    gzipped, verbose, keep_times = False, False, True
    keep_modes = True
    operands: list[str] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if argument.startswith("--"):
            name, _eq, value = argument[2:].partition("=")
            if name in ("no-same-permissions", "no-same-owner", "same-owner", "preserve-permissions",
                        "numeric-owner", "overwrite", "no-overwrite-dir"):
                keep_modes = keep_modes and name != "no-same-permissions"
            elif name == "directory":
                directory = value or (arguments[index] if index < len(arguments) else ".")
                index += 0 if value else 1
            elif name == "file":
                archive = value or (arguments[index] if index < len(arguments) else "-")
                index += 0 if value else 1
            elif name in ("create", "extract", "list", "get"):
                mode = {"create": "c", "extract": "x", "list": "t", "get": "x"}[name]
            elif name in ("gzip", "gunzip"):
                gzipped = True
            elif name == "touch":
                keep_times = False
            else:
                yield from write(streams.stderr, f"tar: unrecognized option '{argument}'\n"
                                                 "Try 'tar --help' or 'tar --usage' for more information.\n")
                return 2
            continue
        if argument.startswith("-") and len(argument) > 1:
            letters = argument[1:]
            position = 0
            while position < len(letters):
                letter = letters[position]
                position += 1
                if letter in "cxt":
                    mode = letter
                elif letter == "v":
                    verbose = True
                elif letter == "z":
                    gzipped = True
                elif letter == "m":
                    keep_times = False
                elif letter in "pohO":
                    pass
                elif letter in "fC":
                    value = letters[position:]
                    if not value:
                        if index >= len(arguments):
                            yield from write(streams.stderr, f"tar: option requires an argument -- '{letter}'\n")
                            return 2
                        value = arguments[index]
                        index += 1
                    if letter == "f":
                        archive = value
                    else:
                        directory = value
                    break
                else:
                    yield from write(streams.stderr, f"tar: invalid option -- '{letter}'\n"
                                                     "Try 'tar --help' or 'tar --usage' for more information.\n")
                    return 2
            continue
        operands.append(argument)
    if not mode:
        yield from write(streams.stderr, "tar: You must specify one of the '-Acdtrux', '--delete' or "
                                         "'--test-label' options\nTry 'tar --help' or 'tar --usage' for more "
                                         "information.\n")
        return 2
    base = shell.path(directory)
    if not shell.system.files.is_dir(base):
        yield from write(streams.stderr, f"tar: {directory}: Cannot open: No such file or directory\n"
                                         "tar: Error is not recoverable: exiting now\n")
        return 2
    if mode == "c":
        return (yield from _create(shell, streams, base, operands, archive, gzipped, verbose))
    return (yield from _read_archive(shell, streams, base, archive, gzipped, mode == "t", verbose,
                                     keep_modes, keep_times))


def _create(shell: Shell, streams: Streams, base: str, operands: list[str], archive: str, gzipped: bool,
            verbose: bool) -> Program:
    if not operands:
        yield from write(streams.stderr, "tar: Cowardly refusing to create an empty archive\n"
                                         "Try 'tar --help' or 'tar --usage' for more information.\n")
        return 2
    files = shell.system.files
    buffer = io.BytesIO()
    failed = False
    stripped = False
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tarball:
        for operand in operands:
            path = posixpath.normpath(posixpath.join(base, operand))
            if files.stat(path) is None:
                yield from write(streams.stderr, f"tar: {operand}: Cannot stat: No such file or directory\n")
                failed = True
                continue
            name_base = operand.rstrip("/") or "/"
            if name_base.startswith("/"):
                if not stripped:
                    yield from write(streams.stderr, "tar: Removing leading `/' from member names\n")
                    stripped = True
                name_base = name_base.lstrip("/")
            for member_path, entry in files.walk(path):
                name = posixpath.normpath(posixpath.join(name_base, member_path[len(path):].lstrip("/"))) \
                    if member_path != path else name_base
                info = tarfile.TarInfo(name + ("/" if entry.is_dir and name else "") if name else "./")
                info.mode = entry.mode & 0o7777
                info.mtime = int(entry.mtime)
                info.uname = info.gname = "root"
                if entry.is_dir:
                    info.type = tarfile.DIRTYPE
                    tarball.addfile(info)
                else:
                    data = entry.data or b""
                    info.size = len(data)
                    tarball.addfile(info, io.BytesIO(data))
                if verbose:
                    yield from write(streams.stderr if archive == "-" else streams.stdout, info.name + "\n")
    data = buffer.getvalue()
    if gzipped:
        data = gzip.compress(data, mtime=0)
    if archive == "-":
        yield from write(streams.stdout, data)
    else:
        try:
            files.write(shell.path(archive), data, shell.system.now().timestamp())
        except FileError as error:
            yield from write(streams.stderr, f"tar: {archive}: Cannot open: {error.reason}\n")
            failed = True
    if failed:
        yield from write(streams.stderr, FAILED)
        return 2
    return 0


def _read_archive(shell: Shell, streams: Streams, base: str, archive: str, gzipped: bool, listing: bool,
                  verbose: bool, keep_modes: bool, keep_times: bool) -> Program:
    files = shell.system.files
    if archive == "-":
        data = yield from read_all(streams.stdin, READ_LIMIT)
    else:
        try:
            data = files.read(shell.path(archive))
        except FileError as error:
            yield from write(streams.stderr, f"tar: {archive}: Cannot open: {error.reason}\n"
                                             "tar: Error is not recoverable: exiting now\n")
            return 2
    if gzipped or data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            yield from write(streams.stderr, "gzip: stdin: not in gzip format\n"
                                             "tar: Child returned status 1\n" + FAILED)
            return 2
    if not data.strip(b"\0"):
        return 0
    try:
        tarball = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
        members = tarball.getmembers()
    except tarfile.TarError:
        yield from write(streams.stderr, "tar: This does not look like a tar archive\n"
                                         "tar: Skipping to next header\n" + FAILED)
        return 2
    now = shell.system.now().timestamp()
    failed = False
    for member in members:
        name = posixpath.normpath(member.name.lstrip("/"))
        if listing or verbose:
            yield from write(streams.stdout, member.name + "\n")
        if listing:
            continue
        if name == ".":
            continue
        if name.startswith("../") or name == "..":
            yield from write(streams.stderr, f"tar: {member.name}: Member name contains '..'\n")
            failed = True
            continue
        target = posixpath.join(base, name)
        try:
            if member.isdir():
                if not files.is_dir(target):
                    files.mkdir(target, now, parents=True, mode=member.mode if keep_modes else 0o755)
            elif member.isfile():
                extracted = tarball.extractfile(member)
                content = extracted.read() if extracted is not None else b""
                parent = posixpath.dirname(target)
                if not files.is_dir(parent):
                    files.mkdir(parent, now, parents=True)
                files.write(target, content, now, mode=member.mode if keep_modes else 0o644)
                if keep_times:
                    files.touch(target, now, float(member.mtime))
        except FileError as error:
            yield from write(streams.stderr, f"tar: {name}: Cannot open: {error.reason}\n")
            failed = True
    if failed:
        yield from write(streams.stderr, FAILED)
        return 2
    return 0
