"""Main-resource pod updates (spec §6.3) and pods/resize: mutability rules and messages."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.kinds.pod.validation.pod import validate_pod_resize, validate_pod_update
from fakeapi.kinds.pod.validation.update import SPEC_CHANGE_PREFIX
from fakeapi.machinery import fielderrors as fe

EXPECTED_PREFIX = (
    "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
    "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
    "previously negative)\n"
)


def container(name: str = "app", **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "image": "nginx:1",
        "imagePullPolicy": "IfNotPresent",
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "resources": {},
        **fields,
    }


def stored_pod(**spec: Any) -> dict[str, Any]:
    """A pod as the store holds it (defaulted, with server-set metadata and status)."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "uid": "u-1",
            "resourceVersion": "7",
            "generation": 1,
            "creationTimestamp": "2024-05-01T10:00:00Z",
        },
        "spec": {
            "containers": [container()],
            "restartPolicy": "Always",
            "dnsPolicy": "ClusterFirst",
            "terminationGracePeriodSeconds": 30,
            "securityContext": {},
            "schedulerName": "default-scheduler",
            **spec,
        },
        "status": {"phase": "Pending", "qosClass": "BestEffort"},
    }


def update(old: dict[str, Any], **spec_changes: Any) -> list[str]:
    new = copy.deepcopy(old)
    new["spec"].update(spec_changes)
    return [str(e) for e in validate_pod_update(new, old)]


def test_unchanged_pod_is_a_valid_update() -> None:
    old = stored_pod()
    assert validate_pod_update(copy.deepcopy(old), old) == []


def test_labels_and_annotations_may_change() -> None:
    old = stored_pod()
    new = copy.deepcopy(old)
    new["metadata"]["labels"] = {"tier": "web"}
    new["metadata"]["annotations"] = {"note": "x"}
    assert validate_pod_update(new, old) == []


def test_container_images_may_change_but_not_to_empty_or_padded() -> None:
    old = stored_pod(initContainers=[container("init")])
    assert (
        update(
            old, containers=[container(image="nginx:2")], initContainers=[container("init", image="busybox")]
        )
        == []
    )
    assert update(old, containers=[container(image="")]) == [
        "spec.containers[0].image: Required value",
        "spec.containers[0].image: Required value",
    ]
    assert update(old, containers=[container(image=" nginx")]) == [
        'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace',
        'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace',
    ]


def test_adding_a_container_stops_validation_there() -> None:
    old = stored_pod()
    result = update(old, containers=[container(), container("b")], nodeName="n1")
    assert result == ["spec.containers: Forbidden: pod updates may not add or remove containers"]


@pytest.mark.parametrize(
    ("old_value", "new_value", "expected"),
    [
        (None, 30, []),
        (60, 30, []),
        (
            30,
            60,
            ["spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value"],
        ),
        (
            30,
            None,
            [
                "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to "
                "nil value"
            ],
        ),
        (
            None,
            -1,
            [
                "spec.activeDeadlineSeconds: Invalid value: -1: must be between 1 and 2147483647, inclusive",
                "spec.activeDeadlineSeconds: Invalid value: -1: must be between 0 and 2147483647, inclusive",
            ],
        ),
        (
            30,
            0,
            ["spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"],
        ),
    ],
)
def test_active_deadline_seconds(old_value: int | None, new_value: int | None, expected: list[str]) -> None:
    old = stored_pod(activeDeadlineSeconds=old_value) if old_value is not None else stored_pod()
    assert update(old, activeDeadlineSeconds=new_value) == expected


TOLERATION = {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}


def test_tolerations_may_be_added_and_their_seconds_changed() -> None:
    old = stored_pod(tolerations=[TOLERATION])
    extra = {"key": "other", "operator": "Exists"}
    assert update(old, tolerations=[{**TOLERATION, "tolerationSeconds": 10}, extra]) == []


def test_existing_tolerations_may_not_be_modified_or_removed() -> None:
    old = stored_pod(tolerations=[TOLERATION])
    expected = [
        "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
    ]
    assert update(old, tolerations=[{**TOLERATION, "key": "other"}]) == expected
    assert update(old, tolerations=[]) == expected


def test_scheduling_gates_may_only_be_removed() -> None:
    old = stored_pod(schedulingGates=[{"name": "a.io/one"}, {"name": "a.io/two"}])
    assert update(old, schedulingGates=[{"name": "a.io/two"}]) == []
    result = validate_pod_update(
        {**old, "spec": {**old["spec"], "schedulingGates": [{"name": "a.io/new"}]}}, old
    )
    assert [str(e) for e in result] == [
        "spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate "
        "'a.io/new'"
    ]
    assert result[0].reason == fe.FORBIDDEN


def test_negative_grace_period_may_be_set_to_one_only() -> None:
    old = stored_pod(terminationGracePeriodSeconds=-1)
    assert update(old, terminationGracePeriodSeconds=1) == []
    [error] = update(old, terminationGracePeriodSeconds=5)
    assert error.startswith(EXPECTED_PREFIX)


@pytest.mark.parametrize(
    "changes",
    [
        {"nodeName": "node-1"},
        {"containers": [container(resources={"limits": {"cpu": "1"}, "requests": {"cpu": "1"}})]},
        {"containers": [container(env=[{"name": "A", "value": "1"}])]},
        {"priorityClassName": "high"},
        {"terminationGracePeriodSeconds": 10},
    ],
)
def test_other_spec_changes_are_forbidden_with_the_upstream_prefix(changes: dict[str, Any]) -> None:
    old = stored_pod()
    new = copy.deepcopy(old)
    new["spec"].update(changes)
    [error] = validate_pod_update(new, old)
    assert error.reason == fe.FORBIDDEN
    assert error.field == "spec"
    assert str(error).startswith(EXPECTED_PREFIX)
    assert error.detail.startswith(SPEC_CHANGE_PREFIX + "\n")


def test_spec_diff_names_the_changed_path() -> None:
    [error] = update(stored_pod(), nodeName="node-1")
    assert '+ spec.nodeName: "node-1"' in error


def test_semantically_equal_quantities_are_not_a_change() -> None:
    old = stored_pod(containers=[container(resources={"limits": {"cpu": "1"}, "requests": {"cpu": "1"}})])
    assert (
        update(old, containers=[container(resources={"limits": {"cpu": "1000m"}, "requests": {"cpu": "1"}})])
        == []
    )


def test_metadata_update_rules_apply() -> None:
    old = stored_pod()
    new = copy.deepcopy(old)
    new["metadata"]["uid"] = "u-2"
    assert [str(e) for e in validate_pod_update(new, old)] == [
        'metadata.uid: Invalid value: "u-2": field is immutable'
    ]


def test_mirror_pod_annotation_may_not_be_added_or_removed() -> None:
    old = stored_pod(nodeName="n1")
    new = copy.deepcopy(old)
    new["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "x"}
    assert [str(e) for e in validate_pod_update(new, old)] == [
        "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation"
    ]
    assert [str(e) for e in validate_pod_update(old, new)] == [
        "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not remove or update mirror pod "
        "annotation"
    ]


def test_gated_pod_may_gain_node_selector_keys_only() -> None:
    old = stored_pod(schedulingGates=[{"name": "a.io/g"}], nodeSelector={"zone": "a"})
    assert update(old, nodeSelector={"zone": "a", "disk": "ssd"}) == []
    assert update(old, nodeSelector={"zone": "b"}) == [
        'spec.nodeSelector: Invalid value: map[string]string{"zone":"b"}: '
        "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
    ]
    ungated = stored_pod(nodeSelector={"zone": "a"})
    [error] = update(ungated, nodeSelector={"zone": "a", "disk": "ssd"})
    assert error.startswith(EXPECTED_PREFIX)


def test_gated_pod_may_narrow_required_node_affinity() -> None:
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    }
    old = stored_pod(schedulingGates=[{"name": "a.io/g"}], affinity=affinity)
    narrower = copy.deepcopy(affinity)
    expressions = narrower["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ][0]
    expressions["matchExpressions"].append({"key": "disk", "operator": "Exists"})
    assert update(old, affinity=narrower) == []
    wider = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term, term]}
        }
    }
    [error] = update(old, affinity=wider)
    assert error.startswith(
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: "
        "Invalid value: "
    )
    assert error.endswith(": no additions/deletions to non-empty NodeSelectorTerms list are allowed")


# --- pods/resize -------------------------------------------------------------------------------

RESOURCES = {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}


def resized(old: dict[str, Any], resources: dict[str, Any], **fields: Any) -> dict[str, Any]:
    new = copy.deepcopy(old)
    new["spec"]["containers"][0]["resources"] = resources
    new["spec"]["containers"][0].update(fields)
    return new


def test_resize_that_keeps_the_qos_class_is_valid() -> None:
    old = stored_pod(containers=[container(resources=RESOURCES)])
    bigger = {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "2", "memory": "1Gi"}}
    assert validate_pod_resize(resized(old, bigger), old, "Guaranteed", "Guaranteed") == []


def test_resize_may_not_change_the_qos_class() -> None:
    old = stored_pod(containers=[container(resources=RESOURCES)])
    old["status"]["qosClass"] = "Guaranteed"
    burstable = {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}
    new = resized(old, burstable)
    assert [str(e) for e in validate_pod_resize(new, old, "Burstable", "Guaranteed")] == [
        'spec: Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing'
    ]


def test_resize_may_not_remove_requests_or_limits_or_shrink_memory_limits() -> None:
    old = stored_pod(containers=[container(resources=RESOURCES)])
    new = resized(old, {"limits": {"cpu": "1", "memory": "512Mi"}, "requests": {"cpu": "1"}})
    assert [str(e) for e in validate_pod_resize(new, old, "Burstable", "Burstable")] == [
        "spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed",
        "spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be decreased unless "
        "resizePolicy is RestartContainer",
    ]
    policy = [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]
    allowed = resized(
        old, {"limits": {"cpu": "1", "memory": "512Mi"}, "requests": {"cpu": "1", "memory": "512Mi"}}
    )
    allowed["spec"]["containers"][0]["resizePolicy"] = policy
    old["spec"]["containers"][0]["resizePolicy"] = policy
    assert validate_pod_resize(allowed, old, "Guaranteed", "Guaranteed") == []


def test_resize_changes_only_cpu_and_memory() -> None:
    old = stored_pod(containers=[container(resources=RESOURCES)])
    new = resized(old, RESOURCES, image="nginx:2")
    assert [str(e) for e in validate_pod_resize(new, old, "Guaranteed", "Guaranteed")] == [
        "spec: Forbidden: only cpu and memory resources are mutable"
    ]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"spec": {"resources": {"limits": {"cpu": "1"}}}},
            "Forbidden: pods with pod-level resources cannot be resized",
        ),
        (
            {"metadata": {"annotations": {"kubernetes.io/config.mirror": "x"}}},
            "Forbidden: static pods cannot be resized",
        ),
        ({"spec": {"os": {"name": "windows"}}}, "Forbidden: windows pods cannot be resized"),
    ],
)
def test_pods_that_cannot_be_resized(change: dict[str, Any], expected: str) -> None:
    old = stored_pod(nodeName="n1")
    for section, values in change.items():
        old[section].update(values)
    assert [str(e) for e in validate_pod_resize(copy.deepcopy(old), old, "BestEffort", "BestEffort")] == [
        expected
    ]
