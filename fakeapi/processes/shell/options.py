"""Command-line options as getopt reads them: `-la` is `-l -a`, `-n 5` and `-n5` give `n` its value, `--`
ends the options; long options (`--name`, `--name=value`) are kept by name."""

from __future__ import annotations

from dataclasses import dataclass, field


class UsageError(Exception):
    """An option the command does not know, or one missing its value (the message says which)."""


@dataclass
class Options:
    flags: dict[str, str | bool] = field(default_factory=dict)
    operands: list[str] = field(default_factory=list)

    def __contains__(self, name: str) -> bool:
        return name in self.flags

    def value(self, name: str, default: str = "") -> str:
        value = self.flags.get(name, default)
        return value if isinstance(value, str) else default


def parse(arguments: list[str], flags: str = "", valued: str = "", long: tuple[str, ...] = (),
          stop_at_operand: bool = False) -> Options:
    """`flags`: one-letter options without a value; `valued`: with one; `long`: --names known (a name
    ending in `=` takes a value). Operands may come between options, unless `stop_at_operand`."""
    options = Options()
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if argument == "--":
            options.operands.extend(arguments[index:])
            break
        if argument.startswith("--") and long:
            name, has_value, value = argument[2:].partition("=")
            if name + "=" in long:
                if not has_value:
                    if index >= len(arguments):
                        raise UsageError(f"option '--{name}' requires an argument")
                    value = arguments[index]
                    index += 1
                options.flags[name] = value
            elif name in long and not has_value:
                options.flags[name] = True
            else:
                raise UsageError(f"unrecognized option '{argument}'")
            continue
        if argument.startswith("-") and len(argument) > 1 and not argument[1:].lstrip("0123456789") == "":
            position = 1
            while position < len(argument):
                letter = argument[position]
                position += 1
                if letter in valued:
                    value = argument[position:]
                    if not value:
                        if index >= len(arguments):
                            raise UsageError(f"option requires an argument -- '{letter}'")
                        value = arguments[index]
                        index += 1
                    options.flags[letter] = value
                    break
                if letter not in flags:
                    raise UsageError(f"invalid option -- '{letter}'")
                options.flags[letter] = True
            continue
        options.operands.append(argument)
        if stop_at_operand:
            options.operands.extend(arguments[index:])
            break
    return options
