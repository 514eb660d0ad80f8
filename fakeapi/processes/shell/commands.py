"""The shell's own commands and the small programs images carry that do not touch files: echo, printf,
env, printenv, hostname, date, sleep, test/[, read, sh, id, uname, seq, and the shell's special built-ins
(exit, export, set, cd...). Messages and exit codes are those of dash and GNU coreutils."""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable
from datetime import UTC, datetime

from fakeapi.processes.effects import FOREVER, Program, Sleep, Streams, read, write
from fakeapi.processes.files import FileError
from fakeapi.processes.shell.interpreter import (
    BUILTINS,
    LoopControl,
    Shell,
    ShellExit,
    builtin,
)
from fakeapi.processes.shell.options import Options, UsageError, parse
from fakeapi.processes.shell.syntax import ParseError
from fakeapi.processes.shell.syntax import parse as parse_program

KERNEL = ("Linux", "6.8.0-49-generic", "#49-Ubuntu SMP PREEMPT_DYNAMIC", "x86_64")
LINE_LIMIT = 1024 * 1024  # a line `read` takes at most
PROMPT = "# "
SHELL_NAMES = ("sh", "bash", "ash", "dash")


def fail(streams: Streams, command: str, message: str, status: int = 1) -> Program:
    yield from write(streams.stderr, f"{command}: {message}\n")
    return status


@builtin("true", ":")
def true(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    return 0
    yield  # a generator


@builtin("false")
def false(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    return 1
    yield


@builtin("echo")
def echo(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    """dash's echo: `-n` drops the newline; backslash escapes are always interpreted."""
    words = argv[1:]
    newline = True
    if words and words[0] == "-n":
        newline, words = False, words[1:]
    text, stop = _escapes(" ".join(words))
    yield from write(streams.stdout, text + ("\n" if newline and not stop else ""))
    return 0


@builtin("printf")
def printf(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    if len(argv) < 2:
        return (yield from fail(streams, "printf", "usage: printf format [arg ...]", 2))
    template, arguments = argv[1], argv[2:]
    out: list[str] = []
    status = 0
    while True:
        used, text, bad = _format(template, arguments)
        out.append(text)
        status = status or bad
        arguments = arguments[used:]
        if not arguments or not used:
            break
    yield from write(streams.stdout, "".join(out))
    return status


@builtin("env")
def env(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    environment = shell.environment()
    index = 1
    while index < len(argv) and argv[index] in ("-i", "-"):
        environment = {}
        index += 1
    while index < len(argv) and "=" in argv[index] and not argv[index].startswith("="):
        name, _eq, value = argv[index].partition("=")
        environment[name] = value
        index += 1
    if index < len(argv):
        child = shell.spawn([], shell.name)
        child.variables, child.exported = dict(environment), set(environment)
        return (yield from child.execute(argv[index:], streams))
    yield from write(streams.stdout, "".join(f"{name}={value}\n" for name, value in environment.items()))
    return 0


@builtin("printenv")
def printenv(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    environment = shell.environment()
    if len(argv) == 1:
        yield from write(streams.stdout, "".join(f"{name}={value}\n" for name, value in environment.items()))
        return 0
    status = 0
    for name in argv[1:]:
        if name in environment:
            yield from write(streams.stdout, environment[name] + "\n")
        else:
            status = 1
    return status


@builtin("hostname")
def hostname(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    yield from write(streams.stdout, shell.system.hostname + "\n")
    return 0


@builtin("id")
def identity(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = _options(argv, "ungr")
    if isinstance(options, str):
        return (yield from fail(streams, "id", options))
    if "u" in options.flags or "g" in options.flags:
        yield from write(streams.stdout, ("root" if "n" in options.flags else "0") + "\n")
    else:
        yield from write(streams.stdout, "uid=0(root) gid=0(root) groups=0(root)\n")
    return 0


@builtin("whoami")
def whoami(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    yield from write(streams.stdout, "root\n")
    return 0


@builtin("uname")
def uname(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    options = _options(argv, "asnrvmpio")
    if isinstance(options, str):
        return (yield from fail(streams, "uname", options))
    flags = options.flags
    system, release, version, machine = KERNEL
    fields = [("s", system), ("n", shell.system.hostname), ("r", release), ("v", version), ("m", machine)]
    if "a" in flags:
        chosen = [value for _letter, value in fields] + ["GNU/Linux"]
    else:
        chosen = [value for letter, value in fields if letter in flags] or [system]
    yield from write(streams.stdout, " ".join(chosen) + "\n")
    return 0


@builtin("date")
def date(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    """The server clock's time: `date`, `date -u`, `date +FORMAT`, `date -I[seconds]`, `date -R`."""
    now = shell.system.now().astimezone(UTC)
    template = "%a %b %e %H:%M:%S UTC %Y"
    for argument in argv[1:]:
        if argument.startswith("+"):
            template = argument[1:]
        elif argument in ("-u", "--utc", "--universal"):
            continue
        elif argument in ("-I", "--iso-8601", "-Idate"):
            template = "%Y-%m-%d"
        elif argument in ("-Iseconds", "--iso-8601=seconds"):
            template = "%Y-%m-%dT%H:%M:%S+00:00"
        elif argument in ("-R", "--rfc-email"):
            template = "%a, %d %b %Y %H:%M:%S +0000"
        else:
            return (yield from fail(streams, "date", f"invalid date '{argument}'"))
    yield from write(streams.stdout, _strftime(now, template) + "\n")
    return 0


@builtin("sleep")
def sleep(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    """Waits on the server clock: `sleep 5`, `sleep 0.5`, `sleep 1m`, `sleep infinity`."""
    if len(argv) < 2:
        return (yield from fail(streams, "sleep", "missing operand"))
    total = 0.0
    for argument in argv[1:]:
        if argument in ("inf", "infinity"):
            yield FOREVER
            return 0
        match = re.fullmatch(r"(\d+\.?\d*|\.\d+)([smhd]?)", argument)
        if match is None:
            return (yield from fail(streams, "sleep", f"invalid time interval '{argument}'"))
        total += float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]
    if total > 0:
        yield Sleep(total)
    return 0


@builtin("exit")
def exit_(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    code = shell.status
    if len(argv) > 1:
        if not argv[1].lstrip("-").isdigit():
            yield from write(streams.stderr, f"{shell.name}: 1: exit: Illegal number: {argv[1]}\n")
            raise ShellExit(2)
        code = int(argv[1]) & 0xFF
    raise ShellExit(code)


@builtin("break", "continue")
def loop_control(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    levels = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() and int(argv[1]) > 0 else 1
    if shell._loops:
        raise LoopControl(argv[0], min(levels, shell._loops))
    return 0
    yield


@builtin("export")
def export(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    names = [argument for argument in argv[1:] if argument != "-p"]
    if not names:
        listing = "".join(f"export {name}={shlex.quote(value)}\n" for name, value in shell.environment().items())
        yield from write(streams.stdout, listing)
        return 0
    for argument in names:
        name, has_value, value = argument.partition("=")
        if has_value:
            shell.variables[name] = value
        shell.exported.add(name)
    return 0


@builtin("unset")
def unset(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    for name in argv[1:]:
        if name in ("-v", "-f"):
            continue
        shell.variables.pop(name, None)
        shell.exported.discard(name)
    return 0
    yield


@builtin("set")
def set_(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    """`set -e`/`+e`, `set -- args` (positional parameters), `set -o pipefail` (accepted); alone it lists
    the variables."""
    arguments = argv[1:]
    if not arguments:
        yield from write(streams.stdout, "".join(f"{name}={shlex.quote(value)}\n"
                                                 for name, value in sorted(shell.variables.items())))
        return 0
    while arguments:
        argument = arguments.pop(0)
        if argument == "--":
            shell.arguments = arguments
            return 0
        if argument in ("-o", "+o"):
            if arguments:
                arguments.pop(0)
            continue
        if argument[:1] in "-+" and len(argument) > 1:
            if "e" in argument:
                shell.errexit = argument[0] == "-"
            continue
        shell.arguments = [argument, *arguments]
        return 0
    return 0


@builtin("shift")
def shift(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    count = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
    if count > len(shell.arguments):
        yield from write(streams.stderr, f"{shell.name}: 1: shift: can't shift that many\n")
        return 2
    shell.arguments = shell.arguments[count:]
    return 0


@builtin("cd")
def cd(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    target = argv[1] if len(argv) > 1 else shell.variables.get("HOME", "/")
    if target == "-":
        target = shell.variables.get("OLDPWD", shell.cwd)
    path = shell.path(target)
    if not shell.system.files.is_dir(path):
        yield from write(streams.stderr, f"{shell.name}: 1: cd: can't cd to {target}\n")
        return 2
    shell.variables["OLDPWD"] = shell.cwd
    shell.cwd = path
    shell.variables["PWD"] = path
    return 0


@builtin("pwd")
def pwd(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    yield from write(streams.stdout, shell.cwd + "\n")
    return 0


@builtin("basename")
def basename(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    if len(argv) < 2:
        return (yield from fail(streams, "basename", "missing operand"))
    name = posixpath.basename(argv[1].rstrip("/")) or ("/" if argv[1].startswith("/") else "")
    if len(argv) > 2 and name.endswith(argv[2]) and name != argv[2]:
        name = name[:-len(argv[2])]
    yield from write(streams.stdout, name + "\n")
    return 0


@builtin("dirname")
def dirname(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    if len(argv) < 2:
        return (yield from fail(streams, "dirname", "missing operand"))
    path = argv[1].rstrip("/") or "/"
    yield from write(streams.stdout, (posixpath.dirname(path) or ".") + "\n")
    return 0


@builtin("seq")
def seq(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    try:
        numbers = [int(argument) for argument in argv[1:]]
    except ValueError:
        return (yield from fail(streams, "seq", f"invalid argument: {argv[1:]}"))
    if not 1 <= len(numbers) <= 3:
        return (yield from fail(streams, "seq", "missing operand"))
    first, step, last = (1, 1, numbers[0]) if len(numbers) == 1 else (
        (numbers[0], 1, numbers[1]) if len(numbers) == 2 else (numbers[0], numbers[1], numbers[2]))
    if step == 0:
        return (yield from fail(streams, "seq", "invalid Zero increment value: '0'"))
    values = range(first, last + (1 if step > 0 else -1), step)
    if len(values) > 1_000_000:
        return (yield from fail(streams, "seq", "too many numbers"))
    for start in range(0, len(values), 4096):
        yield from write(streams.stdout, "".join(f"{value}\n" for value in values[start:start + 4096]))
    return 0


@builtin("which")
def which(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    status = 0
    for name in argv[1:]:
        if name in BUILTINS:
            yield from write(streams.stdout, f"/bin/{name}\n")
        else:
            status = 1
    return status


@builtin("exec")
def exec_(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    """`exec cmd args`: the command takes the shell's place (the shell ends with its status)."""
    if len(argv) == 1:
        return 0
    status = yield from shell.execute(argv[1:], streams)
    raise ShellExit(status)


@builtin("command")
def command(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    arguments = argv[1:]
    if arguments and arguments[0] in ("-v", "-V"):
        status = 0
        for name in arguments[1:]:
            if name in BUILTINS:
                yield from write(streams.stdout, f"/bin/{name}\n" if name not in ("cd", "exit", "export") else
                                 f"{name}\n")
            else:
                status = 127
        return status
    if not arguments:
        return 0
    return (yield from shell.execute(arguments, streams))


@builtin("read")
def read_(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    """Read a line into variables (the last takes the rest); 1 at end of file."""
    options = _options(argv, "r", "p")
    if isinstance(options, str):
        return (yield from fail(streams, "read", options, 2))
    if "p" in options.flags:
        yield from write(streams.stderr, options.value("p"))
    line = bytearray()
    ended = False
    while True:
        chunk = yield from read(streams.stdin, 4096)
        if not chunk:
            ended = True
            break
        newline = chunk.find(b"\n")
        if newline != -1:
            line += chunk[:newline]
            streams.stdin.unread(chunk[newline + 1:])
            break
        line += chunk
        if len(line) > LINE_LIMIT:
            break
    text = line.decode(errors="replace")
    if "r" not in options.flags:
        text = re.sub(r"\\(.)", r"\1", text)
    names = options.operands or ["REPLY"]
    fields = text.split(None, len(names) - 1) if names != ["REPLY"] else [text]
    for index, name in enumerate(names):
        shell.variables[name] = fields[index].strip() if index < len(fields) else ""
    return 1 if ended and not line else 0


@builtin("test", "[")
def test(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    arguments = argv[1:]
    if argv[0] == "[":
        if not arguments or arguments[-1] != "]":
            return (yield from fail(streams, f"{shell.name}: 1: [", "missing ]", 2))
        arguments = arguments[:-1]
    try:
        return 0 if _test(shell, arguments) else 1
    except ValueError as error:
        return (yield from fail(streams, f"{shell.name}: 1: {argv[0]}", str(error), 2))


@builtin(*SHELL_NAMES)
def sh(shell: Shell, streams: Streams, argv: list[str]) -> Program:
    """`sh -c 'script' [name [args...]]`, `sh script [args...]`, or commands read from stdin (a prompt
    with `-i` or a terminal)."""
    name = posixpath.basename(argv[0])
    arguments = argv[1:]
    script: str | None = None
    errexit = interactive = False
    while arguments and arguments[0].startswith("-") and arguments[0] not in ("-", "--"):
        flags = arguments.pop(0)[1:]
        if "c" in flags:
            if not arguments:
                return (yield from fail(streams, name, "-c requires an argument", 2))
            script = arguments.pop(0)
        errexit = errexit or "e" in flags
        interactive = interactive or "i" in flags
    if arguments and arguments[0] == "--":
        arguments.pop(0)
    if shell.depth >= 50:
        return (yield from fail(streams, name, "too many nested shells", 2))
    if script is not None:
        child = shell.spawn(arguments[1:], arguments[0] if arguments else name)
        child.errexit = errexit
        return (yield from child.run_text(script, streams))
    if arguments and arguments[0] != "-":
        path = shell.path(arguments[0])
        try:
            text = shell.system.files.read(path).decode(errors="replace")
        except FileError:
            return (yield from fail(streams, name, f"0: cannot open {arguments[0]}: No such file", 2))
        child = shell.spawn(arguments[1:], arguments[0])
        child.errexit = errexit
        return (yield from child.run_text(text, streams))
    child = shell.spawn(arguments[1:] if arguments else [], name)
    child.errexit, child.interactive = errexit, interactive or shell.interactive
    return (yield from _read_commands(child, streams))


def _read_commands(shell: Shell, streams: Streams) -> Program:
    """Run commands as lines arrive on stdin, until end of file or `exit`."""
    pending = ""
    status = 0
    while True:
        if shell.interactive:
            yield from write(streams.stderr, PROMPT if not pending else "> ")
        line = bytearray()
        ended = False
        while True:
            chunk = yield from read(streams.stdin, 4096)
            if not chunk:
                ended = True
                break
            newline = chunk.find(b"\n")
            if newline == -1:
                line += chunk
                continue
            line += chunk[:newline + 1]
            streams.stdin.unread(chunk[newline + 1:])
            break
        pending += line.decode(errors="replace")
        if ended and not pending.strip():
            return status
        try:
            program = parse_program(pending)
        except ParseError as error:
            if not ended and "end of file unexpected" in str(error) or "Unterminated" in str(error) and not ended:
                continue
            yield from write(streams.stderr, f"{shell.name}: 1: {error}\n")
            pending = ""
            status = 2
            if ended:
                return status
            continue
        pending = ""
        try:
            status = yield from shell.run(program, streams)
        except ShellExit as done:
            return done.code
        except LoopControl:
            pass
        if ended:
            return status


# ---- helpers


def _options(argv: list[str], flags: str, valued: str = "") -> Options | str:
    try:
        return parse(argv[1:], flags, valued)
    except UsageError as error:
        return str(error)


def _escapes(text: str) -> tuple[str, bool]:
    """echo's and printf %b's backslash escapes; True when `\\c` stopped the output."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char != "\\" or index + 1 >= len(text):
            out.append(char)
            index += 1
            continue
        following = text[index + 1]
        index += 2
        simple = {"n": "\n", "t": "\t", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "r": "\r", "v": "\v",
                  "e": "\x1b"}
        if following in simple:
            out.append(simple[following])
        elif following == "c":
            return "".join(out), True
        elif following == "0":
            digits = re.match(r"[0-7]{0,3}", text[index:])
            assert digits is not None
            out.append(chr(int(digits.group(0) or "0", 8)))
            index += len(digits.group(0))
        else:
            out.append("\\" + following)
    return "".join(out), False


_CONVERSION = re.compile(r"%([-+ #0]*)(\d*|\*)(?:\.(\d*|\*))?([diouxXcsbeEfgG%])")


def _format(template: str, arguments: list[str]) -> tuple[int, str, int]:
    """One pass of printf's format over `arguments`: how many it used, the text, 1 if a number was bad."""
    used = 0
    bad = 0

    def argument() -> str:
        nonlocal used
        if used < len(arguments):
            used += 1
            return arguments[used - 1]
        return ""

    def convert(match: re.Match[str]) -> str:
        nonlocal bad
        flags, width, precision, kind = match.groups()
        if kind == "%":
            return "%"
        if width == "*":
            width = argument() or "0"
        if precision == "*":
            precision = argument() or "0"
        spec = "%" + flags + width + (f".{precision}" if precision is not None else "")
        value = argument()
        if kind == "s":
            return (spec + "s") % value
        if kind == "b":
            return (spec + "s") % _escapes(value)[0]
        if kind == "c":
            return (spec + "s") % value[:1]
        try:
            if kind in "eEfgG":
                return (spec + kind) % float(value or 0)
            number = int(value or "0", 0) if not (value.startswith("'") or value.startswith('"')) else ord(value[1:2])
        except ValueError:
            bad = 1
            number = 0
        return (spec + ("d" if kind in "iu" else kind)) % number

    text = _escapes_printf(_CONVERSION.sub(convert, template))
    return used, text, bad


def _escapes_printf(text: str) -> str:
    return _escapes(text)[0]


def _strftime(when: datetime, template: str) -> str:
    text = template.replace("%N", f"{when.microsecond * 1000:09d}").replace("%s", str(int(when.timestamp())))
    text = text.replace("%e", f"{when.day:2d}").replace("%:z", "+00:00").replace("%z", "+0000")
    return when.strftime(text).replace("%Z", "UTC")


def _test(shell: Shell, arguments: list[str]) -> bool:
    """test's expression: -e -f -d -s -r -w -x -z -n, = != < >, -eq -ne -lt -le -gt -ge, !, -a, -o, ( )."""
    if not arguments:
        return False
    if "-o" in arguments[1:-1]:
        index = arguments.index("-o", 1)
        return _test(shell, arguments[:index]) or _test(shell, arguments[index + 1:])
    if "-a" in arguments[1:-1]:
        index = arguments.index("-a", 1)
        return _test(shell, arguments[:index]) and _test(shell, arguments[index + 1:])
    if arguments[0] == "!" and len(arguments) > 1:
        return not _test(shell, arguments[1:])
    if arguments[0] == "(" and arguments[-1] == ")" and len(arguments) > 2:
        return _test(shell, arguments[1:-1])
    if len(arguments) == 1:
        return arguments[0] != ""
    if len(arguments) == 2:
        operator, operand = arguments
        files = shell.system.files
        path = shell.path(operand) if operand else ""
        entry = files.stat(path) if path else None
        unary: dict[str, Callable[[], bool]] = {
            "-z": lambda: operand == "", "-n": lambda: operand != "", "-e": lambda: entry is not None,
            "-f": lambda: entry is not None and not entry.is_dir, "-d": lambda: entry is not None and entry.is_dir,
            "-s": lambda: entry is not None and entry.size > 0, "-r": lambda: entry is not None,
            "-w": lambda: entry is not None, "-x": lambda: entry is not None and bool(entry.mode & 0o111),
            "-L": lambda: False, "-h": lambda: False, "-p": lambda: False, "-S": lambda: False,
            "-b": lambda: False, "-c": lambda: path in ("/dev/null", "/dev/tty"), "-t": lambda: False,
        }
        if operator in unary:
            return bool(unary[operator]())
        raise ValueError(f"{operator}: unexpected operator")
    if len(arguments) == 3:
        left, operator, right = arguments
        if operator in ("=", "=="):
            return left == right
        if operator == "!=":
            return left != right
        if operator == "<":
            return left < right
        if operator == ">":
            return left > right
        numeric = {"-eq": lambda a, b: a == b, "-ne": lambda a, b: a != b, "-lt": lambda a, b: a < b,
                   "-le": lambda a, b: a <= b, "-gt": lambda a, b: a > b, "-ge": lambda a, b: a >= b}
        if operator in numeric:
            try:
                return bool(numeric[operator](int(left), int(right)))
            except ValueError:
                bad = left if not left.lstrip("-").isdigit() else right
                raise ValueError(f"Illegal number: {bad}") from None
        raise ValueError(f"{operator}: unexpected operator")
    raise ValueError(f"{arguments[1]}: unexpected operator")

