"""The built-in shell: a POSIX sh subset and the small programs images carry, over a container's files.

It answers what clients and tests run in containers (`echo`, `cat`, `ls`, `env`, `sh -c`, `tar` for
`kubectl cp`...), and runs containers' own commands. `Shell.execute` runs a command line (argv);
`fakeapi.processes.runner` drives the programs it returns.
"""

from __future__ import annotations

from fakeapi.processes.effects import Streams
from fakeapi.processes.shell import commands, filecommands, tar
from fakeapi.processes.shell.interpreter import BUILTINS, NOT_FOUND, Shell, System

__all__ = ["BUILTINS", "NOT_FOUND", "Shell", "Streams", "System", "commands", "filecommands", "tar"]
