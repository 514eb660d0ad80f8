"""The statefulset controller's PersistentVolumeClaims and their retention policy, one upstream behaviour per
test, on a frozen clock."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import events_of

CLAIM_TEMPLATE = {"metadata": {"name": "data", "labels": {"tier": "db"}},
                  "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


@pytest.fixture
def apps(api: Any) -> Any:
    return k8s.AppsV1Api(api)


def with_claims(replicas: int = 2, when_deleted: str = "Retain", when_scaled: str = "Retain") -> dict[str, Any]:
    return workloads.stateful_set(replicas=replicas, podManagementPolicy="Parallel",
                                  volumeClaimTemplates=[CLAIM_TEMPLATE],
                                  persistentVolumeClaimRetentionPolicy={"whenDeleted": when_deleted,
                                                                        "whenScaled": when_scaled})


def claims(core: Any) -> dict[str, list[tuple[str, str, bool | None]]]:
    """Each claim's owners: (kind, name, controller)."""
    return {claim.metadata.name: [(ref.kind, ref.name, ref.controller) for ref in claim.metadata.owner_references or []]
            for claim in core.list_namespaced_persistent_volume_claim("default").items}


def test_each_pod_gets_its_claims_made_first(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    apps.create_namespaced_stateful_set("default", with_claims())
    cluster.clock.advance(1)
    claim = core.read_namespaced_persistent_volume_claim("data-web-0", "default")
    assert claim.metadata.labels == {"tier": "db", "app": "web"} and claim.status.phase == "Pending"
    assert claim.spec.volume_mode == "Filesystem" and claim.metadata.owner_references is None  # Retain
    pod = core.read_namespaced_pod("web-0", "default")
    assert [(v.name, v.persistent_volume_claim.claim_name) for v in pod.spec.volumes
            if v.persistent_volume_claim] == [("data", "data-web-0")]
    messages = [message for _type, _reason, message in events_of(core, "web")]
    assert messages.index("create Claim data-web-0 Pod web-0 in StatefulSet web success") < messages.index(
        "create Pod web-0 in StatefulSet web successful")


def test_retained_claims_outlive_scale_down_and_the_set(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    apps.create_namespaced_stateful_set("default", with_claims())
    cluster.clock.advance(1)
    apps.patch_namespaced_stateful_set("web", "default", {"spec": {"replicas": 1}})
    cluster.clock.advance(2)
    apps.delete_namespaced_stateful_set("web", "default")
    cluster.clock.advance(2)
    assert claims(core) == {"data-web-0": [], "data-web-1": []}


def test_when_deleted_delete_makes_the_set_own_the_claims(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    apps.create_namespaced_stateful_set("default", with_claims(when_deleted="Delete"))
    cluster.clock.advance(1)
    assert claims(core) == {"data-web-0": [("StatefulSet", "web", True)], "data-web-1": [("StatefulSet", "web", True)]}
    apps.patch_namespaced_stateful_set("web", "default", {"spec": {"replicas": 1}})
    cluster.clock.advance(2)
    assert set(claims(core)) == {"data-web-0", "data-web-1"}  # whenScaled Retain
    apps.delete_namespaced_stateful_set("web", "default")
    cluster.clock.advance(2)
    assert claims(core) == {}


def test_when_scaled_delete_gives_a_condemned_pods_claims_to_the_pod(cluster: FakeAPIServer, apps: Any,
                                                                     core: Any) -> None:
    apps.create_namespaced_stateful_set("default", with_claims(when_scaled="Delete"))
    cluster.clock.advance(1)
    assert claims(core) == {"data-web-0": [], "data-web-1": []}
    apps.patch_namespaced_stateful_set("web", "default", {"spec": {"replicas": 1}})
    cluster.clock.advance(0.1)
    assert claims(core)["data-web-1"] == [("Pod", "web-1", True)]
    cluster.clock.advance(2)  # the pod went, and its claim with it
    assert claims(core) == {"data-web-0": []}
    apps.delete_namespaced_stateful_set("web", "default")
    cluster.clock.advance(2)
    assert claims(core) == {"data-web-0": []}  # whenDeleted Retain


def test_a_changed_policy_updates_the_owners_of_existing_claims(cluster: FakeAPIServer, apps: Any,
                                                                core: Any) -> None:
    apps.create_namespaced_stateful_set("default", with_claims(replicas=1))
    cluster.clock.advance(1)
    apps.patch_namespaced_stateful_set("web", "default", {"spec": {"persistentVolumeClaimRetentionPolicy": {
        "whenDeleted": "Delete"}}})
    cluster.clock.advance(1)
    assert claims(core) == {"data-web-0": [("StatefulSet", "web", True)]}
