"""`fakeapi serve` processes on one etcd, for the replica and fault tests: started on a free port, their
URL read from their first line, their stderr kept in a file, stopped (or killed) by their PID."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import requests

SECONDS = 30  # bound on every wait for a process


class Serve:
    def __init__(self, etcd_url: str, prefix: str, log: Path, *args: str) -> None:
        self.log = log
        command = [sys.executable, "-m", "fakeapi", "serve", "--port", "0", "--storage", f"etcd:{etcd_url}",
                   "--etcd-prefix", prefix, *args]
        with log.open("ab") as stderr:
            self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr)
        self.url = self._read_url()
        self.http = requests.Session()

    def _read_url(self) -> str:
        stdout = self.process.stdout
        assert stdout is not None
        line, deadline = b"", time.monotonic() + SECONDS
        while not line.endswith(b"\n"):
            ready, _, _ = select.select([stdout], [], [], max(0.0, deadline - time.monotonic()))
            byte = os.read(stdout.fileno(), 1) if ready else b""
            if not byte:
                self.kill()
                raise AssertionError(f"fakeapi did not start: {line!r}; {self.log.read_text()[-2000:]}")
            line += byte
        return line.decode().split()[-1]

    def get(self, path: str, **params: Any) -> Any:
        response = self.http.get(self.url + path, params=params, timeout=10)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: dict[str, Any], timeout: float = 10) -> requests.Response:
        return self.http.post(self.url + path, data=orjson.dumps(body), timeout=timeout,
                              headers={"Content-Type": "application/json"})

    def stderr(self) -> str:
        return self.log.read_text()

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def stop(self, signum: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signum)
        try:
            self.process.communicate(timeout=SECONDS)
        except subprocess.TimeoutExpired:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.communicate(timeout=SECONDS)
        self.http.close()


def config_map(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"n": name}}


class WatchCounter:
    """A watch of ConfigMaps in `default` from a resourceVersion, read in a thread: every event, in order."""

    def __init__(self, url: str, resource_version: str) -> None:
        import threading

        self.events: list[tuple[str, str, int]] = []  # (type, name, resourceVersion)
        self.errors: list[str] = []
        self._response = requests.get(f"{url}/api/v1/namespaces/default/configmaps", stream=True, timeout=(5, 120),
                                      params={"watch": "1", "resourceVersion": resource_version,
                                              "timeoutSeconds": "120"})
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for line in self._response.iter_lines():
                if line:
                    event = orjson.loads(line)
                    meta = event["object"].get("metadata") or {}
                    if event["type"] == "ERROR":
                        self.errors.append(event["object"].get("message", ""))
                    elif event["type"] != "BOOKMARK":
                        self.events.append((event["type"], meta["name"], int(meta["resourceVersion"])))
        except (requests.RequestException, AttributeError):
            pass  # (closed by `close`: urllib3 drops its file under the reader)

    def names_added(self) -> list[str]:
        return [name for kind, name, _rv in self.events if kind == "ADDED"]

    def wait_for(self, names: set[str], seconds: float = 20) -> None:
        deadline = time.monotonic() + seconds
        while not names <= set(self.names_added()) and time.monotonic() < deadline:
            time.sleep(0.05)

    def close(self) -> None:
        """End the stream: shut its socket down under the reader (closing the response would wait for it)."""
        try:
            sock = socket.socket(fileno=socket.dup(self._response.raw._fp.fileno()))
            sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        except (AttributeError, OSError, ValueError):
            pass  # (ended already)
        self._thread.join(10)
        self._response.close()
