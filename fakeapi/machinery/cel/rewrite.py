"""What compilation changes in a rule's text before the runtime's checker sees it, and how the checker's
errors are then told in terms of the text the user wrote, as cel-go prints them.

* `indexOf`/`lastIndexOf` calls become `_idxOf_`/`_lastIdxOf_` (same length), which hold both the strings
  extension's and the lists library's overloads;
* `<format>.validate(s)` and `format.named(n)` become `optional.ofNonZeroValue(<format>._fmtval_(s))` and
  `optional.ofNonZeroValue(format._nmd_(n))`: the optional they return is made in CEL;
* a rule with `optionalOldSelf` is wrapped so that `oldSelf` is an optional.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fakeapi.machinery.cel.ast import Expr

RENAMED = {"_idxOf_": "indexOf", "_lastIdxOf_": "lastIndexOf", "_fmtval_": "validate", "format._nmd_": "format.named",
           "_nmd_": "named"}
_ALIASES = {"indexOf": "_idxOf_", "lastIndexOf": "_lastIdxOf_", "validate": "_fmtval_", "named": "_nmd_"}
WRAP = "optional.ofNonZeroValue("


@dataclass
class Rewritten:
    """The text given to the checker, and the insertions that make it differ in length from the user's."""

    text: str
    insertions: list[tuple[int, int]] = field(default_factory=list)  # (offset in the user's text, length)

    def original_offset(self, offset: int) -> int:
        """The offset in the user's text of an offset in `text` (inserted text counts as where it went in)."""
        shift = 0
        for at, length in self.insertions:
            begins = at + shift
            if offset < begins:
                break
            if offset < begins + length:
                return at
            shift += length
        return offset - shift


def rewrite(source: str, tree: Expr, wrap: tuple[str, str] = ("", "")) -> Rewritten:
    """The text to check: `tree` is the parsed (unchecked) tree of `source`; `wrap` a prefix and a suffix."""
    renames: list[tuple[int, str]] = []
    inserts: list[tuple[int, str]] = []
    for node in _calls(tree):
        name = str(node.value)
        if name not in _ALIASES or node.position < 0 or node.target is None:
            continue
        if name == "named" and not (node.target.kind == "ident" and node.target.value == "format"):
            continue
        at = _name_start(source, node.position, name)
        if at is None:
            continue
        renames.append((at, _ALIASES[name]))
        if name in ("validate", "named"):
            start = _receiver_start(source, node.target, at)
            end = _closing(source, node.position)
            if start is not None and end is not None:
                inserts += [(start, WRAP), (end + 1, ")")]
    text = list(source)
    for at, alias in renames:
        text[at:at + len(alias)] = list(alias)
    edits = sorted(inserts, key=lambda edit: edit[0])
    if wrap[0]:
        edits.insert(0, (0, wrap[0]))
    if wrap[1]:
        edits.append((len(source), wrap[1]))
    result: list[str] = []
    previous = 0
    for at, inserted in edits:
        result += text[previous:at]
        result.append(inserted)
        previous = at
    result += text[previous:]
    return Rewritten("".join(result), [(at, len(inserted)) for at, inserted in edits])


def _calls(node: Expr) -> list[Expr]:
    found: list[Expr] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.kind == "call":
            found.append(current)
        stack += [child for child in (current.target, *current.args, current.iter_range, current.accu_init,
                                      current.loop_condition, current.loop_step, current.result) if child is not None]
    return found


def _name_start(source: str, paren: int, name: str) -> int | None:
    """Where a call's function name starts, given the offset of its `(`."""
    end = paren
    while end > 0 and source[end - 1].isspace():
        end -= 1
    start = end - len(name)
    return start if start >= 0 and source[start:end] == name else None


def _positions(node: Expr) -> list[int]:
    found = [node.position] if node.position >= 0 else []
    for child in (node.target, *node.args, node.iter_range, node.accu_init, node.loop_condition, node.loop_step,
                  node.result):
        if child is not None:
            found += _positions(child)
    return found


def _receiver_start(source: str, receiver: Expr, dot_before: int) -> int | None:
    """The first offset of a receiver's text, the parentheses that enclose only it included."""
    positions = _positions(receiver)
    if not positions:
        return None
    start = min(positions)
    while True:
        before = start - 1
        while before >= 0 and source[before].isspace():
            before -= 1
        if before < 0 or source[before] != "(":
            return start
        closing = _closing(source, before)
        if closing is None or closing >= dot_before:
            return start
        start = before


_STRING = re.compile(r"""(?:[rR][bB]?|[bB][rR]?)?('''|\"\"\"|'|")""")


def _closing(source: str, opening: int) -> int | None:
    """The offset of the `)` matching the `(` at `opening`, skipping string literals."""
    depth = 0
    index = opening
    while index < len(source):
        char = source[index]
        found = _STRING.match(source, index) if char in "'\"rRbB" else None
        if found is not None and (char in "'\"" or index == 0 or not (source[index - 1].isalnum()
                                                                     or source[index - 1] == "_")):
            quote = found.group(1)
            raw = found.group(0)[0] in "rR" or (len(found.group(0)) > len(quote) and found.group(0)[1] in "rR")
            index = found.end()
            while index < len(source) and not source.startswith(quote, index):
                index += 2 if source[index] == "\\" and not raw else 1
            index += len(quote)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return None
