"""Two `fakeapi serve` processes on one etcd serve one cluster: a write on either reaches the watches on
both, in order and without gaps; the simulated cluster runs on the replica holding its Lease only, and
moves to the other within the lease duration when that replica is killed, its pods carrying on (none
started twice)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fakeapi.simulation.election import LEASE_DURATION, LEASE_NAME, RETRY_PERIOD
from tests.etcdserver import EtcdServer
from tests.storage.servers import Serve, WatchCounter, config_map

_clusters = itertools.count()
LEASE = f"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/{LEASE_NAME}"
PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture
def replicas(etcd_server: EtcdServer, tmp_path: Path) -> Iterator[list[Serve]]:
    """`replicas.append(start(*args))`-style: the list of servers started; each is killed at the end."""
    started: list[Serve] = []
    yield started
    for server in started:
        server.kill()


def start(etcd_server: EtcdServer, tmp_path: Path, prefix: str, number: int, *args: str) -> Serve:
    return Serve(etcd_server.url, prefix, tmp_path / f"replica-{number}.log", *args)


def test_writes_on_either_replica_reach_the_watches_on_both_in_order_without_gaps(
        etcd_server: EtcdServer, tmp_path: Path, replicas: list[Serve]) -> None:
    prefix = f"/replicas-{next(_clusters)}"
    replicas += [start(etcd_server, tmp_path, prefix, n, "--simulate", "none") for n in (1, 2)]
    first, second = replicas
    since = second.get("/api/v1/namespaces/default/configmaps")["metadata"]["resourceVersion"]
    watches = [WatchCounter(server.url, since) for server in replicas]
    acknowledged: list[tuple[int, str]] = []
    for index in range(100):
        response = (first if index % 2 else second).post("/api/v1/namespaces/default/configmaps",
                                                         config_map(f"cm-{index}"))
        assert response.status_code == 201, response.text
        acknowledged.append((int(response.json()["metadata"]["resourceVersion"]), f"cm-{index}"))
    expected = [name for _rv, name in sorted(acknowledged)]
    for watch in watches:
        watch.wait_for(set(expected))
        watch.close()
        versions = [rv for _type, _name, rv in watch.events]
        assert watch.names_added() == expected  # every acknowledged write once, in resourceVersion order
        assert versions == sorted(set(versions)) and not watch.errors
    # a write acknowledged by one replica is read at once from the other (consistent reads)
    response = first.post("/api/v1/namespaces/default/configmaps", config_map("last"))
    assert second.get("/api/v1/namespaces/default/configmaps/last")["data"] == {"n": "last"}
    assert response.status_code == 201


def pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}


def wait_until(check: Any, seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            found = check()
        except Exception:  # noqa: BLE001 (a replica answering an error yet: try again)
            found = None
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen within {seconds}s")


def running(server: Serve, names: list[str]) -> bool:
    pods = {p["metadata"]["name"]: p for p in server.get(PODS)["items"]}
    return all((pods.get(name) or {}).get("status", {}).get("phase") == "Running" for name in names)


def started_events(server: Serve, name: str) -> int:
    events = server.get("/api/v1/namespaces/default/events",
                        fieldSelector=f"involvedObject.name={name},reason=Started")["items"]
    return sum(event.get("count", 1) for event in events)


def test_the_simulated_cluster_runs_once_and_moves_to_the_other_replica_when_its_own_is_killed(
        etcd_server: EtcdServer, tmp_path: Path, replicas: list[Serve]) -> None:
    prefix = f"/replicas-{next(_clusters)}"
    replicas.append(start(etcd_server, tmp_path, prefix, 1, "--nodes", "2"))
    leader = replicas[0]
    holder = wait_until(lambda: leader.get(LEASE)["spec"]["holderIdentity"], 20, "the first replica leading")
    replicas.append(start(etcd_server, tmp_path, prefix, 2, "--nodes", "2"))
    other = replicas[1]
    names = [f"web-{index}" for index in range(4)]
    for name in names:
        assert other.post(PODS, pod(name)).status_code == 201
    wait_until(lambda: running(other, names), 30, "the pods running")
    # (events are written after the fact, as upstream's broadcaster writes them: wait for them, so that a
    # second Started event after the takeover would show a pod started twice)
    wait_until(lambda: all(started_events(other, name) == 1 for name in names), 30, "the Started events")
    before = {p["metadata"]["name"]: p["status"] for p in other.get(PODS)["items"]}
    assert "leads the simulated cluster" not in other.stderr()
    assert len(other.get("/api/v1/nodes")["items"]) == 2  # registered once, by the leader

    leader.kill()  # kill -9: no release of the lease
    killed_at = time.monotonic()
    new_holder = wait_until(lambda: (h := other.get(LEASE)["spec"]["holderIdentity"]) != holder and h,
                            LEASE_DURATION + 3 * RETRY_PERIOD + 5, "the other replica taking over")
    took = time.monotonic() - killed_at
    assert took <= LEASE_DURATION + 2 * RETRY_PERIOD + 1, took
    assert new_holder and "leads the simulated cluster" in other.stderr()

    assert other.post(PODS, pod("after")).status_code == 201
    wait_until(lambda: running(other, ["after"]), 30, "a pod created after the takeover running")
    after = {p["metadata"]["name"]: p["status"] for p in other.get(PODS)["items"]}
    for name in names:  # the pods carried on: same start, same containers, never restarted
        assert after[name]["startTime"] == before[name]["startTime"]
        assert after[name]["containerStatuses"][0]["state"] == before[name]["containerStatuses"][0]["state"]
        assert after[name]["containerStatuses"][0]["restartCount"] == 0
        assert started_events(other, name) == 1
    assert len(other.get("/api/v1/nodes")["items"]) == 2


def test_idle_replicas_leave_etcd_alone(etcd_server: EtcdServer, tmp_path: Path, replicas: list[Serve]) -> None:
    """Each replica names its own port in the `kubernetes` Service's endpoints; they do not rewrite them in turn."""
    prefix = f"/replicas-{next(_clusters)}"
    replicas += [start(etcd_server, tmp_path, prefix, n, "--simulate", "none") for n in (1, 2)]
    first, second = replicas
    time.sleep(1)
    before = int(first.get("/api/v1/namespaces/default/configmaps")["metadata"]["resourceVersion"])
    time.sleep(2)
    after = int(second.get("/api/v1/namespaces/default/configmaps")["metadata"]["resourceVersion"])
    assert after - before <= 2, f"{after - before} writes to etcd in 2 s of two idle replicas"
    endpoints = second.get("/api/v1/namespaces/default/endpoints/kubernetes")
    ports = {int(server.url.rsplit(":", 1)[1]) for server in replicas}
    assert endpoints["subsets"][0]["ports"][0]["port"] in ports
