"""`fakeapi serve --storage sqlite:PATH` killed with SIGKILL in the middle of a burst of writes, then started
again on the same file: every acknowledged write is there, the resourceVersion sequence goes on, and
watches from before the restart get 410 Expired. A file that is not fakeapi's stops the start."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest

from fakeapi.cli import main
from fakeapi.storage.sqlite import SqliteJournal
from fakeapi.storage.store import Store

# no simulated cluster: the burst's writes are the only ones to its pods
FAKEAPI = [sys.executable, "-m", "fakeapi", "serve", "--port", "0", "--simulate", "none"]
SECONDS = 30  # bound on every wait for the process
WORKERS = 8
PODS_PER_WORKER = 100
KILL_AFTER = 200  # acknowledged writes before the kill (creates and label updates)
PODS = "/api/v1/namespaces/default/pods"


def start(path: Path, *args: str) -> tuple[subprocess.Popen[bytes], str]:
    """The server on `path` and its URL, read from its first line."""
    process = subprocess.Popen([*FAKEAPI, "--storage", f"sqlite:{path}", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None
    line, deadline = b"", time.monotonic() + SECONDS
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
        byte = os.read(process.stdout.fileno(), 1) if ready else b""
        if not byte:
            stop(process, signal.SIGKILL)
            raise AssertionError(f"fakeapi did not start: {line!r}")
        line += byte
    return process, line.decode().split()[-1]


def stop(process: subprocess.Popen[bytes], signum: int = signal.SIGTERM) -> int:
    """Signal the process we started (by PID) and wait for it."""
    if process.poll() is None:
        os.kill(process.pid, signum)
    process.communicate(timeout=SECONDS)
    return process.returncode


def pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]}}


async def burst(http: aiohttp.ClientSession, url: str, server: subprocess.Popen[bytes]
                ) -> dict[str, dict[str, Any]]:
    """Creates and label updates from several clients; the server is killed once KILL_AFTER of them are
    acknowledged. Returns the last acknowledged object of each pod."""
    acknowledged: dict[str, dict[str, Any]] = {}
    count = 0

    async def worker(number: int) -> None:
        nonlocal count
        for index in range(PODS_PER_WORKER):
            name = f"pod-{number}-{index}"
            writes = [("POST", url + PODS, pod(name), "application/json")] + [
                ("PATCH", f"{url}{PODS}/{name}", {"metadata": {"labels": {"write": str(n)}}},
                 "application/strategic-merge-patch+json") for n in range(2)]
            for method, target, body, content_type in writes:
                try:
                    async with http.request(method, target, data=orjson.dumps(body),
                                            headers={"Content-Type": content_type}) as response:
                        assert response.status in (200, 201), await response.text()
                        acknowledged[name] = await response.json()
                except aiohttp.ClientError:
                    return  # the server is gone
                count += 1
                if count == KILL_AFTER:
                    os.kill(server.pid, signal.SIGKILL)  # the other workers' writes are in flight

    await asyncio.wait_for(asyncio.gather(*(worker(number) for number in range(WORKERS))), SECONDS)
    return acknowledged


async def test_every_acknowledged_write_survives_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "fakeapi.db"
    seed_file = tmp_path / "seed.json"
    seed_file.write_bytes(orjson.dumps(pod("seeded")))
    server, url = start(path, "--seed-file", str(seed_file))
    timeout = aiohttp.ClientTimeout(total=SECONDS)
    try:
        async with aiohttp.ClientSession(timeout=timeout) as http:
            async with http.get(url + PODS + "/seeded") as response:
                seeded = await response.json()
            acknowledged = await burst(http, url, server)
        assert stop(server) == -signal.SIGKILL
        assert len(acknowledged) >= KILL_AFTER // 3
        last_acknowledged = max(int(obj["metadata"]["resourceVersion"]) for obj in acknowledged.values())

        server, url = start(path, "--seed-file", str(seed_file))  # seed files fill a new store only
        async with aiohttp.ClientSession(timeout=timeout) as http:
            async with http.get(url + PODS) as response:
                listed = await response.json()
            stored = {item["metadata"]["name"]: item for item in listed["items"]}
            assert stored["seeded"] == seeded  # not made again
            for name, acked in acknowledged.items():
                found = stored[name]
                meta, acked_meta = found["metadata"], acked["metadata"]
                assert (meta["uid"], meta["creationTimestamp"]) == (acked_meta["uid"], acked_meta["creationTimestamp"])
                if meta["resourceVersion"] == acked_meta["resourceVersion"]:
                    assert found == acked  # managedFields and all
                else:  # the pod's next write was stored, and the kill came before its answer
                    assert int(meta["resourceVersion"]) > int(acked_meta["resourceVersion"])
                    assert meta["labels"] == {"write": str(int(acked_meta.get("labels", {}).get("write", -1)) + 1)}
            restarted_at = int(listed["metadata"]["resourceVersion"])
            assert restarted_at >= last_acknowledged

            async with http.post(url + PODS, json=pod("after")) as response:
                assert response.status == 201
                after = await response.json()
            assert int(after["metadata"]["resourceVersion"]) == restarted_at + 1

            # as after an apiserver restart: the history is gone, the current version can be watched from
            params = {"watch": "true", "resourceVersion": str(last_acknowledged - 1)}
            async with http.get(url + PODS, params=params) as response:
                assert response.status == 200
                error = orjson.loads(await response.content.readline())
                # the oldest version kept is the one the server started from, before it put its new port in
                # the `kubernetes` Service and endpoints
                message, oldest = error["object"].pop("message").rsplit(" ", 1)
                assert message == f"too old resource version: {last_acknowledged - 1}"
                assert last_acknowledged <= int(oldest.strip("()")) <= restarted_at
                assert error == {"type": "ERROR", "object": {
                    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "reason": "Expired", "code": 410}}
            params = {"watch": "true", "resourceVersion": str(restarted_at), "timeoutSeconds": "5"}
            async with http.get(url + PODS, params=params) as response:
                event = orjson.loads(await response.content.readline())
            assert (event["type"], event["object"]) == ("ADDED", after)
        assert stop(server) == 0
    finally:
        if server.poll() is None:
            stop(server, signal.SIGKILL)


def refused(path: Path) -> tuple[int, str]:
    done = subprocess.run([*FAKEAPI, "--storage", f"sqlite:{path}"], capture_output=True, text=True,
                          timeout=SECONDS)
    assert done.stdout == ""
    return done.returncode, done.stderr


FIX = "move it away, or pass another file to --storage"


def test_a_corrupt_file_stops_the_start_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "fakeapi.db"
    path.write_bytes(b"\x00garbage" * 512)
    assert refused(path) == (1, f"fakeapi: {path} is not a fakeapi storage file (not an SQLite database); {FIX}\n")
    assert path.read_bytes() == b"\x00garbage" * 512


def test_a_foreign_database_stops_the_start_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as other:
        other.execute("CREATE TABLE notes (text TEXT)")
    other.close()
    assert refused(path) == (1, f"fakeapi: {path} is not a fakeapi storage file (an SQLite database of another "
                                f"application, or a damaged one); {FIX}\n")


@pytest.mark.parametrize("flag", ["sqlite:", "etcd:", "disk"])
def test_a_storage_flag_of_another_form_is_a_usage_error(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--storage", flag])
    assert exited.value.code == 2
    assert capsys.readouterr().err.endswith(f"error: argument --storage: {flag!r} is not a storage: give memory, "
                                            f"sqlite:PATH or etcd:http://HOST:PORT[,...]\n")


def frame_offset(number: int, page_size: int = 4096) -> int:
    """Where frame `number` (1-based) of a write-ahead log starts: after the 32-byte header, frames of a
    24-byte header and a page each."""
    return 32 + (number - 1) * (24 + page_size)


async def test_a_write_ahead_log_damaged_after_a_crash_stops_the_start_instead_of_losing_writes(
        tmp_path: Path) -> None:
    path = tmp_path / "fakeapi.db"
    server, url = start(path)
    try:
        async with aiohttp.ClientSession() as http:
            for index in range(6):  # a transaction each, acknowledged
                async with http.post(url + PODS, json=pod(f"web-{index}")) as response:
                    assert response.status == 201
        assert stop(server, signal.SIGKILL) == -signal.SIGKILL
    finally:
        if server.poll() is None:
            stop(server, signal.SIGKILL)
    wal = tmp_path / "fakeapi.db-wal"
    log = bytearray(wal.read_bytes())
    assert len(log) >= frame_offset(8)  # (the start's namespaces and their content, then the six pods)
    log[frame_offset(3) + 24 + 100] ^= 0xFF  # a bit flipped inside a page, in the middle of the log
    wal.write_bytes(bytes(log))
    code, stderr = refused(path)
    assert code == 1 and stderr.count("\n") == 1
    assert stderr.startswith(f"fakeapi: {wal} is damaged: its frame 3 does not check out and ")
    assert stderr.endswith(f" committed transaction(s) follow it, so SQLite would silently drop writes fakeapi "
                           f"acknowledged; keep copies of {path} and {wal}, then either open {path} once with the "
                           f"sqlite3 shell (which keeps the writes before the damage) or pass another file to "
                           f"--storage\n")
    assert wal.read_bytes() == bytes(log)  # left as it was


def test_a_read_only_file_stops_the_start_with_one_line(tmp_path: Path) -> None:
    """As its owner would see it: root (who may write anything) runs the server without the right to override
    file modes, so it reads the installed packages as before but cannot write a read-only file."""
    path = tmp_path / "fakeapi.db"
    Store(journal=SqliteJournal(path)).close()
    path.chmod(0o444)
    dropped = "-dac_override,-dac_read_search"
    as_owner = ["setpriv", f"--inh-caps={dropped}", f"--bounding-set={dropped}"] if os.geteuid() == 0 else []
    done = subprocess.run([*as_owner, *FAKEAPI, "--storage", f"sqlite:{path}"], capture_output=True, text=True,
                          timeout=SECONDS, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, f"fakeapi: {path} is read-only: fakeapi writes every change to "
                                                 f"it; make it writable, or pass another file to --storage\n")
