"""pods/status updates (spec §3 step 3): qosClass, conditions, state transitions, IPs, metadata."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.kinds.pod.validation.pod import validate_pod_status_update
from fakeapi.machinery import fielderrors as fe
from tests.validation_messages import NAME_PART_MSG


def stored_pod(restart_policy: str = "Always", **status: Any) -> dict[str, Any]:
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
            "containers": [{"name": "app", "image": "nginx", "terminationMessagePolicy": "File"}],
            "initContainers": [
                {"name": "init", "image": "busybox"},
                {"name": "sidecar", "image": "envoy", "restartPolicy": "Always"},
            ],
            "restartPolicy": restart_policy,
            "nodeName": "node-1",
        },
        "status": {"phase": "Running", "qosClass": "Burstable", **status},
    }


def with_status(old: dict[str, Any], **status: Any) -> dict[str, Any]:
    new = copy.deepcopy(old)
    new["status"].update(status)
    return new


def check(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    return [str(e) for e in validate_pod_status_update(new, old)]


def test_unchanged_status_write_is_valid() -> None:
    old = stored_pod()
    assert validate_pod_status_update(copy.deepcopy(old), old) == []


# --- qosClass ----------------------------------------------------------------------------------


def test_qos_class_change_is_rejected_as_field_is_immutable() -> None:
    old = stored_pod(qosClass="Guaranteed")
    errors = validate_pod_status_update(with_status(old, qosClass="Burstable"), old)
    assert [str(e) for e in errors] == ['status.qosClass: Invalid value: "Burstable": field is immutable']
    assert errors[0].reason == fe.INVALID
    assert errors[0].to_cause() == {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "Burstable": field is immutable',
        "field": "status.qosClass",
    }


def test_same_qos_class_is_accepted() -> None:
    old = stored_pod(qosClass="Burstable")
    assert check(with_status(old, qosClass="Burstable", phase="Succeeded"), old) == []


def test_setting_a_class_where_none_was_stored_counts_as_a_change() -> None:
    old = stored_pod(qosClass="")
    assert check(with_status(old, qosClass="BestEffort"), old) == [
        'status.qosClass: Invalid value: "BestEffort": field is immutable'
    ]


# --- conditions and node names -----------------------------------------------------------------


def test_custom_condition_types_are_qualified_names_at_the_odd_metadata_path() -> None:
    old = stored_pod()
    conditions = [
        {"type": "Ready", "status": "True"},
        {"type": "example.com/ok", "status": "True"},
        {"type": "bad type"},
    ]
    assert check(with_status(old, conditions=conditions), old) == [
        f'metadata.conditions[2].Type: Invalid value: "bad type": {NAME_PART_MSG}'
    ]


def test_nominated_node_name_must_be_a_subdomain_when_changed() -> None:
    old = stored_pod()
    assert check(with_status(old, nominatedNodeName="node-2"), old) == []
    [error] = check(with_status(old, nominatedNodeName="Node_2"), old)
    assert error.startswith(
        'status.nominatedNodeName: Invalid value: "Node_2": a lowercase RFC 1123 subdomain'
    )


def test_node_name_may_not_change_through_status() -> None:
    old = stored_pod()
    new = copy.deepcopy(old)
    new["spec"]["nodeName"] = "node-2"
    assert check(new, old) == ["status.nodeName: Forbidden: may not be changed directly"]


# --- container state transitions ---------------------------------------------------------------


def terminated(name: str, exit_code: int) -> dict[str, Any]:
    return {"name": name, "state": {"terminated": {"exitCode": exit_code}}}


def running(name: str) -> dict[str, Any]:
    return {"name": name, "state": {"running": {}}}


@pytest.mark.parametrize(
    ("policy", "exit_code", "allowed"),
    [("Always", 0, True), ("OnFailure", 1, True), ("OnFailure", 0, False), ("Never", 1, False)],
)
def test_terminated_containers_restart_only_if_the_policy_allows(
    policy: str, exit_code: int, allowed: bool
) -> None:
    old = stored_pod(policy, containerStatuses=[terminated("app", exit_code)])
    result = check(with_status(old, containerStatuses=[running("app")]), old)
    expected = (
        []
        if allowed
        else ["status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"]
    )
    assert result == expected


def test_restartable_init_containers_may_leave_terminated() -> None:
    old = stored_pod("Never", initContainerStatuses=[terminated("init", 0), terminated("sidecar", 0)])
    new = with_status(old, initContainerStatuses=[running("init"), running("sidecar")])
    assert check(new, old) == [
        "status.initContainerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"
    ]


def test_ephemeral_containers_never_restart() -> None:
    old = stored_pod("Always", ephemeralContainerStatuses=[terminated("debug", 1)])
    assert check(with_status(old, ephemeralContainerStatuses=[running("debug")]), old) == [
        "status.ephemeralContainerStatuses[0].state: Forbidden: may not be transitioned to non-terminated "
        "state"
    ]


# --- IPs ---------------------------------------------------------------------------------------


def test_valid_dual_stack_ips() -> None:
    old = stored_pod()
    new = with_status(
        old,
        podIPs=[{"ip": "10.0.0.5"}, {"ip": "fd00::5"}],
        hostIP="192.168.1.2",
        hostIPs=[{"ip": "192.168.1.2"}, {"ip": "fd00::2"}],
    )
    assert check(new, old) == []


def test_pod_ips_must_be_valid_and_one_per_family() -> None:
    old = stored_pod()
    assert check(with_status(old, podIPs=[{"ip": "10.0.0.500"}]), old) == [
        'status.podIPs[0]: Invalid value: "10.0.0.500": must be a valid IP address, (e.g. 10.9.8.7 or '
        "2001:db8::ffff)"
    ]
    assert check(with_status(old, podIPs=[{"ip": "10.0.0.1"}, {"ip": "10.0.0.1"}]), old) == [
        'status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"10.0.0.1"}}: '
        "may specify no more than one IP for each IP family",
        'status.podIPs[1]: Duplicate value: core.PodIP{IP:"10.0.0.1"}',
    ]


def test_first_host_ip_must_equal_host_ip() -> None:
    old = stored_pod()
    assert check(with_status(old, hostIP="10.0.0.1", hostIPs=[{"ip": "10.0.0.2"}]), old) == [
        'status.hostIPs[0].ip: Invalid value: "10.0.0.2": must be equal to `hostIP`'
    ]


# --- metadata and claims -----------------------------------------------------------------------


def test_labels_may_change_but_identity_may_not() -> None:
    old = stored_pod()
    new = copy.deepcopy(old)
    new["metadata"]["labels"] = {"phase": "done"}
    assert check(new, old) == []
    new["metadata"]["deletionTimestamp"] = "2024-05-01T11:00:00Z"
    assert check(new, old) == [
        "metadata.deletionTimestamp: Invalid value: 2024-05-01 11:00:00 +0000 UTC: field is immutable"
    ]


def test_mirror_pod_annotation_may_not_be_added_through_status() -> None:
    old = stored_pod()
    new = copy.deepcopy(old)
    new["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "x"}
    assert check(new, old) == [
        "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation"
    ]


def test_resource_claim_statuses_must_name_a_pod_claim() -> None:
    old = stored_pod()
    old["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "gpu-claim"}]
    assert (
        check(with_status(old, resourceClaimStatuses=[{"name": "gpu", "resourceClaimName": "c1"}]), old) == []
    )
    assert check(with_status(old, resourceClaimStatuses=[{"name": "tpu"}]), old) == [
        'status.resourceClaimStatuses[0].name: Invalid value: "tpu": must match the name of an entry in '
        "`spec.resourceClaims`"
    ]


def test_container_status_users_are_valid_ids() -> None:
    old = stored_pod()
    statuses = [{"name": "app", "state": {"running": {}}, "user": {"linux": {"uid": -1, "gid": 0}}}]
    assert check(with_status(old, containerStatuses=statuses), old) == [
        "status.containerStatuses[0].linux.uid: Invalid value: -1: must be between 0 and 2147483647, "
        "inclusive"
    ]
