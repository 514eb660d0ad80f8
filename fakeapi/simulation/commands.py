"""Containers' own commands: what a simulated container runs, seen from its image.

A container's command line is its `command` and `args` (or `args` alone: most images' entrypoints run their
arguments; with neither it is the image's own, which fakeapi does not know). When the built-in shell has
that program (`sh -c '...'`, `echo`, `sleep`...) and the pod asks nothing else of the container through
`fakeapi.dev/` annotations, the shell runs it: what it prints is the container's log, and its exit is
the container's (`kubectl run -it --rm --image=busybox -- sh -c 'echo hi'` prints `hi`, exits, and
its pod goes). A command the shell does not know runs until the container is stopped; in an init
container it exits 0 after a second, as before.

A container's environment is resolved when it is created: a ConfigMap or Secret it needs and cannot find
keeps it in CreateContainerConfigError (`Failed` events: `Error: configmap "app" not found`) until the
reference can be resolved.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable

from fakeapi.machinery.types import JSON
from fakeapi.processes.containers import Containers, container_spec
from fakeapi.processes.downward import Unresolved
from fakeapi.processes.effects import Waiter
from fakeapi.processes.environment import kubelet_variables
from fakeapi.simulation.behaviour import NORMAL
from fakeapi.simulation.client import Client
from fakeapi.simulation.podtimers import PodTimers
from fakeapi.simulation.runtime import Container, PodRuntime
from fakeapi.simulation.work import Work


def command_line(spec: JSON) -> list[str]:
    command = [str(word) for word in spec.get("command") or []]
    args = [str(word) for word in spec.get("args") or []]
    return command + args if command else args


class LogOutput:
    """A container's stdout and stderr: its log, line by line (never full: the log rotates)."""

    def __init__(self, client: Client, runtime: PodRuntime, container: str) -> None:
        self.client = client
        self.namespace, self.pod = runtime.key
        self.container = container
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    full = False

    def write(self, data: bytes) -> None:
        text = self._decoder.decode(data)
        if text:
            api = self.client.api
            api.pod_logs.append(self.namespace, self.pod, self.container, text, api.clock.now())

    def when_writable(self, waiter: Waiter) -> None:
        waiter()


class Commands:
    def __init__(self, containers: Containers, client: Client, timers: PodTimers, work: Work) -> None:
        self.containers = containers
        self.client = client
        self.timers = timers
        self.work = work

    def runs(self, container: Container, pod: JSON) -> bool:
        """Whether the built-in shell runs the container's command (nothing else is asked of it)."""
        if container.behaviour != NORMAL:
            return False
        return self.containers.resolves(command_line(container_spec(pod, container.name) or {}))

    def config_error(self, pod: JSON, container: Container) -> str | None:
        """Why the container cannot be created (a reference of its environment), or None."""
        try:
            kubelet_variables(pod, container_spec(pod, container.name) or {}, self.client.api.find)
        except Unresolved as error:
            return str(error)
        return None

    def start(self, runtime: PodRuntime, container: Container, pod: JSON,
              exited: Callable[[int], None]) -> None:
        """Run the container's command; `exited` is called with its code, in a step of its own."""
        instance = container.container_id

        def later(seconds: float, step: Callable[[], None]) -> Callable[[], None]:
            return self.timers.later(runtime, seconds, step)

        def on_exit(code: int) -> None:
            self.work.soon(("exited", runtime.uid, container.name, instance), lambda: exited(code))

        argv = command_line(container_spec(pod, container.name) or {})
        self.containers.start_main(pod, container.name, instance, argv, later, on_exit,
                                   LogOutput(self.client, runtime, container.name))

    def stop(self, runtime: PodRuntime, container: Container) -> None:
        main = self.containers.main((*runtime.key, container.name))
        if main is not None and main.instance == container.container_id:
            self.containers.stop_main(main.key)
