"""The built-in shell: runs a parsed program (syntax.py) as a generator of effects (fakeapi.processes.effects).

Expansion is POSIX's: parameters and command substitutions, arithmetic, field splitting of unquoted
results on blanks, pathname expansion (`*`, `?`, `[...]`) against the container's files, quote removal.
Pipelines run their stages one after the other through memory (enough for what runs in a container's
exec: `tar cf - dir | tail -c+5`, `echo hi | cat`). `exit`, `break` and `continue` work as in sh; `set -e`
stops at the first failing command outside a condition.
"""

from __future__ import annotations

import ast
import fnmatch
import posixpath
import re
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fakeapi.processes.effects import (
    FOREVER,
    NULL,
    TICK,
    Buffer,
    BufferedInput,
    Effect,
    Input,
    Output,
    Program,
    Streams,
    write,
)
from fakeapi.processes.files import ContainerFiles, FileError, normalize
from fakeapi.processes.shell import syntax
from fakeapi.processes.shell.syntax import (
    AndOr,
    Arithmetic,
    Case,
    For,
    Group,
    If,
    Literal,
    Loop,
    Node,
    Parameter,
    ParseError,
    Pipeline,
    Redirect,
    Sequence,
    Simple,
    Substitution,
    Word,
)

NOT_FOUND = 127
GLOB_CHARS = re.compile(r"[*?\[]")
MAX_CALL_DEPTH = 50  # shells started by shells


@dataclass
class System:
    """What the shell's commands see of their container."""

    files: ContainerFiles
    hostname: str
    now: Callable[[], datetime]
    pid: int = 1
    # a command the shell does not know: the image would have it (a container's own command), so it runs
    # until the container is stopped; in an exec session it is not found (127)
    unknown_runs_forever: bool = False


class ShellExit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class LoopControl(Exception):
    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.levels = levels


Builtin = Callable[["Shell", Streams, list[str]], Program]
# the commands the shell has, by name (filled by fakeapi.processes.shell.commands and the modules beside it)
BUILTINS: dict[str, Builtin] = {}
# POSIX's special built-ins: assignments before them stay in the shell
SPECIAL_BUILTINS = frozenset({":", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return",
                              "set", "shift", "unset", "."})


def builtin(*names: str) -> Callable[[Builtin], Builtin]:
    """Register a command under `names`."""

    def register(command: Builtin) -> Builtin:
        for name in names:
            BUILTINS[name] = command
        return command

    return register


@dataclass
class Shell:
    system: System
    variables: dict[str, str]
    exported: set[str]
    arguments: list[str] = field(default_factory=list)
    name: str = "sh"
    cwd: str = "/"
    status: int = 0
    errexit: bool = False
    interactive: bool = False
    depth: int = 0
    _conditions: int = 0  # inside an if/while condition or && ||: set -e does not apply
    _loops: int = 0

    @classmethod
    def start(cls, system: System, environment: dict[str, str], arguments: list[str] | None = None,
              name: str = "sh", cwd: str = "/") -> Shell:
        return cls(system, dict(environment), set(environment), list(arguments or []), name, cwd)

    def child(self) -> Shell:
        """A subshell: a copy of this shell's state."""
        return Shell(self.system, dict(self.variables), set(self.exported), list(self.arguments), self.name,
                     self.cwd, self.status, self.errexit, False, self.depth, self._conditions, self._loops)

    def spawn(self, arguments: list[str], name: str) -> Shell:
        """A new shell process started by this one: it inherits the exported variables only."""
        environment = self.environment()
        return Shell(self.system, environment, set(environment), arguments, name, self.cwd, depth=self.depth + 1)

    def environment(self) -> dict[str, str]:
        return {name: value for name, value in self.variables.items() if name in self.exported}

    def path(self, path: str) -> str:
        return normalize(path, self.cwd)

    # ---- running

    def run_text(self, text: str, streams: Streams) -> Program:
        """Parse and run `text` as a script (a syntax error is reported as sh reports it: 2)."""
        try:
            program = syntax.parse(text)
        except ParseError as error:
            yield from write(streams.stderr, f"{self.name}: 1: {error}\n")
            return 2
        return (yield from self.run_program(program, streams))

    def run_program(self, node: Node, streams: Streams) -> Program:
        """Run a whole program: `exit` ends it with its code."""
        try:
            status = yield from self.run(node, streams)
        except ShellExit as done:
            status = done.code
        except LoopControl:
            status = self.status
        except ShellError as error:
            yield from write(streams.stderr, f"{self.name}: 1: {error}\n")
            status = 2
        self.status = status
        return status

    def run(self, node: Node, streams: Streams) -> Program:
        if isinstance(node, Simple):
            status = yield from self._simple(node, streams)
        elif isinstance(node, Sequence):
            status = 0
            for item in node.items:
                status = yield from self.run(item, streams)
        elif isinstance(node, AndOr):
            status = yield from self._and_or(node, streams)
        elif isinstance(node, Pipeline):
            status = yield from self._pipeline(node, streams)
        else:
            status = yield from self._compound(node, streams)
        self.status = status
        return status

    def _and_or(self, node: AndOr, streams: Streams) -> Program:
        self._conditions += 1
        try:
            status = yield from self.run(node.first, streams)
            for index, (operator, pipeline) in enumerate(node.rest):
                if (operator == "&&") == (status == 0):
                    last = index == len(node.rest) - 1
                    if last:
                        self._conditions -= 1
                    try:
                        status = yield from self.run(pipeline, streams)
                    finally:
                        if last:
                            self._conditions += 1
        finally:
            self._conditions -= 1
        return status

    def _pipeline(self, node: Pipeline, streams: Streams) -> Program:
        """Each stage in a subshell of its own (a single command negated runs in this shell), the output of
        one the input of the next."""
        source: Input = streams.stdin
        status = 0
        for index, command in enumerate(node.commands):
            last = index == len(node.commands) - 1
            sink: Output = streams.stdout if last else Buffer()
            stage_streams = streams.with_(stdin=source, stdout=sink)
            self._conditions += node.negated
            try:
                if len(node.commands) == 1:
                    status = yield from self.run(command, stage_streams)
                else:
                    status = yield from self.child().run_program(command, stage_streams)
            finally:
                self._conditions -= node.negated
            if isinstance(sink, Buffer) and not last:
                source = Buffer(sink.getvalue())
        return int(status == 0) if node.negated else status

    def _compound(self, node: Node, streams: Streams) -> Program:
        redirects = getattr(node, "redirects", ())
        redirected = yield from self._redirected(redirects, streams)
        if redirected is None:
            return 1
        streams, flush = redirected
        try:
            if isinstance(node, Group):
                if node.subshell:
                    status = yield from self.child().run_program(node.body, streams)
                else:
                    status = yield from self.run(node.body, streams)
            elif isinstance(node, If):
                status = yield from self._if(node, streams)
            elif isinstance(node, Loop):
                status = yield from self._loop(node, streams)
            elif isinstance(node, For):
                status = yield from self._for(node, streams)
            elif isinstance(node, Case):
                status = yield from self._case(node, streams)
            else:  # pragma: no cover - the parser makes no other node
                raise TypeError(node)
        finally:
            error = flush()
        if error:
            yield from write(streams.stderr, error)
            return 1
        return status

    def _condition(self, node: Node, streams: Streams) -> Program:
        self._conditions += 1
        try:
            return (yield from self.run(node, streams))
        finally:
            self._conditions -= 1

    def _if(self, node: If, streams: Streams) -> Program:
        for condition, body in node.branches:
            if (yield from self._condition(condition, streams)) == 0:
                return (yield from self.run(body, streams))
        if node.otherwise is not None:
            return (yield from self.run(node.otherwise, streams))
        return 0

    def _loop(self, node: Loop, streams: Streams) -> Program:
        status = 0
        self._loops += 1
        try:
            while True:
                yield TICK
                condition = yield from self._condition(node.condition, streams)
                if (condition == 0) == node.until:
                    return status
                try:
                    status = yield from self.run(node.body, streams)
                except LoopControl as control:
                    if control.levels > 1:
                        control.levels -= 1
                        raise
                    if control.kind == "break":
                        return 0
        finally:
            self._loops -= 1

    def _for(self, node: For, streams: Streams) -> Program:
        items = list(self.arguments) if node.items is None else (yield from self.expand_words(node.items))
        status = 0
        self._loops += 1
        try:
            for item in items:
                yield TICK
                self.variables[node.name] = item
                try:
                    status = yield from self.run(node.body, streams)
                except LoopControl as control:
                    if control.levels > 1:
                        control.levels -= 1
                        raise
                    if control.kind == "break":
                        return 0
        finally:
            self._loops -= 1
        return status

    def _case(self, node: Case, streams: Streams) -> Program:
        subject = yield from self.expand_string(node.subject)
        for patterns, body in node.arms:
            for pattern in patterns:
                text = yield from self._pattern(pattern)
                if fnmatch.fnmatchcase(subject, text):
                    return (yield from self.run(body, streams))
        return 0

    # ---- simple commands

    def _simple(self, node: Simple, streams: Streams) -> Program:
        yield TICK
        argv = yield from self.expand_words(node.words)
        assignments = {}
        for name, word in node.assignments:
            assignments[name] = yield from self.expand_string(word)
        redirected = yield from self._redirected(node.redirects, streams)
        if redirected is None:
            return self._failed(1)
        streams, flush = redirected
        try:
            if not argv:
                self.variables.update(assignments)
                status = 0
            else:
                status = yield from self.execute(argv, streams, assignments)
        finally:
            error = flush()
        if error:
            yield from write(streams.stderr, error)
            status = 1
        return self._failed(status)

    def _failed(self, status: int) -> int:
        if status != 0 and self.errexit and not self._conditions:
            raise ShellExit(status)
        return status

    def execute(self, argv: list[str], streams: Streams, assignments: dict[str, str] | None = None) -> Program:
        """Run the command `argv` names: a built-in, else (not found) 127 or, in a container's own command,
        until the container stops."""
        name = argv[0]
        command = BUILTINS.get(posixpath.basename(name) if "/" in name and _on_path(name) else name)
        if command is None:
            if self.system.unknown_runs_forever:
                yield FOREVER
                return 0
            yield from write(streams.stderr, f"{self.name}: {name}: command not found\n" if self.depth else
                             f"{name}: command not found\n")
            return NOT_FOUND
        if not assignments:
            return (yield from command(self, streams, argv))
        if name in SPECIAL_BUILTINS:  # their assignments stay, as POSIX says
            self.variables.update(assignments)
            return (yield from command(self, streams, argv))
        saved = {key: self.variables.get(key) for key in assignments}
        saved_exported = set(self.exported)
        self.variables.update(assignments)
        self.exported.update(assignments)
        try:
            return (yield from command(self, streams, argv))
        finally:
            for key, value in saved.items():
                if value is None:
                    self.variables.pop(key, None)
                else:
                    self.variables[key] = value
            self.exported = saved_exported

    def _redirected(self, redirects: tuple[Redirect, ...],
                    streams: Streams) -> Generator[Effect, Any, tuple[Streams, Callable[[], str]] | None]:
        """Streams with the redirections applied, and what writes the redirected files once the command is
        done (it returns an error message, or ""). None when a redirection cannot be made (reported)."""
        pending: list[tuple[str, Buffer, bool]] = []
        files = self.system.files
        for redirect in redirects:
            target = yield from self.expand_string(redirect.target)
            operator, fd = redirect.operator, redirect.fd
            if operator in (">&", "<&"):
                if target == "-":
                    streams = _set_fd(streams, fd, NULL)
                    continue
                if not target.isdigit() or int(target) > 2:
                    yield from write(streams.stderr, f"{self.name}: {target}: Bad file descriptor\n")
                    return None
                source = {0: streams.stdin, 1: streams.stdout, 2: streams.stderr}[int(target)]
                streams = _set_fd(streams, fd, source)
                continue
            special = {"/dev/null": NULL, "/dev/stdout": streams.stdout, "/dev/stderr": streams.stderr,
                       "/dev/stdin": streams.stdin}.get(self.path(target) if target else "")
            if special is not None:
                streams = _set_fd(streams, fd, special)
                continue
            path = self.path(target)
            try:
                if operator in ("<", "<>"):
                    if operator == "<>" and not files.exists(path):
                        files.write(path, b"", self.system.now().timestamp())
                    streams = _set_fd(streams, fd, Buffer(files.read(path)))
                else:
                    append = operator == ">>"
                    if not append or not files.exists(path):
                        files.write(path, b"", self.system.now().timestamp())
                    elif files.is_dir(path):
                        raise FileError("EISDIR", path)
                    buffer = Buffer()
                    pending.append((path, buffer, True))
                    streams = _set_fd(streams, fd, buffer)
            except FileError as error:
                what = "can't create" if operator in (">", ">>") else "can't open"
                yield from write(streams.stderr, f"{self.name}: {what} {target}: {error.reason}\n")
                return None

        def flush() -> str:
            for path, buffer, append in pending:
                try:
                    files.write(path, buffer.getvalue(), self.system.now().timestamp(), append=append)
                except FileError as error:
                    return f"{self.name}: write error: {error.reason}\n"
            return ""

        return streams, flush

    # ---- expansion

    def expand_words(self, words: tuple[Word, ...]) -> Generator[Effect, Any, list[str]]:
        fields: list[str] = []
        for word in words:
            fields.extend((yield from self.expand_word(word)))
        return fields

    def expand_string(self, word: Word) -> Generator[Effect, Any, str]:
        """A word expanded without field splitting or pathname expansion (assignments, redirections)."""
        texts = []
        for part in word.parts:
            if isinstance(part, Literal):
                texts.append(part.text)
            elif isinstance(part, Parameter) and part.name == "@":
                texts.append(" ".join(self.arguments))
            else:
                texts.append((yield from self._expand_part(part)))
        return "".join(texts)

    def expand_word(self, word: Word) -> Generator[Effect, Any, list[str]]:
        fields: list[str] = []
        current: list[tuple[str, bool]] = []  # (text, may be globbed)
        keep = False

        def close() -> None:
            nonlocal current, keep
            if current or keep:
                fields.extend(self._glob(current))
            current, keep = [], False

        for part in word.parts:
            if isinstance(part, Literal):
                current.append((part.text, not part.quoted))
                keep = keep or part.quoted or bool(part.text)
                continue
            if isinstance(part, Parameter) and part.name == "@" and part.quoted and not part.operator:
                for index, argument in enumerate(self.arguments):
                    if index:
                        close()
                    current.append((argument, False))
                    keep = True
                continue
            value = yield from self._expand_part(part)
            if part.quoted:
                current.append((value, False))
                keep = True
                continue
            pieces = re.split(r"[ \t\n]+", value)
            for index, piece in enumerate(pieces):
                if index:
                    close()
                if piece:
                    current.append((piece, True))
                    keep = True
        close()
        return fields

    def _expand_part(self, part: Parameter | Substitution | Arithmetic) -> Generator[Effect, Any, str]:
        if isinstance(part, Parameter):
            return (yield from self._parameter(part))
        if isinstance(part, Substitution):
            output = Buffer()
            sub = self.child()
            sub.depth += 1
            if sub.depth > MAX_CALL_DEPTH:
                return ""
            yield from sub.run_program(part.program, Streams(BufferedInput(NULL), output, NULL))
            self.status = sub.status
            return output.getvalue().decode(errors="replace").rstrip("\n")
        expression = yield from self.expand_string(part.expression)
        return str(self.arithmetic(expression))

    def _parameter(self, part: Parameter) -> Generator[Effect, Any, str]:
        value = self.parameter(part.name)
        operator = part.operator
        if operator == "#":
            return str(len(value or ""))
        if not operator:
            return value or ""
        unset = value is None or (operator.startswith(":") and value == "")
        base = operator.lstrip(":")
        if base == "-":
            return (yield from self.expand_string(part.word)) if unset and part.word else (value or "")
        if base == "=":
            if unset:
                value = (yield from self.expand_string(part.word)) if part.word else ""
                self.variables[part.name] = value
            return value or ""
        if base == "+":
            return "" if unset else ((yield from self.expand_string(part.word)) if part.word else "")
        return value or ""

    def parameter(self, name: str) -> str | None:
        if name == "?":
            return str(self.status)
        if name == "#":
            return str(len(self.arguments))
        if name in ("@", "*"):
            return " ".join(self.arguments)
        if name == "$":
            return str(self.system.pid)
        if name == "0":
            return self.name
        if name == "-":
            return "e" if self.errexit else ""
        if name == "!":
            return ""
        if name.isdigit():
            index = int(name)
            return self.arguments[index - 1] if index <= len(self.arguments) else None
        return self.variables.get(name)

    def _pattern(self, word: Word) -> Generator[Effect, Any, str]:
        """A case pattern: quoted parts match themselves."""
        texts = []
        for part in word.parts:
            if isinstance(part, Literal):
                texts.append(_escape_glob(part.text) if part.quoted else part.text)
            else:
                value = yield from self._expand_part(part)
                texts.append(_escape_glob(value) if part.quoted else value)
        return "".join(texts)

    def _glob(self, segments: list[tuple[str, bool]]) -> list[str]:
        text = "".join(text for text, _globbed in segments)
        if not any(globbed and GLOB_CHARS.search(segment) for segment, globbed in segments):
            return [text]
        pattern = "".join(segment if globbed else _escape_glob(segment) for segment, globbed in segments)
        matches = self._matches(pattern)
        return matches or [text]

    def _matches(self, pattern: str) -> list[str]:
        absolute = pattern.startswith("/")
        components = [component for component in pattern.split("/") if component]
        found = ["/" if absolute else ""]
        files = self.system.files
        for component in components:
            next_found: list[str] = []
            for base in found:
                directory = self.path(base or ".")
                if not GLOB_CHARS.search(component):
                    candidate = posixpath.join(base, _unescape_glob(component)) if base else _unescape_glob(component)
                    if files.exists(self.path(candidate)):
                        next_found.append(candidate)
                    continue
                try:
                    names = [name for name, _entry in files.list(directory)]
                except FileError:
                    continue
                for name in names:
                    if name.startswith(".") and not component.startswith("."):
                        continue
                    if fnmatch.fnmatchcase(name, component):
                        next_found.append(posixpath.join(base, name) if base else name)
            found = next_found
        return sorted(found)

    def arithmetic(self, expression: str) -> int:
        """$((...)): integer arithmetic over variables (unset or non-numeric ones are 0)."""
        text = expression.replace("&&", " and ").replace("||", " or ")
        text = re.sub(r"!(?!=)", " not ", text)
        try:
            tree = ast.parse(text.strip() or "0", mode="eval")
        except SyntaxError:
            raise ShellError(f"arithmetic expression: expecting primary: \"{expression}\"") from None
        return _evaluate(tree.body, self)


class ShellError(Exception):
    """An error the shell reports and that ends the command it happened in."""


_ARITHMETIC_NODES = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Constant, ast.Name)
_INT64 = 2**63


def _evaluate(node: ast.AST, shell: Shell) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return _wrap(node.value)
    if isinstance(node, ast.Name):
        value = shell.variables.get(node.id, "0").strip() or "0"
        try:
            return _wrap(int(value, 0))
        except ValueError:
            return 0
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, shell)
        unary: dict[type, Callable[[int], int]] = {ast.USub: lambda x: -x, ast.UAdd: lambda x: x,
                                                   ast.Not: lambda x: int(not x), ast.Invert: lambda x: ~x}
        if type(node.op) in unary:
            return _wrap(unary[type(node.op)](operand))
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left, shell), _evaluate(node.right, shell)
        if isinstance(node.op, ast.Div | ast.FloorDiv | ast.Mod) and right == 0:
            raise ShellError("arithmetic expression: division by zero")
        binary: dict[type, Callable[[int, int], int]] = {
            ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
            ast.Div: lambda a, b: int(a / b), ast.FloorDiv: lambda a, b: int(a / b),
            ast.Mod: lambda a, b: a - b * int(a / b), ast.BitAnd: lambda a, b: a & b,
            ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
            ast.LShift: lambda a, b: a << min(b, 63), ast.RShift: lambda a, b: a >> min(b, 63)}
        if type(node.op) in binary:
            return _wrap(binary[type(node.op)](left, right))
    if isinstance(node, ast.Compare):
        compare: dict[type, Callable[[int, int], bool]] = {
            ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}
        left = _evaluate(node.left, shell)
        for operator, comparator in zip(node.ops, node.comparators, strict=True):
            right = _evaluate(comparator, shell)
            if type(operator) not in compare or not compare[type(operator)](left, right):
                return 0
            left = right
        return 1
    if isinstance(node, ast.BoolOp):
        values = [_evaluate(value, shell) for value in node.values]
        return int(all(values) if isinstance(node.op, ast.And) else any(values))
    raise ShellError("arithmetic expression: expecting primary")


def _wrap(value: int) -> int:
    """Two's complement at 64 bits, as sh's arithmetic is."""
    return (value + _INT64) % (2 * _INT64) - _INT64


def _set_fd(streams: Streams, fd: int, target: Any) -> Streams:
    if fd == 0:
        return streams.with_(stdin=target)
    if fd == 1:
        return streams.with_(stdout=target)
    if fd == 2:
        return streams.with_(stderr=target)
    return streams


def _escape_glob(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def _unescape_glob(text: str) -> str:
    return re.sub(r"\[([*?\[])\]", r"\1", text)


def _on_path(name: str) -> bool:
    """`/bin/sh`, `/usr/bin/env`: a built-in named by a path where images keep such programs."""
    return posixpath.dirname(name) in ("/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin")
