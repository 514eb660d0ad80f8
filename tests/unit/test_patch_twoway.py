"""Two-way strategic merge patches (what kubelets and controllers send): applying the patch to the old
object gives the new one, and the patch has upstream's shape."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.kinds.pod import POD
from fakeapi.machinery.patch import apply_strategic_merge_patch, create_two_way_merge_patch

TREE = POD.patch_tree
SCHEDULED = {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
             "lastTransitionTime": "2030-01-01T00:00:00Z"}


def ready(status: str) -> dict[str, Any]:
    return {"type": "Ready", "status": status, "lastProbeTime": None, "lastTransitionTime": "2030-01-01T00:00:01Z"}


def pod_status(**status: Any) -> dict[str, Any]:
    return {"status": {"phase": "Pending", "qosClass": "BestEffort", **status}}


def test_a_rejected_pod_status_drops_the_class_and_the_conditions() -> None:
    """A v1.31 kubelet's rejection: every field it leaves out is patched to null."""
    old = pod_status(conditions=[SCHEDULED])
    new = {"metadata": {"uid": "u"}, "status": {"phase": "Failed", "reason": "OutOfcpu", "message": "m",
                                                "startTime": "2030-01-01T00:00:02Z"}}
    patch = create_two_way_merge_patch(old, new, TREE)
    assert patch == {"metadata": {"uid": "u"}, "status": {
        "phase": "Failed", "reason": "OutOfcpu", "message": "m", "startTime": "2030-01-01T00:00:02Z",
        "qosClass": None, "conditions": None}}


def test_changed_conditions_carry_their_merge_key_and_the_new_order() -> None:
    old = pod_status(conditions=[ready("False"), SCHEDULED])
    new = pod_status(conditions=[ready("True"), SCHEDULED])
    assert create_two_way_merge_patch(old, new, TREE) == {"status": {
        "$setElementOrder/conditions": [{"type": "Ready"}, {"type": "PodScheduled"}],
        "conditions": [{"type": "Ready", "status": "True"}]}}


def test_removed_items_get_a_delete_directive_after_the_changes() -> None:
    old = pod_status(conditions=[ready("False"), SCHEDULED])
    new = pod_status(conditions=[SCHEDULED])
    assert create_two_way_merge_patch(old, new, TREE) == {"status": {
        "$setElementOrder/conditions": [{"type": "PodScheduled"}],
        "conditions": [{"$patch": "delete", "type": "Ready"}]}}


def test_equal_objects_give_an_empty_patch() -> None:
    assert create_two_way_merge_patch(pod_status(conditions=[SCHEDULED]), pod_status(conditions=[SCHEDULED]),
                                      TREE) == {}


@pytest.mark.parametrize("old, new", [
    (pod_status(), pod_status(conditions=[{"type": "PodScheduled", "status": "True"}], podIP="10.244.0.5",
                              podIPs=[{"ip": "10.244.0.5"}])),
    (pod_status(conditions=[ready("False"), SCHEDULED]), pod_status(conditions=[SCHEDULED, ready("True")])),
    (pod_status(containerStatuses=[{"name": "a", "ready": False}]),
     pod_status(containerStatuses=[{"name": "a", "ready": True}], phase="Running")),
    (pod_status(conditions=[SCHEDULED], podIPs=[{"ip": "10.244.0.5"}]), pod_status()),
])
def test_applying_the_patch_to_the_old_object_gives_the_new_one(old: dict[str, Any], new: dict[str, Any]) -> None:
    assert apply_strategic_merge_patch(old, create_two_way_merge_patch(old, new, TREE), TREE) == new
