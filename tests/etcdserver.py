"""A real etcd server for the tests: the `etcd` binary (Debian's etcd-server package, which CI installs),
on free loopback ports, with its data in a temporary folder; stopped by its PID."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import ssl
import subprocess
import time
import urllib.request
from pathlib import Path

ETCD_CANDIDATES = ("/usr/bin/etcd", "/usr/local/bin/etcd")


def etcd_binary() -> str | None:
    """The etcd binary found on this machine (FAKEAPI_ETCD names one), or None."""
    named = os.environ.get("FAKEAPI_ETCD")
    if named:
        return named
    found = shutil.which("etcd")
    if found:
        return found
    return next((path for path in ETCD_CANDIDATES if os.access(path, os.X_OK)), None)


SKIP_REASON = ("no etcd binary on this machine (install Debian's etcd-server package: apt-get install etcd-server, "
               "or name one with FAKEAPI_ETCD); .ci/run installs it")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class EtcdServer:
    """One etcd member on 127.0.0.1; `start()` again after `stop()` keeps its data and port."""

    def __init__(self, data_dir: Path, binary: str, tls: tuple[Path, Path, Path] | None = None) -> None:
        """`tls`: (CA, certificate, key) files: serve https, and ask clients for a certificate of that CA."""
        self.data_dir = data_dir
        self.binary = binary
        self.tls = tls
        self.port = free_port()
        self.peer_port = free_port()
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir.parent / f"{data_dir.name}.log"

    def start(self, timeout: float = 20.0) -> None:
        peer = f"http://127.0.0.1:{self.peer_port}"
        command = [self.binary, "--name", "test", "--data-dir", str(self.data_dir),
                   "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
                   "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                   "--initial-cluster", f"test={peer}", "--log-level", "warn"]
        if self.tls is not None:
            ca, certificate, key = self.tls
            command += ["--cert-file", str(certificate), "--key-file", str(key), "--client-cert-auth",
                        "--trusted-ca-file", str(ca)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"etcd exited at start: {self.log.read_text()[-2000:]}")
            if self.healthy():
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"etcd did not become healthy in {timeout}s: {self.log.read_text()[-2000:]}")

    def healthy(self) -> bool:
        context = None
        if self.tls is not None:
            ca, certificate, key = self.tls
            context = ssl.create_default_context(cafile=str(ca))
            context.load_cert_chain(certificate, key)
        try:
            with urllib.request.urlopen(self.url + "/health", timeout=1, context=context) as response:
                return b'"true"' in response.read()
        except OSError:
            return False

    def stop(self, kill: bool = False) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        self.process = None
