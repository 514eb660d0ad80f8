"""Scripts: what exec answers for a command, set without Python: through the control API
(`POST /fakeapi/v1/exec`) or a pod's `fakeapi.dev/exec` annotation (`fakeapi.dev/exec.<container>` for one
container). A script either gives the output and exit code (`stdout`, `stderr`, `exitCode`), or a
`script` the built-in shell runs with the command's words as `$0`, `$1`...:

    fakeapi.dev/exec: |
      - command: "pg_isready*"
        stdout: "/var/run/postgresql:5432 - accepting connections\\n"
      - command: "psql *"
        script: 'echo "psql: error: connection refused" >&2; exit 2'
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.types import JSON
from fakeapi.machinery.yamlload import load_yaml
from fakeapi.processes.effects import Program, write
from fakeapi.processes.shell import Shell, Streams

ANNOTATION = "fakeapi.dev/exec"
ANNOTATION_LIMIT = 256 * 1024  # what an annotation's YAML may expand to
_FIELDS = frozenset({"namespace", "pod", "container", "command", "stdout", "stderr", "exitCode", "script"})


@dataclass
class Script:
    namespace: str = "*"
    pod: str = "*"
    container: str = "*"
    command: str = "*"
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    script: str | None = None
    id: int = 0
    calls: int = field(default=0, compare=False)

    def matches(self, namespace: str, pod: str, container: str, argv: list[str]) -> bool:
        return (fnmatch.fnmatchcase(namespace, self.namespace) and fnmatch.fnmatchcase(pod, self.pod)
                and fnmatch.fnmatchcase(container, self.container)
                and fnmatch.fnmatchcase(" ".join(argv), self.command))

    def program(self, shell: Shell, streams: Streams, argv: list[str]) -> Program:
        self.calls += 1
        if self.script is not None:
            child = shell.spawn(argv[1:], argv[0])
            return (yield from child.run_text(self.script, streams))
        yield from write(streams.stdout, self.stdout)
        yield from write(streams.stderr, self.stderr)
        return self.exit_code

    @classmethod
    def from_json(cls, body: Any, scoped: bool = True) -> Script:
        """A script from its JSON (camelCase); ValueError saying what is wrong. Without `scoped`, only the
        command and the answer may be given (an annotation's script belongs to its pod)."""
        if not isinstance(body, dict):
            raise ValueError("a script is a JSON object")
        allowed = _FIELDS if scoped else _FIELDS - {"namespace", "pod", "container"}
        unknown = sorted(set(body) - allowed)
        if unknown:
            raise ValueError(f"unknown script fields: {', '.join(unknown)}")
        texts = {}
        for name in ("namespace", "pod", "container", "command", "stdout", "stderr", "script"):
            value = body.get(name)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{name} must be a string")
            texts[name] = value
        exit_code = body.get("exitCode", 0)
        if isinstance(exit_code, bool) or not isinstance(exit_code, int) or not 0 <= exit_code <= 255:
            raise ValueError("exitCode must be an integer from 0 to 255")
        if texts["script"] is not None and (texts["stdout"] or texts["stderr"] or exit_code):
            raise ValueError("give either a script, or stdout, stderr and exitCode")
        return cls(namespace=texts["namespace"] or "*", pod=texts["pod"] or "*",
                   container=texts["container"] or "*", command=texts["command"] or "*",
                   stdout=texts["stdout"] or "", stderr=texts["stderr"] or "", exit_code=exit_code,
                   script=texts["script"])

    def to_json(self) -> JSON:
        body: JSON = {"id": str(self.id), "namespace": self.namespace, "pod": self.pod, "container": self.container,
                      "command": self.command}
        if self.script is not None:
            body["script"] = self.script
        else:
            body.update(stdout=self.stdout, stderr=self.stderr, exitCode=self.exit_code)
        body["calls"] = self.calls
        return body


def annotation_scripts(annotations: Mapping[str, str], container: str) -> list[Script]:
    """The scripts a pod's annotations give `container` (its own first); ones that do not parse are skipped
    (the kubelet reports them in an InvalidAnnotation event)."""
    found: list[Script] = []
    for key in (f"{ANNOTATION}.{container}", ANNOTATION):
        value = annotations.get(key)
        if value is None:
            continue
        try:
            found.extend(parse_annotation(value))
        except ValueError:
            continue
    return found


def parse_annotation(value: str) -> list[Script]:
    """The scripts of an annotation's value (YAML or JSON: one script or a list); ValueError if it is not one."""
    try:
        loaded = load_yaml(value, ANNOTATION_LIMIT)
    except BadRequest as error:
        raise ValueError(f"is not YAML or JSON ({error.message})") from None
    items = loaded if isinstance(loaded, list) else [loaded]
    return [Script.from_json(item, scoped=False) for item in items]
