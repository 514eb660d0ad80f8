"""Connections as a production server handles them: idle, silent and slow clients are let go, running out
of file descriptors slows accepting without flooding the log, and SIGTERM ends every stream at once.

Raw sockets on 127.0.0.1 play the clients that HTTP libraries would not be: silent, slow or half-sent.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager

import pytest

from fakeapi.config import ServerConfig
from fakeapi.testing import FakeAPIServer
from tests.test_cli import SECONDS, read_line

PODS = "/api/v1/namespaces/default/pods"
POD = {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}
SHORT = 0.3  # seconds: the timeouts under test, set short so that the tests need not wait for the defaults


def connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=SECONDS)


def receive_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (socket.timeout if it never does)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def receive_headers(sock: socket.socket) -> bytes:
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65536)
        assert chunk, f"the server closed the connection after {received!r}"
        received += chunk
    return received


def request(path: str, method: str = "GET", headers: str = "", body: bytes = b"") -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n".encode() + body


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    config = ServerConfig(idle_timeout=SHORT, read_header_timeout=SHORT, request_timeout=SHORT)
    with FakeAPIServer(config=config) as started:
        yield started


def test_an_idle_connection_is_closed_after_the_idle_timeout(server: FakeAPIServer) -> None:
    with closing(connect(server.url)) as sock:
        sock.sendall(request("/healthz"))
        assert receive_headers(sock).startswith(b"HTTP/1.1 200 OK\r\n")
        assert receive_all(sock) == b""  # no request follows: the server hangs up


@pytest.mark.parametrize("sent", [b"", b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"],
                         ids=["silent", "headers-never-finished"])
def test_a_new_connection_without_whole_headers_is_closed_after_the_read_header_timeout(sent: bytes) -> None:
    config = ServerConfig(read_header_timeout=SHORT)  # the idle timeout stays at 90 s
    with FakeAPIServer(config=config) as server, closing(connect(server.url)) as sock:
        sock.sendall(sent)
        assert receive_all(sock) == b""


def test_headers_in_time_keep_the_connection_for_the_next_request() -> None:
    """The first request's deadline ends with its headers: the connection then lives as long as it is used."""
    with FakeAPIServer(config=ServerConfig(read_header_timeout=SHORT)) as server, \
            closing(connect(server.url)) as sock:
        for _ in range(2):
            sock.sendall(request("/healthz"))
            assert receive_headers(sock).startswith(b"HTTP/1.1 200 OK\r\n")
            sock.settimeout(SHORT * 2)  # past the header deadline: the connection must still be open
            with pytest.raises(TimeoutError):
                sock.recv(1)
            sock.settimeout(SECONDS)


def test_an_upload_cut_short_gets_upstreams_504_after_the_request_timeout(server: FakeAPIServer) -> None:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=SECONDS)
    try:
        connection.putrequest("POST", PODS)
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", "1000")
        connection.endheaders(b'{"metadata": ')  # and the other 987 bytes never come
        response = connection.getresponse()
        answer = (response.status, json.loads(response.read()))
    finally:
        connection.close()
    assert answer == (504, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": "Timeout: request did not complete within the allotted timeout",
                            "reason": "Timeout", "details": {}, "code": 504})
    assert server.list("pods") == []


def test_watches_outlive_the_request_timeout(server: FakeAPIServer) -> None:
    """Long-running requests are exempt: a watch runs to its own timeoutSeconds and ends cleanly."""
    with closing(connect(server.url)) as sock:
        sock.sendall(request(PODS + "?watch=true&timeoutSeconds=1", headers="Connection: close\r\n"))
        answer = receive_all(sock)
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert answer.endswith(b"\r\n0\r\n\r\n")  # the chunked stream's own end, not a cut


# ---- a subprocess server, as `fakeapi serve` runs


@contextmanager
def serve(*flags: str, open_files: int | None = None) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`fakeapi serve --port 0` with `flags` (and an open-file limit), its URL; killed by PID at the end."""
    limit = f"resource.setrlimit(resource.RLIMIT_NOFILE, ({open_files}, {open_files}))" if open_files else ""
    code = f"import resource, sys; {limit}\nfrom fakeapi.cli import main; sys.exit(main(sys.argv[1:]))"
    process = subprocess.Popen([sys.executable, "-c", code, "serve", "--port", "0", *flags],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield process, read_line(process).strip().rsplit(" ", 1)[-1]
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.communicate(timeout=SECONDS)


def test_out_of_file_descriptors_slows_accepting_without_flooding_the_log() -> None:
    """More idle connections than open files: new clients wait until silent connections are let go, then
    are answered; the log says so in one line."""
    open_files = 64
    with serve("--read-header-timeout", "1", open_files=open_files) as (process, url):
        idle = [connect(url) for _ in range(open_files + 36)]  # the kernel queues those not accepted
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=SECONDS) as response:
                assert response.read() == b"ok"
        finally:
            for sock in idle:
                sock.close()
        os.kill(process.pid, signal.SIGTERM)
        _, stderr = process.communicate(timeout=SECONDS)
    assert process.returncode == 0
    assert stderr.splitlines() == [
        f"fakeapi: cannot accept connections: too many open files (open-file limit {open_files}); new clients "
        f"wait until connections close (silent new ones after --read-header-timeout, idle ones after "
        f"--idle-timeout); raise the limit with ulimit -n"]


def _open_log_stream(url: str, sock: socket.socket) -> None:
    create = urllib.request.Request(url + PODS, data=json.dumps(POD).encode(), method="POST",
                                    headers={"Content-Type": "application/json"})
    urllib.request.urlopen(create, timeout=SECONDS).close()
    sock.sendall(request(PODS + "/web/log?follow=true"))
    assert receive_headers(sock).startswith(b"HTTP/1.1 200 OK\r\n")


def _open_watch(url: str, sock: socket.socket) -> None:
    sock.sendall(request(PODS + "?watch=true"))
    assert receive_headers(sock).startswith(b"HTTP/1.1 200 OK\r\n")


def _start_upload(url: str, sock: socket.socket) -> None:
    headers = "Content-Type: application/json\r\nContent-Length: 1000\r\n"
    sock.sendall(request(PODS, "POST", headers, b'{"metadata": '))
    # a request sent after the upload's headers is answered after the upload's handler has started
    urllib.request.urlopen(url + "/healthz", timeout=SECONDS).close()


@pytest.mark.parametrize("start", [_open_log_stream, _open_watch, _start_upload],
                         ids=["log-follow", "watch", "half-sent-upload"])
def test_sigterm_ends_streams_and_uploads_at_once_and_exits_0(start: Callable[[str, socket.socket], None]) -> None:
    # no simulated kubelet: the pod's log is followed at once (a kubelet's pod would be waiting to start)
    with serve("--simulate", "none") as (process, url), closing(connect(url)) as sock:
        start(url, sock)
        os.kill(process.pid, signal.SIGTERM)
        assert process.wait(5) == 0  # it waited 60 s for an upload and 122 s for a log stream
        receive_all(sock)  # and the client's connection is closed


def test_sigterm_stops_a_long_clock_advance_and_exits_0() -> None:
    """A million seconds of 5 simulated nodes is half a million lease writes: the advance runs in slices,
    so SIGTERM gets through and ends it."""
    control = "X-Fakeapi-Control: 1\r\nContent-Type: application/json\r\n"
    with serve("--nodes", "5", "--request-timeout", "600") as (process, url), closing(connect(url)) as sock:
        freeze = b'{"frozen": true}'
        sock.sendall(request("/fakeapi/v1/clock", "POST", control + f"Content-Length: {len(freeze)}\r\n", freeze))
        assert receive_headers(sock).startswith(b"HTTP/1.1 200 OK\r\n")
        advance = b'{"advanceSeconds": 1000000}'
        with closing(connect(url)) as advancing:
            advancing.sendall(request("/fakeapi/v1/clock", "POST", control + f"Content-Length: {len(advance)}\r\n",
                                      advance))
            with urllib.request.urlopen(url + "/readyz", timeout=SECONDS) as response:  # answered meanwhile
                assert response.read() == b"ok"
            time.sleep(0.3)  # well into the advance
            os.kill(process.pid, signal.SIGTERM)
            assert process.wait(5) == 0
            receive_all(advancing)
