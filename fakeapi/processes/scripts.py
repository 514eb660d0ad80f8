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
from typing import TYPE_CHECKING, Any

from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.types import JSON
from fakeapi.machinery.yamlload import load_yaml
from fakeapi.processes.effects import Program, Streams, write

ANNOTATION = "fakeapi.dev/exec"
ANNOTATION_LIMIT = 256 * 1024  # what an annotation's YAML may expand to

if TYPE_CHECKING:
    from fakeapi.processes.shell import Shell


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
        from fakeapi.processes.bodies import SCRIPT, UNSCOPED_SCRIPT  # marshmallow loads with the first script

        loaded: dict[str, Any] = (SCRIPT if scoped else UNSCOPED_SCRIPT).load_body(body)
        return cls(**loaded)

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

