"""Faults of a cluster on etcd, counted: etcd killed and started again under load, a replica killed in the
middle of its writes, and a network delay between a server and etcd. Each test counts the writes the
server acknowledged (201) and the events a watch opened before the fault delivered: none may be missing,
none may come twice, and their resourceVersions only go up."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.etcdserver import EtcdServer
from tests.storage.servers import Serve, WatchCounter, config_map

CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"


class Writer(threading.Thread):
    """Creates ConfigMaps one after another until stopped (or `limit`): which were acknowledged, and the
    status of every answer that was not."""

    def __init__(self, server: Serve, prefix: str = "cm", limit: int = 5000) -> None:
        super().__init__(daemon=True)
        self.server, self.prefix, self.limit = server, prefix, limit
        self.acknowledged: list[tuple[int, str]] = []
        self.failures: list[int | str] = []
        self.halt = threading.Event()

    def run(self) -> None:
        http = requests.Session()
        for index in range(self.limit):
            if self.halt.is_set():
                break
            name = f"{self.prefix}-{index}"
            try:
                response = http.post(self.server.url + CONFIG_MAPS, json=config_map(name), timeout=10)
            except requests.RequestException as error:
                self.failures.append(type(error).__name__)
                time.sleep(0.02)
                continue
            if response.status_code == 201:
                self.acknowledged.append((int(response.json()["metadata"]["resourceVersion"]), name))
            else:
                self.failures.append(response.status_code)
                time.sleep(0.02)
        http.close()

    def wait_for_acknowledged(self, count: int, seconds: float = 20) -> None:
        deadline = time.monotonic() + seconds
        while len(self.acknowledged) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(self.acknowledged) >= count, (len(self.acknowledged), self.failures[-5:])

    def stop(self) -> None:
        self.halt.set()
        self.join(30)


def assert_no_gaps(watch: WatchCounter, acknowledged: list[tuple[int, str]]) -> None:
    expected = [name for _rv, name in sorted(acknowledged)]
    watch.wait_for(set(expected))
    added = watch.names_added()
    versions = [rv for _type, _name, rv in watch.events]
    assert not watch.errors
    assert len(added) == len(set(added))  # nothing twice
    assert set(expected) <= set(added)  # every acknowledged write, the unacknowledged ones may be there too
    assert [name for name in added if name in set(expected)] == expected  # in resourceVersion order
    assert versions == sorted(set(versions))


def stored_names(server: Serve) -> set[str]:
    return {item["metadata"]["name"] for item in server.get(CONFIG_MAPS)["items"]}


@pytest.fixture
def servers() -> Iterator[list[Serve]]:
    started: list[Serve] = []
    yield started
    for server in started:
        server.kill()


def test_etcd_killed_and_started_again_under_load_loses_no_acknowledged_write(
        own_etcd: EtcdServer, tmp_path: Path, servers: list[Serve]) -> None:
    servers.append(Serve(own_etcd.url, "/registry", tmp_path / "server.log", "--simulate", "none"))
    server = servers[0]
    watch = WatchCounter(server.url, server.get(CONFIG_MAPS)["metadata"]["resourceVersion"])
    writer = Writer(server)
    writer.start()
    try:
        writer.wait_for_acknowledged(100)
        own_etcd.stop(kill=True)
        down_at = len(writer.acknowledged)
        time.sleep(1.5)
        readyz = requests.get(server.url + "/readyz", params={"verbose": "1"}, timeout=5)
        livez = requests.get(server.url + "/livez", timeout=5)
        failures_while_down = list(writer.failures)
        own_etcd.start()
        writer.wait_for_acknowledged(down_at + 100, seconds=30)  # recovered without a restart
    finally:
        writer.stop()
    assert readyz.status_code == 500 and "[-]etcd failed: reason withheld" in readyz.text
    assert livez.status_code == 200
    assert failures_while_down and set(failures_while_down) <= {504}, failures_while_down[:5]
    acknowledged = {name for _rv, name in writer.acknowledged}
    assert acknowledged <= stored_names(server)
    assert_no_gaps(watch, writer.acknowledged)
    watch.close()
    servers.append(Serve(own_etcd.url, "/registry", tmp_path / "fresh.log", "--simulate", "none"))
    assert acknowledged <= stored_names(servers[1])  # and in etcd, for a server that starts now


def test_a_replica_killed_in_the_middle_of_its_writes_loses_no_acknowledged_write(
        etcd_server: EtcdServer, tmp_path: Path, servers: list[Serve]) -> None:
    prefix = "/killed-mid-write"
    servers += [Serve(etcd_server.url, prefix, tmp_path / f"replica-{n}.log", "--simulate", "none") for n in (1, 2)]
    doomed, survivor = servers
    watch = WatchCounter(survivor.url, survivor.get(CONFIG_MAPS)["metadata"]["resourceVersion"])
    writers = [Writer(doomed, f"w{n}") for n in range(4)]
    for writer in writers:
        writer.start()
    writers[0].wait_for_acknowledged(50)
    doomed.kill()
    for writer in writers:
        writer.stop()
    acknowledged = [entry for writer in writers for entry in writer.acknowledged]
    assert len(acknowledged) >= 50
    assert {name for _rv, name in acknowledged} <= stored_names(survivor)
    assert_no_gaps(watch, acknowledged)
    watch.close()


class DelayingProxy(threading.Thread):
    """A TCP proxy on 127.0.0.1 that holds every chunk `delay` seconds before passing it on, both ways."""

    def __init__(self, target_port: int, delay: float) -> None:
        super().__init__(daemon=True)
        self.target_port, self.delay = target_port, delay
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []

    def run(self) -> None:
        while True:
            try:
                client, _address = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                time.sleep(self.delay)
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.listener.close()
        for sock in self.sockets:
            sock.close()


def test_a_network_delay_to_etcd_slows_writes_and_loses_nothing(
        etcd_server: EtcdServer, tmp_path: Path, servers: list[Serve]) -> None:
    proxy = DelayingProxy(etcd_server.port, delay=0.02)
    proxy.start()
    try:
        servers.append(Serve(f"http://127.0.0.1:{proxy.port}", "/delayed", tmp_path / "server.log",
                             "--simulate", "none"))
        server = servers[0]
        watch = WatchCounter(server.url, server.get(CONFIG_MAPS)["metadata"]["resourceVersion"])
        writer = Writer(server, limit=60)
        started = time.monotonic()
        writer.start()
        writer.join(60)
        took = time.monotonic() - started
        assert len(writer.acknowledged) == 60 and not writer.failures
        assert took >= 60 * 2 * 0.02  # each write waited for its round trip through the delay, at least
        assert_no_gaps(watch, writer.acknowledged)
        watch.close()
    finally:
        proxy.close()
