"""DELETE's propagation policy, as the apiserver's store applies it before any garbage collector acts: the
`foregroundDeletion` and `orphan` finalizers, the kind's default policy, and what a later delete changes.
(No simulated cluster here, so no garbage collector removes the finalizers.)"""

from __future__ import annotations

from typing import Any

from tests.builders import pod

CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"
PODS = "/api/v1/namespaces/default/pods"
EVENTS = "/api/v1/namespaces/default/events"


async def make_config_map(client: Any, name: str = "settings", finalizers: list[str] | None = None) -> None:
    metadata: dict[str, Any] = {"name": name}
    if finalizers:
        metadata["finalizers"] = finalizers
    response = await client.post(CONFIG_MAPS, json={"metadata": metadata, "data": {"a": "1"}})
    assert response.status == 201, await response.text()


async def delete(client: Any, path: str, **body: Any) -> tuple[int, dict[str, Any]]:
    response = await client.delete(path, json={"kind": "DeleteOptions", "apiVersion": "v1", **body})
    return response.status, await response.json()


async def stored(client: Any, path: str) -> dict[str, Any] | None:
    response = await client.get(path)
    if response.status == 404:
        return None
    result: dict[str, Any] = await response.json()
    return result


async def test_a_foreground_delete_marks_the_object_with_the_foreground_finalizer(client: Any) -> None:
    await make_config_map(client)
    status, deleted = await delete(client, CONFIG_MAPS + "/settings", propagationPolicy="Foreground")
    assert status == 200
    meta = deleted["metadata"]
    assert meta["finalizers"] == ["foregroundDeletion"]
    assert meta["deletionGracePeriodSeconds"] == 0 and meta["deletionTimestamp"]
    kept = await stored(client, CONFIG_MAPS + "/settings")
    assert kept is not None and kept["metadata"]["finalizers"] == ["foregroundDeletion"]


async def test_an_orphan_delete_marks_the_object_with_the_orphan_finalizer(client: Any) -> None:
    await make_config_map(client)
    _status, deleted = await delete(client, CONFIG_MAPS + "/settings", propagationPolicy="Orphan")
    assert deleted["metadata"]["finalizers"] == ["orphan"]
    assert await stored(client, CONFIG_MAPS + "/settings") is not None


async def test_orphan_dependents_true_is_the_orphan_policy(client: Any) -> None:
    await make_config_map(client)
    _status, deleted = await delete(client, CONFIG_MAPS + "/settings", orphanDependents=True)
    assert deleted["metadata"]["finalizers"] == ["orphan"]


async def test_a_background_delete_removes_the_object_at_once(client: Any) -> None:
    await make_config_map(client)
    status, _deleted = await delete(client, CONFIG_MAPS + "/settings", propagationPolicy="Background")
    assert status == 200
    assert await stored(client, CONFIG_MAPS + "/settings") is None


async def test_a_delete_without_policy_keeps_the_finalizer_the_object_carries(client: Any) -> None:
    await make_config_map(client, finalizers=["orphan"])
    _status, deleted = await delete(client, CONFIG_MAPS + "/settings")
    assert deleted["metadata"]["finalizers"] == ["orphan"]
    assert await stored(client, CONFIG_MAPS + "/settings") is not None


async def test_a_later_background_delete_drops_the_orphan_finalizer_and_the_object_goes(client: Any) -> None:
    await make_config_map(client)
    await delete(client, CONFIG_MAPS + "/settings", propagationPolicy="Orphan")
    await delete(client, CONFIG_MAPS + "/settings", propagationPolicy="Background")
    assert await stored(client, CONFIG_MAPS + "/settings") is None


async def test_a_later_foreground_delete_swaps_the_orphan_finalizer(client: Any) -> None:
    await make_config_map(client, finalizers=["example.com/hold"])
    await delete(client, CONFIG_MAPS + "/settings", propagationPolicy="Orphan")
    _status, deleted = await delete(client, CONFIG_MAPS + "/settings", propagationPolicy="Foreground")
    assert deleted["metadata"]["finalizers"] == ["example.com/hold", "foregroundDeletion"]


async def test_other_finalizers_stay_in_their_order(client: Any) -> None:
    await make_config_map(client, finalizers=["example.com/a", "example.com/b"])
    _status, deleted = await delete(client, CONFIG_MAPS + "/settings", propagationPolicy="Foreground")
    assert deleted["metadata"]["finalizers"] == ["example.com/a", "example.com/b", "foregroundDeletion"]


async def test_orphan_dependents_false_with_a_finalizer_held_delete_answers_202(client: Any) -> None:
    await make_config_map(client, finalizers=["example.com/hold"])
    status, deleted = await delete(client, CONFIG_MAPS + "/settings", orphanDependents=False)
    assert status == 202
    assert deleted["metadata"]["finalizers"] == ["example.com/hold"]


async def test_a_dry_run_foreground_delete_changes_nothing(client: Any) -> None:
    await make_config_map(client)
    response = await client.delete(CONFIG_MAPS + "/settings", params={"dryRun": "All"},
                                   json={"propagationPolicy": "Foreground"})
    assert (await response.json())["metadata"]["finalizers"] == ["foregroundDeletion"]
    kept = await stored(client, CONFIG_MAPS + "/settings")
    assert kept is not None and "finalizers" not in kept["metadata"]
    assert "deletionTimestamp" not in kept["metadata"]


async def test_a_pod_deleted_in_the_foreground_keeps_its_grace_period_and_takes_the_finalizer(client: Any) -> None:
    await client.post(PODS, json=pod(nodeName="node-1"))
    _status, deleted = await delete(client, PODS + "/web", propagationPolicy="Foreground")
    assert deleted["metadata"]["deletionGracePeriodSeconds"] == 30
    assert deleted["metadata"]["finalizers"] == ["foregroundDeletion"]
    await delete(client, PODS + "/web", gracePeriodSeconds=0)  # as a kubelet does when its containers stopped
    kept = await stored(client, PODS + "/web")
    assert kept is not None and kept["metadata"]["deletionGracePeriodSeconds"] == 0


async def test_events_never_take_a_propagation_finalizer(client: Any) -> None:
    event = {"metadata": {"name": "e1"}, "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default"},
             "reason": "Test", "message": "m"}
    assert (await client.post(EVENTS, json=event)).status == 201
    await delete(client, EVENTS + "/e1", propagationPolicy="Foreground")
    assert await stored(client, EVENTS + "/e1") is None


async def test_a_foreground_delete_collection_marks_each_object(client: Any) -> None:
    await make_config_map(client, "a")
    await make_config_map(client, "b")
    response = await client.delete(CONFIG_MAPS, params={"fieldSelector": "metadata.name!=kube-root-ca.crt"},
                                   json={"propagationPolicy": "Foreground"})
    assert response.status == 200
    for name in ("a", "b"):
        kept = await stored(client, f"{CONFIG_MAPS}/{name}")
        assert kept is not None and kept["metadata"]["finalizers"] == ["foregroundDeletion"]
