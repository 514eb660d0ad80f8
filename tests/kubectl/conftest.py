"""kubectl against `python -m fakeapi serve --kubeconfig`: one server per module, a fresh cache per test.

kubectl is required: when it is missing the tests fail (they never skip), so CI cannot pass without it.
`KUBECTL` overrides the binary (default: `kubectl` on PATH, the gcloud dispatcher, which picks kubectl
1.32 from the server's /version).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 20
SERVING = "fakeapi serving on "


@dataclass
class Server:
    url: str
    kubeconfig: Path
    process: subprocess.Popen[str]
    reader: threading.Thread
    log: list[str] = field(default_factory=list)  # the server's output


@dataclass(frozen=True)
class Result:
    rc: int
    out: str
    err: str

    def __str__(self) -> str:  # shown by failing asserts
        return f"rc={self.rc}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


@dataclass
class Kubectl:
    """Runs kubectl against the module's server with this test's own `--cache-dir`."""

    binary: str
    server: Server
    cache_dir: Path
    workdir: Path
    started: list[subprocess.Popen[str]] = field(default_factory=list)

    def args(self, *args: str) -> list[str]:
        return [self.binary, "--kubeconfig", str(self.server.kubeconfig), "--cache-dir", str(self.cache_dir),
                *args]

    def __call__(self, *args: str, stdin: str | None = None, timeout: float = 30,
                 env: dict[str, str] | None = None) -> Result:
        done = subprocess.run(self.args(*args), input=stdin, capture_output=True, text=True, timeout=timeout,
                              cwd=self.workdir, env={**os.environ, **(env or {})})
        return Result(done.returncode, done.stdout, done.stderr)

    def ok(self, *args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> str:
        """stdout of a command that must succeed."""
        result = self(*args, stdin=stdin, env=env)
        assert result.rc == 0, str(result)
        return result.out

    def background(self, *args: str) -> subprocess.Popen[str]:
        """Start kubectl without waiting (e.g. `get -w`); the fixture stops it if the test did not."""
        process = subprocess.Popen(self.args(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, cwd=self.workdir)
        self.started.append(process)
        return process

    def stop_background(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
            process.communicate(timeout=10)

    def write(self, name: str, text: str) -> str:
        path = self.workdir / name
        path.write_text(text)
        return str(path)


def kubectl_binary() -> str:
    binary = os.environ.get("KUBECTL") or shutil.which("kubectl")
    if not binary:
        pytest.fail("kubectl is not installed (or set KUBECTL): the kubectl end-to-end tests need "
                    "kubectl 1.32", pytrace=False)
    return binary


def start_server(directory: Path, *flags: str) -> Server:
    """`fakeapi serve` on 127.0.0.1 with its kubeconfig in `directory`, and `flags` besides."""
    kubeconfig = directory / "kubeconfig"
    process = subprocess.Popen(
        [sys.executable, "-m", "fakeapi", "serve", "--host", "127.0.0.1", "--port", "0",
         "--kubeconfig", str(kubeconfig), *flags],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:  # keeps draining the server's output so it never blocks on a full pipe
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if line.startswith(SERVING):
                found.set()
        found.set()

    reader = threading.Thread(target=read, name="fakeapi-output", daemon=True)
    reader.start()
    found.wait(STARTUP_SECONDS)
    url = next((line[len(SERVING):].strip() for line in lines if line.startswith(SERVING)), "")
    server = Server(url, kubeconfig, process, reader, lines)
    if not url or not kubeconfig.exists():
        stop_server(server)
        pytest.fail("fakeapi serve did not start:\n" + "".join(lines), pytrace=False)
    return server


def stop_server(server: Server) -> None:
    """Stop the server by its PID (SIGTERM, then SIGKILL if it hangs) and close its output pipe."""
    process = server.process
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)
    server.reader.join(5)
    if process.stdout is not None:
        process.stdout.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose pods only change when kubectl changes them: no simulated cluster."""
    kubectl_binary()  # fail before starting anything
    started = start_server(tmp_path_factory.mktemp("fakeapi"), "--simulate", "none")
    yield started
    stop_server(started)


@pytest.fixture(scope="module")
def cluster_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server as `fakeapi serve` starts by default: a simulated cluster of one node."""
    kubectl_binary()
    started = start_server(tmp_path_factory.mktemp("fakeapi"))
    yield started
    stop_server(started)


@pytest.fixture
def kubectl(server: Server, tmp_path: Path) -> Iterator[Kubectl]:
    runner = Kubectl(kubectl_binary(), server, tmp_path / "cache", tmp_path)
    yield runner
    runner.stop_background()


@pytest.fixture
def cluster_kubectl(cluster_server: Server, tmp_path: Path) -> Iterator[Kubectl]:
    """kubectl against the simulated cluster's server."""
    runner = Kubectl(kubectl_binary(), cluster_server, tmp_path / "cache", tmp_path)
    yield runner
    runner.stop_background()
