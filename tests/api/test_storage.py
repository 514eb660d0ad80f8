"""A server on a storage file, stopped and started again on it: the objects, the resourceVersion
sequence, the control API's reset and snapshots, and namespaces left terminating."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fakeapi.app import create_app
from fakeapi.config import ServerConfig, SimulationConfig
from fakeapi.http.access import CONTROL_HEADER
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.types import ObjectKey
from fakeapi.storage.sqlite import SqliteJournal
from fakeapi.storage.store import Store

PODS = "/api/v1/namespaces/default/pods"
NAMESPACES = "/api/v1/namespaces"
INITIAL = ["default", "kube-node-lease", "kube-public", "kube-system"]
CONTROL = {CONTROL_HEADER: "1"}  # what the control API asks of requests that change state
Start = Callable[[], Awaitable[Any]]


def starter(aiohttp_client: Any, path: Path) -> Start:
    async def start() -> Any:
        return await aiohttp_client(create_app(ServerConfig(storage_file=path)))
    return start


async def names(client: Any, path: str) -> list[str]:
    response = await client.get(path)
    return [item["metadata"]["name"] for item in (await response.json())["items"]]


async def rv_of_list(client: Any, path: str) -> int:
    return int((await (await client.get(path)).json())["metadata"]["resourceVersion"])


async def test_a_restarted_server_keeps_its_objects_and_namespaces(aiohttp_client: Any, tmp_path: Path,
                                                                   make_pod: Any) -> None:
    start = starter(aiohttp_client, tmp_path / "fakeapi.db")
    first = await start()
    assert (await first.post(NAMESPACES, json={"metadata": {"name": "shop"}})).status == 201
    first_default = await (await first.get(NAMESPACES + "/default")).json()
    first_lease = await (await first.delete(NAMESPACES + "/kube-node-lease")).json()
    await _until(lambda: names(first, NAMESPACES), ["default", "kube-public", "kube-system", "shop"])
    created = await (await first.post(PODS, json=make_pod("web"))).json()
    before = await rv_of_list(first, PODS)
    await first.close()

    second = await start()
    assert await (await second.get(PODS + "/web")).json() == created
    # its own namespaces; of the initial ones, only the missing one is made again (as upstream's system
    # namespaces controller does at start)
    namespaces = {item["metadata"]["name"]: item for item in (await (await second.get(NAMESPACES)).json())["items"]}
    assert sorted(namespaces) == ["default", "kube-node-lease", "kube-public", "kube-system", "shop"]
    assert namespaces["default"]["metadata"]["uid"] == first_default["metadata"]["uid"]
    assert namespaces["kube-node-lease"]["metadata"]["uid"] != first_lease["metadata"]["uid"]
    created_again = await (await second.post(PODS, json=make_pod("db"))).json()
    assert int(created_again["metadata"]["resourceVersion"]) > before


async def test_a_seeded_server_restarted_hands_out_no_uid_twice(aiohttp_client: Any, tmp_path: Path,
                                                                make_pod: Any) -> None:
    config = ServerConfig(seed=7, storage_file=tmp_path / "fakeapi.db")
    first = await aiohttp_client(create_app(config))
    await first.post(PODS, json=make_pod("web"))
    uids = {item["metadata"]["uid"] for item in (await (await first.get(NAMESPACES)).json())["items"]}
    uids.add((await (await first.get(PODS + "/web")).json())["metadata"]["uid"])
    await first.close()

    second = await aiohttp_client(create_app(config))
    created = [await (await second.post(PODS, json=make_pod(name))).json() for name in ("a", "b", "c", "d", "e")]
    assert not uids & {obj["metadata"]["uid"] for obj in created}


async def test_reset_and_a_restored_snapshot_are_what_a_restart_finds(aiohttp_client: Any, tmp_path: Path,
                                                                      make_pod: Any) -> None:
    start = starter(aiohttp_client, tmp_path / "fakeapi.db")
    first = await start()
    await first.post(PODS, json=make_pod("kept"))
    assert (await first.post("/fakeapi/v1/snapshots", headers=CONTROL)).status == 201
    await first.post(PODS, json=make_pod("dropped"))
    assert (await first.post("/fakeapi/v1/snapshots/1/restore", headers=CONTROL)).status == 200
    restored_at = await rv_of_list(first, PODS)
    await first.close()

    second = await start()
    assert await names(second, PODS) == ["kept"]
    assert await rv_of_list(second, PODS) == restored_at
    assert (await second.post("/fakeapi/v1/reset", headers=CONTROL)).status == 200
    reset_at = await rv_of_list(second, PODS)
    await second.close()

    third = await start()
    assert await names(third, PODS) == []
    assert await names(third, NAMESPACES) == INITIAL
    assert await rv_of_list(third, PODS) == reset_at > restored_at


async def test_a_namespace_held_by_a_finalizer_is_removed_after_a_restart(aiohttp_client: Any, tmp_path: Path,
                                                                          make_pod: Any) -> None:
    start = starter(aiohttp_client, tmp_path / "fakeapi.db")
    shop = "/api/v1/namespaces/shop/pods"
    first = await start()
    await first.post(NAMESPACES, json={"metadata": {"name": "shop"}})
    await first.post(shop, json=make_pod("web", namespace="shop", metadata={"finalizers": ["example.com/keep"]}))
    assert (await first.delete(NAMESPACES + "/shop")).status == 200
    await _until(lambda: _deleting(first, shop + "/web"), True)
    await first.close()

    second = await start()
    response = await second.patch(shop + "/web", json={"metadata": {"finalizers": None}},
                                  headers={"Content-Type": "application/merge-patch+json"})
    assert response.status == 200
    await _until(lambda: names(second, NAMESPACES), INITIAL)


async def test_a_namespace_deleted_just_before_a_crash_is_emptied_and_removed_after_the_restart(
        aiohttp_client: Any, tmp_path: Path, make_pod: Any) -> None:
    path = tmp_path / "fakeapi.db"
    first = await starter(aiohttp_client, path)()
    await first.post(NAMESPACES, json={"metadata": {"name": "shop"}})
    await first.post("/api/v1/namespaces/shop/pods", json=make_pod("web", namespace="shop"))
    await first.close()
    # the namespace's deletion was stored, and the server died before its controller ran
    store = Store(journal=SqliteJournal(path))
    key = ObjectKey("namespaces", "", "shop")
    namespace = store.get(key)
    namespace["metadata"]["deletionTimestamp"] = namespace["metadata"]["creationTimestamp"]
    namespace["status"] = {"phase": "Terminating"}
    store.update(key, namespace, namespace["metadata"]["resourceVersion"])
    store.close()

    second = await starter(aiohttp_client, path)()
    await _until(lambda: names(second, NAMESPACES), INITIAL)
    assert (await second.get("/api/v1/namespaces/shop/pods/web")).status == 404



async def test_a_namespace_whose_account_and_ca_were_not_made_before_a_crash_gets_them_after_the_restart(
        aiohttp_client: Any, tmp_path: Path) -> None:
    path = tmp_path / "fakeapi.db"
    first = await starter(aiohttp_client, path)()
    await first.post(NAMESPACES, json={"metadata": {"name": "shop"}})
    account = await (await first.get("/api/v1/namespaces/shop/serviceaccounts/default")).json()
    await first.close()
    # the namespace was stored, and the server died before its controllers' writes
    store = Store(journal=SqliteJournal(path))
    store.delete(ObjectKey("serviceaccounts", "shop", "default"))
    store.delete(ObjectKey("configmaps", "shop", "kube-root-ca.crt"))
    store.close()

    second = await starter(aiohttp_client, path)()
    remade = await (await second.get("/api/v1/namespaces/shop/serviceaccounts/default")).json()
    assert remade["metadata"]["uid"] != account["metadata"]["uid"]
    assert (await second.get("/api/v1/namespaces/shop/configmaps/kube-root-ca.crt")).status == 200
    assert (await second.get("/api/v1/namespaces/default/serviceaccounts/default")).status == 200


async def test_a_simulated_cluster_restarted_keeps_its_nodes_and_running_pods_and_runs_new_ones(
        aiohttp_client: Any, tmp_path: Path, make_pod: Any) -> None:
    config = ServerConfig(storage_file=tmp_path / "fakeapi.db", simulation=SimulationConfig(mode="cluster"))
    clock = frozen_clock()
    first = await aiohttp_client(create_app(config, clock))
    await first.post(PODS, json=make_pod("web"))
    await _until(lambda: _phase_after_a_second(clock, first, "web"), "Running")
    web = await (await first.get(PODS + "/web")).json()
    await first.close()

    clock = frozen_clock()
    second = await aiohttp_client(create_app(config, clock))
    assert await names(second, "/api/v1/nodes") == ["node-1"]
    assert (await (await second.get(PODS + "/web")).json())["metadata"]["uid"] == web["metadata"]["uid"]
    await second.post(PODS, json=make_pod("db"))
    await _until(lambda: _phase_after_a_second(clock, second, "db"), "Running")
    assert await _phase_after_a_second(clock, second, "web") == "Running"


def frozen_clock() -> Clock:
    clock = Clock()
    clock.freeze(datetime(2030, 6, 1, 12, 0, 0, tzinfo=UTC))
    return clock


async def _phase_after_a_second(clock: Clock, client: Any, name: str) -> str | None:
    """The pod's phase once the simulated cluster has had one more second of the server's clock."""
    clock.advance(1)
    await asyncio.sleep(0)
    phase: str | None = (await (await client.get(f"{PODS}/{name}")).json()).get("status", {}).get("phase")
    return phase

async def _deleting(client: Any, path: str) -> bool:
    obj = await (await client.get(path)).json()
    return "deletionTimestamp" in obj["metadata"]


async def _until(read: Callable[[], Awaitable[Any]], wanted: Any) -> None:
    """Poll `read` until it returns `wanted` (at most 100 times, 5 s)."""
    got = None
    for _ in range(100):
        got = await read()
        if got == wanted:
            return
        await asyncio.sleep(0.05)
    assert got == wanted


async def test_a_file_of_the_last_release_is_migrated_and_its_lease_served(aiohttp_client: Any,
                                                                           tmp_path: Path) -> None:
    path = tmp_path / "fakeapi.db"
    leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
    first = await starter(aiohttp_client, path)()
    lease = {"metadata": {"name": "leader"}, "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}}
    created = await (await first.post(leases, json=lease)).json()
    await first.close()
    with sqlite3.connect(path) as db:  # as the last release wrote it: keyed by the plural alone, layout 1
        db.execute("UPDATE objects SET resource = 'leases' WHERE resource = 'leases.coordination.k8s.io'")
        db.execute("PRAGMA user_version = 1")
    db.close()

    second = await starter(aiohttp_client, path)()
    assert await (await second.get(leases + "/leader")).json() == created
    taken = await second.post(leases, json=lease)
    assert (taken.status, (await taken.json())["reason"]) == (409, "AlreadyExists")
