"""The pod strategies' hooks in isolation (upstream pkg/registry/core/pod/strategy.go), without HTTP."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.kinds.pod.strategy import PodResizeStrategy, PodStatusStrategy, PodStrategy
from fakeapi.machinery.types import JSON

STRATEGY = PodStrategy()
STATUS = PodStatusStrategy()


def pod(**spec: Any) -> JSON:
    obj: JSON = {"metadata": {"name": "web", "generation": 1, "resourceVersion": "5"},
                 "spec": {"containers": [{"name": "web", "image": "nginx"}], **spec}}
    STRATEGY.default(obj)
    return obj


def test_prepare_for_create_replaces_status_and_computes_the_qos_class() -> None:
    obj = pod()
    obj["status"] = {"phase": "Running", "podIP": "10.0.0.1"}
    obj["metadata"]["generation"] = 7
    STRATEGY.prepare_for_create(obj)
    assert obj["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    assert obj["metadata"]["generation"] == 1


def test_a_qos_class_sent_on_create_is_kept_as_upstream_keeps_it() -> None:
    obj = pod()
    obj["status"] = {"qosClass": "Guaranteed"}
    STRATEGY.prepare_for_create(obj)
    assert obj["status"]["qosClass"] == "Guaranteed"


def test_scheduling_gates_add_the_gated_condition() -> None:
    obj = pod(schedulingGates=[{"name": "wait"}])
    obj["metadata"]["creationTimestamp"] = "2025-01-01T00:00:00Z"
    STRATEGY.prepare_for_create(obj)
    # the transition is stamped at the create's time; Go writes the unset probe time as null
    assert obj["status"]["conditions"] == [{
        "type": "PodScheduled", "status": "False", "lastProbeTime": None,
        "lastTransitionTime": "2025-01-01T00:00:00Z", "reason": "SchedulingGated",
        "message": "Scheduling is blocked due to non-empty scheduling gates"}]


def test_an_update_of_the_pod_keeps_the_stored_status_and_bumps_generation_on_spec_changes() -> None:
    old = pod()
    STRATEGY.prepare_for_create(old)
    new = copy.deepcopy(old)
    new["status"] = {"phase": "Running"}
    new["spec"]["containers"][0]["image"] = "nginx:2"
    STRATEGY.prepare_for_update(new, old)
    assert new["status"] == old["status"]
    assert new["metadata"]["generation"] == 2
    unchanged = copy.deepcopy(old)
    STRATEGY.prepare_for_update(unchanged, old)
    assert unchanged["metadata"]["generation"] == 1


def test_a_status_write_keeps_the_spec_and_owner_references_and_backfills_an_empty_qos_class() -> None:
    old = pod()
    STRATEGY.prepare_for_create(old)
    old["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": "n", "uid": "u"}]
    new = copy.deepcopy(old)
    new["spec"]["nodeName"] = "elsewhere"
    del new["metadata"]["ownerReferences"]
    new["status"] = {"phase": "Failed", "reason": "OutOfcpu"}  # an old kubelet's rejection: no qosClass
    STATUS.prepare_for_update(new, old)
    assert new["spec"] == old["spec"]
    assert new["metadata"]["ownerReferences"] == old["metadata"]["ownerReferences"]
    assert new["status"] == {"phase": "Failed", "reason": "OutOfcpu", "qosClass": "BestEffort"}


def test_a_status_write_changing_the_qos_class_is_invalid() -> None:
    old = pod()
    STRATEGY.prepare_for_create(old)
    new = copy.deepcopy(old)
    new["status"]["qosClass"] = "Burstable"
    STATUS.prepare_for_update(new, old)
    errors = STATUS.validate_update(new, old)
    assert [str(error) for error in errors] == [
        'status.qosClass: Invalid value: "Burstable": field is immutable']


def test_condition_observed_generation_is_carried_forward_by_type() -> None:
    old = pod()
    STRATEGY.prepare_for_create(old)
    old["status"]["conditions"] = [{"type": "Ready", "status": "False", "observedGeneration": 1}]
    new = copy.deepcopy(old)
    new["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    STATUS.prepare_for_update(new, old)
    assert new["status"]["conditions"] == [{"type": "Ready", "status": "True", "observedGeneration": 1}]


@pytest.mark.parametrize(("spec", "status", "requested", "grace"), [
    ({}, {}, None, 0),  # unscheduled: at once
    ({"nodeName": "n"}, {}, None, 30),  # the defaulted terminationGracePeriodSeconds
    ({"nodeName": "n"}, {}, 5, 5),
    ({"nodeName": "n"}, {"phase": "Succeeded"}, None, 0),  # finished: at once
    ({"nodeName": "n"}, {}, -3, 1),  # negative is coerced to 1
])
def test_the_grace_period_of_a_delete(spec: JSON, status: JSON, requested: int | None, grace: int) -> None:
    obj = pod(**spec)
    obj["status"] = status
    assert STRATEGY.grace_period(obj, requested) == grace


def test_resize_changes_only_container_resources() -> None:
    old = pod()
    old["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100m"}}
    STRATEGY.prepare_for_create(old)
    new = copy.deepcopy(old)
    new["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "200m"}}
    new["spec"]["containers"][0]["image"] = "nginx:2"
    new["metadata"]["labels"] = {"ignored": "yes"}
    PodResizeStrategy().prepare_for_update(new, old)
    assert new["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "200m"}}
    assert new["spec"]["containers"][0]["image"] == "nginx"
    assert "labels" not in new["metadata"]
    assert new["metadata"]["generation"] == 2
