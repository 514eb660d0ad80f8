"""Containers: the insides of every simulated container, one object per server (on the app).

- `exec` starts a process in a container: a test's handler for the command if one matches, else a
  script (the control API's, then the pod's annotation's), else the built-in shell.
- `files` is a container instance's file system, made at its first use and kept until the container
  restarts (a new instance starts from the image again) or its pod goes; writable volumes (emptyDir) are
  the pod's, shared by its containers.
- `connect` opens a connection to a pod's port: a test's handler, an address, or refused.
- Containers' own commands (their `command` and `args`) run here too, started and stopped by the kubelet
  (`start_main`, `stop_main`); `attach` sessions talk to them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from fakeapi.cluster import Api
from fakeapi.machinery.types import JSON
from fakeapi.processes.effects import NULL, BufferedInput, Input, Output, Program, Streams
from fakeapi.processes.environment import container_environment, pod_hostname
from fakeapi.processes.files import ContainerFiles, Tree
from fakeapi.processes.handlers import ExecRule, Handler, run_handler
from fakeapi.processes.pipes import Pipe
from fakeapi.processes.podtokens import PodTokens
from fakeapi.processes.ports import PortClosed, PortRule, Target, annotation_ports, connect, parse_address, refused
from fakeapi.processes.process import Process
from fakeapi.processes.runner import Cancel, Later, Runner
from fakeapi.processes.scripts import Script, annotation_scripts
from fakeapi.processes.terminal import TerminalInput, TerminalOutput
from fakeapi.processes.volumes import container_files
from fakeapi.storage.store import Event

if TYPE_CHECKING:
    from fakeapi.processes.shell import Shell

ContainerKey = tuple[str, str, str]  # namespace, pod, container


@dataclass
class _Instance:
    """What a container instance keeps while it runs: its files and environment."""

    instance: str
    files: ContainerFiles
    environment: dict[str, str]
    working_dir: str = "/"


@dataclass(eq=False)
class MainProcess:
    """A container's own command, run by the built-in shell: its output goes to the container's log."""

    key: ContainerKey
    instance: str
    argv: list[str]
    tty: bool
    stdin: Pipe | None  # None when the container has no stdin
    stdin_once: bool
    runner: Runner | None = None
    start: Callable[[], None] | None = None  # starts the runner (at the first attach, for stdinOnce containers)
    attached: int = 0


@dataclass
class Containers:
    api: Api
    handlers: list[ExecRule] = field(default_factory=list)
    scripts: list[Script] = field(default_factory=list)
    ports: list[PortRule] = field(default_factory=list)
    unreachable: set[str] = field(default_factory=set)  # nodes whose kubelet is stopped
    _instances: dict[ContainerKey, _Instance] = field(default_factory=dict)
    _pod_volumes: dict[str, dict[str, Tree]] = field(default_factory=dict)  # by pod uid
    _main: dict[ContainerKey, MainProcess] = field(default_factory=dict)
    _next_id: int = 0
    tokens: PodTokens = field(init=False)  # the projected service account tokens

    def __post_init__(self) -> None:
        self.tokens = PodTokens(self.api)
        self.api.store.subscribe(self.on_event)

    # ---- rules

    def add_handler(self, rule: ExecRule) -> ExecRule:
        rule.id = self._id()
        self.handlers.append(rule)
        return rule

    def add_script(self, script: Script) -> Script:
        script.id = self._id()
        self.scripts.append(script)
        return script

    def add_port(self, rule: PortRule) -> PortRule:
        rule.id = self._id()
        self.ports.append(rule)
        return rule

    def remove(self, rule_id: int) -> bool:
        for rules in (self.handlers, self.scripts, self.ports):
            for rule in rules:
                if rule.id == rule_id:
                    rules.remove(rule)  # type: ignore[arg-type]
                    if isinstance(rule, PortRule):
                        self._close_later(rule)
                    return True
        return False

    def clear(self) -> None:
        """Back to a fresh server: no handlers, scripts or port targets; every container forgotten."""
        for rule in self.ports:
            self._close_later(rule)
        self.handlers.clear()
        self.scripts.clear()
        self.ports.clear()
        self.forget_all()

    def forget_all(self) -> None:
        for main in list(self._main.values()):
            self.stop_main(main.key)
        self._instances.clear()
        self._pod_volumes.clear()
        self.tokens.clear()

    async def close(self) -> None:
        for rule in self.ports:
            await rule.close()

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _close_later(self, rule: PortRule) -> None:
        try:
            asyncio.get_running_loop().create_task(rule.close())
        except RuntimeError:
            pass

    # ---- exec

    def exec(self, pod: JSON, container: str, argv: list[str], tty: bool) -> Process:
        """Start `argv` in the pod's container (on the running event loop)."""
        meta: JSON = pod["metadata"]
        namespace, name = meta.get("namespace", ""), meta["name"]
        process = Process(argv, tty)
        instance = self.instance(pod, container)
        for rule in self.handlers:
            if rule.matches(namespace, name, container, argv):
                run_handler(rule, process, namespace, name, container, instance.environment)
                return process
        shell = self._shell(pod, instance, runs_forever=False)
        script = self._script(pod, container, argv)
        if script is not None:
            process.run(script.program(shell, process.streams(), argv), self._later)
        elif argv:
            process.run(shell.execute(argv, process.streams()), self._later)
        else:
            process.exited(0)
        return process

    def _script(self, pod: JSON, container: str, argv: list[str]) -> Script | None:
        meta: JSON = pod["metadata"]
        namespace, name = meta.get("namespace", ""), meta["name"]
        for script in self.scripts:
            if script.matches(namespace, name, container, argv):
                return script
        for script in annotation_scripts(meta.get("annotations") or {}, container):
            if script.matches(namespace, name, container, argv):
                return script
        return None

    def _shell(self, pod: JSON, instance: _Instance, runs_forever: bool) -> Shell:
        from fakeapi.processes.shell import Shell, System  # the shell loads when a container first uses it

        system = System(instance.files, pod_hostname(pod), self.api.clock.now, unknown_runs_forever=runs_forever)
        return Shell.start(system, instance.environment, cwd=instance.working_dir)

    def _later(self, seconds: float, callback: Callable[[], None]) -> Cancel:
        return self.api.clock.call_later(seconds, callback).cancel

    # ---- files

    def instance(self, pod: JSON, container: str, instance_id: str = "") -> _Instance:
        """The container's instance (its files and environment), made at its first use: the one the pod's
        status names, or `instance_id` (the kubelet's, before its status is written)."""
        meta: JSON = pod["metadata"]
        key = (meta.get("namespace", ""), meta["name"], container)
        instance_id = instance_id or container_instance(pod, container)
        known = self._instances.get(key)
        if known is not None and known.instance == instance_id:
            return known
        spec = container_spec(pod, container) or {"name": container}
        volumes = self._pod_volumes.setdefault(meta.get("uid", ""), {})
        now = self.api.clock.now().timestamp()
        files = container_files(pod, spec, self.api.find, volumes, now, self.tokens.token)
        environment = container_environment(pod, spec, self.api.find, strict=False)
        created = _Instance(instance_id, files, environment, str(spec.get("workingDir") or "/"))
        self._instances[key] = created
        return created

    def files(self, pod: JSON, container: str) -> ContainerFiles:
        return self.instance(pod, container).files

    # ---- ports

    async def connect(self, pod: JSON, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to the pod's port; PortClosed (with the runtime's message) when nothing listens."""
        meta: JSON = pod["metadata"]
        namespace, name = meta.get("namespace", ""), meta["name"]
        address: tuple[str, int] | None = None
        for rule in self.ports:
            if rule.matches(namespace, name, port):
                rule.connections += 1
                address = await rule.address()
                break
        else:
            try:
                annotated = annotation_ports(meta.get("annotations") or {}).get(port)
            except ValueError:
                annotated = None
            if annotated is not None:
                address = parse_address(annotated)
        if address is None:
            raise PortClosed(refused(meta.get("uid", ""), port))
        try:
            return await connect(address)
        except (OSError, TimeoutError):
            raise PortClosed(refused(meta.get("uid", ""), port)) from None

    def add_port_target(self, target: Target, namespace: str = "*", pod: str = "*",
                        port: int | None = None) -> PortRule:
        return self.add_port(PortRule(target, namespace, pod, port))

    def add_exec_handler(self, handler: Handler, namespace: str = "*", pod: str = "*", container: str = "*",
                         command: str = "*") -> ExecRule:
        return self.add_handler(ExecRule(handler, namespace, pod, container, command))

    # ---- containers' own commands

    def resolves(self, argv: list[str]) -> bool:
        """Whether the built-in shell runs `argv` (its program is one the shell has)."""
        from fakeapi.processes.shell import BUILTINS

        return bool(argv) and argv[0].rsplit("/", 1)[-1] in BUILTINS

    def start_main(self, pod: JSON, container: str, instance_id: str, argv: list[str], later: Later,
                   on_exit: Callable[[int], None], log: Output) -> MainProcess:
        """Run the container's command with the built-in shell; its output goes to `log`. A container that
        asks for stdin once (`stdin` and `stdinOnce`, as `kubectl run -i` makes it) starts its command at
        the first attach, so that what it prints reaches the client that runs it."""
        meta: JSON = pod["metadata"]
        key = (meta.get("namespace", ""), meta["name"], container)
        self.stop_main(key)
        spec = container_spec(pod, container) or {}
        tty = bool(spec.get("tty"))
        stdin = Pipe() if spec.get("stdin") else None
        instance = self.instance(pod, container, instance_id)
        main = MainProcess(key, instance.instance, argv, tty, stdin, bool(spec.get("stdinOnce")))
        output: Output = TerminalOutput(log) if tty else log
        source: Input = (TerminalInput(stdin, output) if tty else stdin) if stdin is not None else NULL
        streams = Streams(BufferedInput(source), output, output)
        shell = self._shell(pod, instance, runs_forever=True)
        program: Program = shell.execute(argv, streams)
        runner = Runner(program, later, on_exit)
        main.runner = runner
        main.start = runner.start
        self._main[key] = main
        if not (stdin is not None and main.stdin_once):
            main.start = None
            runner.start()
        return main

    def stop_main(self, key: ContainerKey) -> None:
        main = self._main.pop(key, None)
        if main is not None and main.runner is not None:
            main.start = None
            if main.stdin is not None:
                main.stdin.close()
            main.runner.kill()

    def main(self, key: ContainerKey) -> MainProcess | None:
        return self._main.get(key)

    def attach(self, key: ContainerKey) -> MainProcess | None:
        """An attach session begins: the container's command (if the shell runs it) starts if it waited."""
        main = self._main.get(key)
        if main is None:
            return None
        main.attached += 1
        if main.start is not None:
            start, main.start = main.start, None
            start()
        return main

    def detach(self, main: MainProcess) -> None:
        """An attach session ended: a stdinOnce container's stdin is closed for good."""
        main.attached -= 1
        if main.stdin_once and main.stdin is not None:
            main.stdin.close()

    # ---- the store

    def on_event(self, event: Event) -> None:
        """Store listener: a deleted pod's containers are gone (their files, volumes and commands)."""
        if event.type != "DELETED" or event.key.resource != "pods":
            return
        namespace, name = event.key.namespace, event.key.name
        for key in [key for key in self._instances if key[:2] == (namespace, name)]:
            del self._instances[key]
        for key in [key for key in self._main if key[:2] == (namespace, name)]:
            self.stop_main(key)
        uid = _uid_of(event)
        if uid:
            self._pod_volumes.pop(uid, None)
            self.tokens.forget(uid)


def container_spec(pod: JSON, container: str) -> JSON | None:
    spec: JSON = pod.get("spec") or {}
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for item in spec.get(key) or []:
            if item.get("name") == container:
                return item  # type: ignore[no-any-return]
    return None


def container_instance(pod: JSON, container: str) -> str:
    """The container's current instance: its containerID in the pod's status (the pod's uid before any)."""
    status: JSON = pod.get("status") or {}
    for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for item in status.get(key) or []:
            if item.get("name") == container and item.get("containerID"):
                return str(item["containerID"])
    return str((pod.get("metadata") or {}).get("uid", ""))


def _uid_of(event: Event) -> str:
    return str(orjson.loads(event.data)["metadata"].get("uid", ""))
