"""The built-in shell's language: a POSIX sh subset, parsed into a small tree.

Lists (`;`, `&&`, `||`, newlines), pipelines (`|`, `!`), simple commands with assignments and redirections
(`<`, `>`, `>>`, `2>`, `2>&1`, `>&2`), `{ ...; }`, `( ... )`, `if/elif/else/fi`, `while`, `until`,
`for x in ...; do ...; done`, `case ... esac`. Words keep their quoting for expansion: single quotes, double
quotes, backslashes, `$NAME`, `${NAME}`, `${NAME:-word}` (and `-`, `:=`, `=`, `:+`, `+`), `${#NAME}`,
`$?`, `$#`, `$@`, `$*`, `$$`, `$0`..`$9`, `$(...)`, backquotes and `$((...))`. Not parsed: functions,
here-documents, background jobs (`&` runs in the foreground).
"""

from __future__ import annotations

from dataclasses import dataclass, field

OPERATORS = ("&&", "||", ";;", ">>", ">&", "<&", "<>", "|", ";", "&", "<", ">", "(", ")")
RESERVED = frozenset({"if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "in", "case",
                      "esac", "{", "}", "!"})
SPECIAL_PARAMETERS = frozenset("?#@*$!-0123456789")
MAX_DEPTH = 100  # nesting beyond this is refused, not recursed into


class ParseError(Exception):
    """A syntax error, worded as dash words them (`Syntax error: end of file unexpected`)."""


# ---- words


@dataclass(frozen=True, slots=True)
class Literal:
    text: str
    quoted: bool  # inside quotes or escaped: no field splitting or pathname expansion


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    quoted: bool
    operator: str = ""  # "", ":-", "-", ":=", "=", ":+", "+", "#" (length)
    word: Word | None = None


@dataclass(frozen=True, slots=True)
class Substitution:
    program: Node
    quoted: bool


@dataclass(frozen=True, slots=True)
class Arithmetic:
    expression: Word
    quoted: bool


Part = Literal | Parameter | Substitution | Arithmetic


@dataclass(frozen=True, slots=True)
class Word:
    parts: tuple[Part, ...]

    @property
    def plain(self) -> str | None:
        """The word's text when it is one unquoted literal (a reserved word, an assignment's name...)."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Literal) and not self.parts[0].quoted:
            return self.parts[0].text
        return None


# ---- commands


@dataclass(frozen=True, slots=True)
class Redirect:
    fd: int
    operator: str  # "<", ">", ">>", ">&", "<&", "<>"
    target: Word


@dataclass(frozen=True, slots=True)
class Simple:
    assignments: tuple[tuple[str, Word], ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True, slots=True)
class Pipeline:
    commands: tuple[Node, ...]
    negated: bool


@dataclass(frozen=True, slots=True)
class AndOr:
    first: Node
    rest: tuple[tuple[str, Node], ...]  # ("&&" | "||", pipeline)


@dataclass(frozen=True, slots=True)
class Sequence:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Group:
    body: Node
    subshell: bool
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True, slots=True)
class If:
    branches: tuple[tuple[Node, Node], ...]  # (condition, body)
    otherwise: Node | None
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True, slots=True)
class Loop:
    condition: Node
    body: Node
    until: bool
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True, slots=True)
class For:
    name: str
    items: tuple[Word, ...] | None  # None: "$@"
    body: Node
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True, slots=True)
class Case:
    subject: Word
    arms: tuple[tuple[tuple[Word, ...], Node], ...]
    redirects: tuple[Redirect, ...] = ()


Node = Simple | Pipeline | AndOr | Sequence | Group | If | Loop | For | Case


# ---- lexing


@dataclass
class Token:
    kind: str  # "word", "op", "newline", "end"
    value: str = ""
    word: Word | None = None


@dataclass
class _Lexer:
    text: str
    position: int = 0
    depth: int = 0
    tokens: list[Token] = field(default_factory=list)

    def run(self) -> list[Token]:
        text = self.text
        while True:
            self._skip_blanks()
            if self.position >= len(text):
                self.tokens.append(Token("end"))
                return self.tokens
            char = text[self.position]
            if char == "\n":
                self.position += 1
                self.tokens.append(Token("newline"))
            elif char == "#" and self._at_word_start():
                while self.position < len(text) and text[self.position] != "\n":
                    self.position += 1
            elif char.isdigit() and self._io_number():
                continue
            elif any(text.startswith(op, self.position) for op in OPERATORS):
                operator = next(op for op in OPERATORS if text.startswith(op, self.position))
                self.position += len(operator)
                self.tokens.append(Token("op", operator))
            else:
                self.tokens.append(self._word())

    def _at_word_start(self) -> bool:
        return self.position == 0 or self.text[self.position - 1] in " \t\n;&|()<>"

    def _skip_blanks(self) -> None:
        text = self.text
        while self.position < len(text):
            if text[self.position] in " \t":
                self.position += 1
            elif text.startswith("\\\n", self.position):
                self.position += 2
            else:
                return

    def _io_number(self) -> bool:
        """`2>` and `2>&1`: a number right before a redirection is the file descriptor."""
        end = self.position
        while end < len(self.text) and self.text[end].isdigit():
            end += 1
        if end < len(self.text) and self.text[end] in "<>" and self._at_word_start():
            self.tokens.append(Token("io", self.text[self.position:end]))
            self.position = end
            return True
        return False

    def _word(self) -> Token:
        parts: list[Part] = []
        text = self.text
        buffer: list[str] = []

        def flush(quoted: bool = False) -> None:
            if buffer:
                parts.append(Literal("".join(buffer), quoted))
                buffer.clear()

        raw_start = self.position
        while self.position < len(text):
            char = text[self.position]
            if char in " \t\n;&|()<>":
                break
            if char == "\\":
                flush()
                if self.position + 1 < len(text):
                    if text[self.position + 1] != "\n":
                        parts.append(Literal(text[self.position + 1], True))
                    self.position += 2
                else:
                    buffer.append("\\")
                    self.position += 1
            elif char == "'":
                flush()
                end = text.find("'", self.position + 1)
                if end == -1:
                    raise ParseError("Syntax error: Unterminated quoted string")
                parts.append(Literal(text[self.position + 1:end], True))
                self.position = end + 1
            elif char == '"':
                flush()
                self.position += 1
                parts.extend(self._double_quoted())
            elif char == "$" or char == "`":
                flush()
                parts.append(self._dollar(quoted=False))
            else:
                buffer.append(char)
                self.position += 1
        flush()
        return Token("word", text[raw_start:self.position], Word(tuple(parts)))

    def _double_quoted(self) -> list[Part]:
        parts: list[Part] = []
        buffer: list[str] = []
        text = self.text
        while True:
            if self.position >= len(text):
                raise ParseError("Syntax error: Unterminated quoted string")
            char = text[self.position]
            if char == '"':
                self.position += 1
                break
            if char == "\\" and self.position + 1 < len(text) and text[self.position + 1] in '$`"\\\n':
                if text[self.position + 1] != "\n":
                    buffer.append(text[self.position + 1])
                self.position += 2
            elif char in "$`":
                if buffer:
                    parts.append(Literal("".join(buffer), True))
                    buffer.clear()
                parts.append(self._dollar(quoted=True))
            else:
                buffer.append(char)
                self.position += 1
        if buffer or not parts:
            parts.append(Literal("".join(buffer), True))
        return parts

    def _dollar(self, quoted: bool) -> Part:
        text = self.text
        start = self.position
        if text[start] == "`":
            end = text.find("`", start + 1)
            if end == -1:
                raise ParseError("Syntax error: EOF in backquote substitution")
            self.position = end + 1
            return Substitution(parse(text[start + 1:end], self.depth + 1), quoted)
        self.position += 1
        if text.startswith("((", self.position):
            end = _closing(text, self.position + 2, "((", "))")
            expression = _Lexer(text[self.position + 2:end], depth=self.depth + 1)
            self.position = end + 2
            return Arithmetic(expression.expression_word(), quoted)
        if text.startswith("(", self.position):
            end = _closing(text, self.position + 1, "(", ")")
            program = parse(text[self.position + 1:end], self.depth + 1)
            self.position = end + 1
            return Substitution(program, quoted)
        if text.startswith("{", self.position):
            end = _closing(text, self.position + 1, "{", "}")
            inner = text[self.position + 1:end]
            self.position = end + 1
            return self._braced(inner, quoted)
        if self.position < len(text) and text[self.position] in SPECIAL_PARAMETERS:
            self.position += 1
            return Parameter(text[self.position - 1], quoted)
        end = self.position
        while end < len(text) and (text[end].isalnum() or text[end] == "_"):
            end += 1
        if end == self.position or text[self.position].isdigit():
            return Literal("$", quoted)
        name = text[self.position:end]
        self.position = end
        return Parameter(name, quoted)

    def _braced(self, inner: str, quoted: bool) -> Parameter:
        if inner.startswith("#") and len(inner) > 1:
            return Parameter(inner[1:], quoted, "#")
        name_end = 0
        if inner and inner[0] in SPECIAL_PARAMETERS:
            name_end = 1
        else:
            while name_end < len(inner) and (inner[name_end].isalnum() or inner[name_end] == "_"):
                name_end += 1
        name, rest = inner[:name_end], inner[name_end:]
        if not name:
            raise ParseError(f"Syntax error: Bad substitution ${{{inner}}}")
        if not rest:
            return Parameter(name, quoted)
        for operator in (":-", ":=", ":+", "-", "=", "+"):
            if rest.startswith(operator):
                word = _Lexer(rest[len(operator):], depth=self.depth + 1).expression_word(quoted)
                return Parameter(name, quoted, operator, word)
        raise ParseError(f"Syntax error: Bad substitution ${{{inner}}}")

    def expression_word(self, quoted: bool = False) -> Word:
        """The whole text as one word (an arithmetic expression, a ${...} operand): $ expansions and
        quotes are honoured, blanks kept."""
        parts: list[Part] = []
        buffer: list[str] = []
        text = self.text
        while self.position < len(text):
            char = text[self.position]
            if char in "$`":
                if buffer:
                    parts.append(Literal("".join(buffer), quoted))
                    buffer.clear()
                parts.append(self._dollar(quoted))
            elif char == "'" and not quoted:
                end = text.find("'", self.position + 1)
                if end == -1:
                    raise ParseError("Syntax error: Unterminated quoted string")
                buffer.append(text[self.position + 1:end])
                self.position = end + 1
            elif char == '"':
                if buffer:
                    parts.append(Literal("".join(buffer), quoted))
                    buffer.clear()
                self.position += 1
                parts.extend(self._double_quoted())
            else:
                buffer.append(char)
                self.position += 1
        if buffer:
            parts.append(Literal("".join(buffer), quoted))
        return Word(tuple(parts))


def _closing(text: str, start: int, opener: str, closer: str) -> int:
    """Where the `closer` matching an `opener` just before `start` begins (quotes skipped)."""
    depth = 1
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "'":
            end = text.find("'", index + 1)
            index = (end if end != -1 else len(text)) + 1
            continue
        if text.startswith(closer, index):
            depth -= 1
            if depth == 0:
                return index
            index += len(closer)
            continue
        if text.startswith(opener, index):
            depth += 1
            index += len(opener)
            continue
        index += 1
    raise ParseError(f"Syntax error: end of file unexpected (expecting \"{closer}\")")


# ---- parsing


def parse(text: str, depth: int = 0) -> Node:
    """The program `text` holds; ParseError when it is not well formed."""
    if depth > MAX_DEPTH:
        raise ParseError("Syntax error: nested too deeply")
    return _Parser(_Lexer(text, depth=depth).run(), depth).program()


@dataclass
class _Parser:
    tokens: list[Token]
    depth: int
    index: int = 0

    # -- helpers

    def peek(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def reserved(self, *words: str) -> bool:
        token = self.peek()
        return token.kind == "word" and token.word is not None and token.word.plain in words

    def is_op(self, *ops: str) -> bool:
        token = self.peek()
        return token.kind == "op" and token.value in ops

    def expect_reserved(self, word: str) -> None:
        if not self.reserved(word):
            raise self.unexpected(f'expecting "{word}"')
        self.advance()

    def unexpected(self, expecting: str = "") -> ParseError:
        token = self.peek()
        what = {"end": "end of file", "newline": "newline"}.get(token.kind, f'"{token.value}"')
        suffix = f" ({expecting})" if expecting else ""
        return ParseError(f"Syntax error: {what} unexpected{suffix}")

    def linebreak(self) -> None:
        while self.peek().kind == "newline":
            self.advance()

    def separators(self) -> None:
        while self.peek().kind == "newline" or self.is_op(";", "&"):
            self.advance()

    # -- grammar

    def program(self) -> Node:
        self.separators()
        node = self.compound_list((), allow_empty=True)
        if self.peek().kind != "end":
            raise self.unexpected()
        return node

    def compound_list(self, terminators: tuple[str, ...], allow_empty: bool = False) -> Node:
        """and_or lists up to a reserved word in `terminators` (or `)`, `;;`, end of input); one at least,
        as sh wants (`if then` is an error), but for a whole program and a case arm."""
        items: list[Node] = []
        self.separators()
        while True:
            token = self.peek()
            if token.kind == "end" or self.reserved(*terminators) or self.is_op(")", ";;"):
                break
            items.append(self.and_or())
            if not (self.peek().kind == "newline" or self.is_op(";", "&")):
                break
            self.separators()
        if not items and not allow_empty:
            raise self.unexpected()
        return items[0] if len(items) == 1 else Sequence(tuple(items))

    def and_or(self) -> Node:
        first = self.pipeline()
        rest: list[tuple[str, Node]] = []
        while self.is_op("&&", "||"):
            operator = self.advance().value
            self.linebreak()
            rest.append((operator, self.pipeline()))
        return AndOr(first, tuple(rest)) if rest else first

    def pipeline(self) -> Node:
        negated = False
        if self.reserved("!"):
            self.advance()
            negated = True
        commands = [self.command()]
        while self.is_op("|"):
            self.advance()
            self.linebreak()
            commands.append(self.command())
        if len(commands) == 1 and not negated:
            return commands[0]
        return Pipeline(tuple(commands), negated)

    def command(self) -> Node:
        if self.depth > MAX_DEPTH:
            raise ParseError("Syntax error: nested too deeply")
        self.depth += 1
        try:
            token = self.peek()
            if self.is_op("("):
                self.advance()
                body = self.compound_list(())
                if not self.is_op(")"):
                    raise self.unexpected('expecting ")"')
                self.advance()
                return Group(body, True, self.redirects())
            if token.kind == "word" and token.word is not None:
                keyword = token.word.plain
                if keyword == "{":
                    self.advance()
                    body = self.compound_list(("}",))
                    self.expect_reserved("}")
                    return Group(body, False, self.redirects())
                if keyword == "if":
                    return self.if_clause()
                if keyword in ("while", "until"):
                    self.advance()
                    condition = self.compound_list(("do",))
                    self.expect_reserved("do")
                    body = self.compound_list(("done",))
                    self.expect_reserved("done")
                    return Loop(condition, body, keyword == "until", self.redirects())
                if keyword == "for":
                    return self.for_clause()
                if keyword == "case":
                    return self.case_clause()
                if keyword in ("then", "elif", "else", "fi", "do", "done", "esac", "}", "in"):
                    raise self.unexpected()
            return self.simple()
        finally:
            self.depth -= 1

    def if_clause(self) -> Node:
        self.advance()
        branches: list[tuple[Node, Node]] = []
        otherwise: Node | None = None
        while True:
            condition = self.compound_list(("then",))
            self.expect_reserved("then")
            body = self.compound_list(("elif", "else", "fi"))
            branches.append((condition, body))
            if self.reserved("elif"):
                self.advance()
                continue
            if self.reserved("else"):
                self.advance()
                otherwise = self.compound_list(("fi",))
            self.expect_reserved("fi")
            return If(tuple(branches), otherwise, self.redirects())

    def for_clause(self) -> Node:
        self.advance()
        token = self.advance()
        name = token.word.plain if token.kind == "word" and token.word is not None else None
        if not name or not (name[0].isalpha() or name[0] == "_") or not all(c.isalnum() or c == "_" for c in name):
            raise ParseError("Syntax error: Bad for loop variable")
        items: tuple[Word, ...] | None = None
        self.linebreak()
        if self.reserved("in"):
            self.advance()
            words: list[Word] = []
            while self.peek().kind == "word":
                word = self.advance().word
                assert word is not None
                words.append(word)
            items = tuple(words)
        self.separators()
        self.expect_reserved("do")
        body = self.compound_list(("done",))
        self.expect_reserved("done")
        return For(name, items, body, self.redirects())

    def case_clause(self) -> Node:
        self.advance()
        token = self.advance()
        if token.kind != "word" or token.word is None:
            raise self.unexpected()
        subject = token.word
        self.linebreak()
        self.expect_reserved("in")
        self.linebreak()
        arms: list[tuple[tuple[Word, ...], Node]] = []
        while not self.reserved("esac"):
            if self.is_op("("):
                self.advance()
            patterns: list[Word] = []
            while True:
                token = self.advance()
                if token.kind != "word" or token.word is None:
                    raise ParseError("Syntax error: word unexpected")
                patterns.append(token.word)
                if self.is_op("|"):
                    self.advance()
                    continue
                break
            if not self.is_op(")"):
                raise self.unexpected('expecting ")"')
            self.advance()
            body = self.compound_list(("esac",), allow_empty=True)
            arms.append((tuple(patterns), body))
            if self.is_op(";;"):
                self.advance()
                self.linebreak()
            elif not self.reserved("esac"):
                raise self.unexpected('expecting "esac"')
        self.advance()
        return Case(subject, tuple(arms), self.redirects())

    def redirects(self) -> tuple[Redirect, ...]:
        found: list[Redirect] = []
        while (redirect := self.redirect()) is not None:
            found.append(redirect)
        return tuple(found)

    def redirect(self) -> Redirect | None:
        fd: int | None = None
        if self.peek().kind == "io":
            fd = int(self.advance().value)
        if not self.is_op("<", ">", ">>", ">&", "<&", "<>"):
            if fd is not None:
                raise self.unexpected()
            return None
        operator = self.advance().value
        token = self.advance()
        if token.kind != "word" or token.word is None:
            raise ParseError(f"Syntax error: {'newline' if token.kind == 'newline' else 'redirection'} unexpected")
        return Redirect(fd if fd is not None else (0 if operator in ("<", "<&", "<>") else 1), operator, token.word)

    def simple(self) -> Node:
        assignments: list[tuple[str, Word]] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        while True:
            redirect = self.redirect()
            if redirect is not None:
                redirects.append(redirect)
                continue
            token = self.peek()
            if token.kind != "word" or token.word is None:
                break
            self.advance()
            assignment = _assignment(token) if not words else None
            if assignment is not None:
                assignments.append(assignment)
            else:
                words.append(token.word)
        if not assignments and not words and not redirects:
            raise self.unexpected()
        return Simple(tuple(assignments), tuple(words), tuple(redirects))


def _assignment(token: Token) -> tuple[str, Word] | None:
    """NAME=value: the name and the value's word (the literal text up to `=` is the name)."""
    word = token.word
    if word is None or not word.parts:
        return None
    first = word.parts[0]
    if not isinstance(first, Literal) or first.quoted or "=" not in first.text:
        return None
    name, _eq, value = first.text.partition("=")
    if not name or not (name[0].isalpha() or name[0] == "_") or not all(c.isalnum() or c == "_" for c in name):
        return None
    rest: tuple[Part, ...] = ((Literal(value, False),) if value else ()) + word.parts[1:]
    return name, Word(rest)
