"""Nodes over HTTP: registration with a status, defaults, the status subresource, validation, selectors, Table."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import kubelet_status, node

NODES = "/api/v1/nodes"
NOT_READY_TAINT = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}  # TaintNodesByCondition
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


async def create(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(NODES, json=body)
    assert response.status == 201, await response.text()
    created: dict[str, Any] = await response.json()
    return created


async def invalid(client: Any, method: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.request(method, path, json=body)
    assert response.status == 422, await response.text()
    status: dict[str, Any] = await response.json()
    assert (status["reason"], status["details"]["kind"]) == ("Invalid", "Node")
    assert "group" not in status["details"]
    return status


# ---- create, read, delete


async def test_a_kubelet_registers_its_node_with_the_status_it_reports(client: Any) -> None:
    created = await create(client, node(labels={"kubernetes.io/hostname": "node-1"}, status=kubelet_status()))
    assert (created["apiVersion"], created["kind"]) == ("v1", "Node")
    assert "namespace" not in created["metadata"] and "generation" not in created["metadata"]
    assert created["status"]["nodeInfo"]["kubeletVersion"] == "v1.32.0"
    assert created["status"]["conditions"][0]["type"] == "Ready"
    read = await (await client.get(NODES + "/node-1")).json()
    assert read == created
    listed = await (await client.get(NODES)).json()
    assert (listed["kind"], listed["apiVersion"], [n["metadata"]["name"] for n in listed["items"]]) == (
        "NodeList", "v1", ["node-1"])


async def test_allocatable_defaults_to_capacity_and_quantities_are_canonical(client: Any) -> None:
    created = await create(client, node(status={"capacity": {"cpu": "0.5", "memory": "1024Mi", "pods": 110}}))
    assert created["status"]["capacity"] == {"cpu": "500m", "memory": "1Gi", "pods": "110"}
    assert created["status"]["allocatable"] == created["status"]["capacity"]
    explicit = await create(client, node("node-2", status={"capacity": {"cpu": "8"}, "allocatable": {"cpu": "7"}}))
    assert explicit["status"]["allocatable"] == {"cpu": "7"}


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ({"podCIDR": "10.244.1.0/24"}, {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"]}),
        ({"podCIDRs": ["10.244.1.0/24", "fd00::/64"]},
         {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24", "fd00::/64"]}),
        # podCIDRs wins: podCIDR is written back from its first entry
        ({"podCIDR": "10.9.9.0/24", "podCIDRs": ["10.244.1.0/24"]},
         {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"]}),
    ],
)
async def test_pod_cidr_and_pod_cidrs_are_kept_in_step(client: Any, sent: dict[str, Any],
                                                       stored: dict[str, Any]) -> None:
    spec = (await create(client, node(**sent)))["spec"]
    assert {key: spec[key] for key in ("podCIDR", "podCIDRs")} == stored


async def test_the_removed_dynamic_kubelet_config_is_dropped(client: Any) -> None:
    source = {"configMap": {"namespace": "kube-system", "name": "kubelet", "kubeletConfigKey": "kubelet"}}
    created = await create(client, node(configSource=source, status={"config": {"assigned": source}}))
    assert "configSource" not in created.get("spec", {})
    assert "config" not in created.get("status", {})


async def test_external_id_is_accepted_with_a_deprecation_warning(client: Any) -> None:
    response = await client.post(NODES, json=node(externalID="i-123"))
    assert response.status == 201
    assert response.headers["Warning"] == (
        '299 - "spec.externalID: this field is deprecated, and is unused by Kubernetes"')


async def test_a_deleted_node_answers_a_status_and_a_missing_one_is_404(client: Any) -> None:
    created = await create(client, node())
    response = await client.delete(NODES + "/node-1")
    assert response.status == 200
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
        "details": {"name": "node-1", "kind": "nodes", "uid": created["metadata"]["uid"]}}
    missing = await client.get(NODES + "/node-1")
    assert missing.status == 404
    assert (await missing.json())["message"] == 'nodes "node-1" not found'


async def test_a_namespace_sent_with_a_node_is_ignored(client: Any) -> None:
    created = await create(client, {"metadata": {"name": "node-1", "namespace": "default"}})
    assert "namespace" not in created["metadata"]


# ---- the main resource and the status subresource


async def test_writing_the_node_keeps_the_stored_status(client: Any) -> None:
    created = await create(client, node(status=kubelet_status()))
    created["spec"] = {"unschedulable": True}
    created["status"] = {"capacity": {"cpu": "1"}}
    response = await client.put(NODES + "/node-1", json=created)
    assert response.status == 200
    replaced = await response.json()
    assert replaced["spec"] == {"unschedulable": True}
    assert replaced["status"]["capacity"] == {"cpu": "8", "memory": "32827576Ki", "pods": "110"}
    assert "generation" not in replaced["metadata"]


async def test_writing_the_status_keeps_the_stored_spec(client: Any) -> None:
    await create(client, node(providerID="kind://docker/kind/node-1"))
    body = node(status=kubelet_status(ready="False"), providerID="something://else", unschedulable=True)
    response = await client.put(NODES + "/node-1/status", json=body)
    assert response.status == 200
    written = await response.json()
    assert written["spec"] == {"providerID": "kind://docker/kind/node-1", "taints": [NOT_READY_TAINT]}
    assert written["status"]["conditions"][0]["status"] == "False"
    assert written["status"]["allocatable"] == written["status"]["capacity"]  # defaulted on the status write too
    merged = await client.patch(NODES + "/node-1/status", json={"status": {"conditions": [
        {"type": "Ready", "status": "True"}]}}, headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert [c["status"] for c in (await merged.json())["status"]["conditions"]] == ["True"]


async def test_a_status_write_without_conditions_keeps_none(client: Any) -> None:
    await create(client, node(status=kubelet_status()))
    response = await client.put(NODES + "/node-1/status", json=node(status={"capacity": {"cpu": "2"}}))
    # daemonEndpoints and nodeInfo are value structs: Go writes them, zero, even when unset
    assert (await response.json())["status"] == {
        "capacity": {"cpu": "2"}, "allocatable": {"cpu": "2"},
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 0}},
        "nodeInfo": dict.fromkeys(("machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
                                   "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion",
                                   "operatingSystem", "architecture"), "")}


# ---- validation


async def test_taints_are_validated_and_reported_under_upstreams_metadata_path(client: Any) -> None:
    taints = [{"key": "bad key", "effect": "NoSchedule"}, {"key": "a", "effect": "Sometimes"},
              {"key": "a", "value": "b", "effect": "NoExecute"}, {"key": "a", "effect": "NoExecute"},
              {"key": "c"}]
    status = await invalid(client, "POST", NODES, node(taints=taints))
    assert [(c["field"], c["message"]) for c in status["details"]["causes"]] == [
        ("metadata.taints[0].key", 'Invalid value: "bad key": name part must consist of alphanumeric characters, '
         "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
         "or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
        ("metadata.taints[1].effect",
         'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'),
        ("metadata.taints[3]", 'Duplicate value: core.Taint{Key:"a", Value:"", Effect:"NoExecute", '
         "TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair"),
        ("metadata.taints[4].effect", "Required value"),
    ]
    assert status["message"].startswith('Node "node-1" is invalid: [metadata.taints[0].key: Invalid value: ')


@pytest.mark.parametrize(
    ("cidrs", "causes"),
    [
        (["10.0.0.0/33"], [("spec.podCIDRs[0]", 'Invalid value: "10.0.0.0/33": must be a valid CIDR value, '
                                                "(e.g. 10.9.8.0/24 or 2001:db8::/64)")]),
        (["10.0.0.0/24", "10.1.0.0/24"], [("spec.podCIDRs", 'Invalid value: []string{"10.0.0.0/24", '
                                           '"10.1.0.0/24"}: may specify no more than one CIDR for each IP family')]),
        (["10.0.0.0/24", "fd00::/64", "fd01::/64"],
         [("spec.podCIDRs", 'Invalid value: []string{"10.0.0.0/24", "fd00::/64", "fd01::/64"}: may specify no '
                            "more than one CIDR for each IP family")]),
        (["fd00::/64", "fd00::/64"], [
            ("spec.podCIDRs", 'Invalid value: []string{"fd00::/64", "fd00::/64"}: may specify no more than one '
                              "CIDR for each IP family"),
            ("spec.podCIDRs[1]", 'Duplicate value: "fd00::/64"')]),
        (["10.0.0.0/24", "x"], [
            ("spec.podCIDRs[1]", 'Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or '
                                 "2001:db8::/64)"),
            ("spec.podCIDRs", 'Internal error: invalid PodCIDRs. failed to check with dual stack with error:failed '
                              'to parse cidr value:"x" with error:invalid CIDR address: x'),
            ("spec.podCIDRs", 'Invalid value: []string{"10.0.0.0/24", "x"}: may specify no more than one CIDR for '
                              "each IP family")]),
    ],
)
async def test_pod_cidrs_must_be_cidrs_one_per_family(client: Any, cidrs: list[str],
                                                      causes: list[tuple[str, str]]) -> None:
    status = await invalid(client, "POST", NODES, node(podCIDRs=cidrs))
    assert [(c["field"], c["message"]) for c in status["details"]["causes"]] == causes


async def test_capacity_and_allocatable_quantities_are_checked(client: Any) -> None:
    status = await invalid(client, "POST", NODES, node(status={"capacity": {"cpu": "-1", "pods": "1.5"}}))
    assert [(c["field"], c["message"]) for c in status["details"]["causes"]] == [
        ("status.capacity.cpu", 'Invalid value: "-1": must be greater than or equal to 0'),
        ("status.capacity.pods", "Invalid value: 1500m: must be an integer"),
        ("status.allocatable.cpu", 'Invalid value: "-1": must be greater than or equal to 0'),
        ("status.allocatable.pods", "Invalid value: 1500m: must be an integer"),
    ]


async def test_a_node_name_is_a_dns_subdomain(client: Any) -> None:
    status = await invalid(client, "POST", NODES, node("Node_1"))
    assert status["details"]["causes"][0]["field"] == "metadata.name"


async def test_pod_cidrs_and_provider_id_are_set_once(client: Any) -> None:
    created = await create(client, node())
    created["spec"] = {"podCIDR": "10.244.1.0/24", "providerID": "kind://docker/kind/node-1"}
    first = await client.put(NODES + "/node-1", json=created)
    assert first.status == 200  # from unset to set: what node-ipam and the cloud controller do
    changed = await first.json()
    changed["spec"] = {"podCIDR": "10.244.2.0/24", "providerID": "aws:///i-1", "externalID": "x"}
    status = await invalid(client, "PUT", NODES + "/node-1", changed)
    assert [(c["field"], c["message"]) for c in status["details"]["causes"]] == [
        ("spec.podCIDRs", 'Forbidden: node updates may not change podCIDR except from "" to valid'),
        ("spec.providerID", 'Forbidden: node updates may not change providerID except from "" to valid'),
        ("spec.externalID", "Forbidden: may not be updated"),
    ]


async def test_an_update_reports_taint_errors_twice_in_its_causes_as_upstream(client: Any) -> None:
    """The node strategy's ValidateUpdate runs ValidateNode and ValidateNodeUpdate: both check taints."""
    created = await create(client, node())
    created["spec"] = {"taints": [{"key": "a", "effect": "Never"}]}
    status = await invalid(client, "PUT", NODES + "/node-1", created)
    unsupported = 'Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'
    assert [(c["field"], c["message"]) for c in status["details"]["causes"]] == [
        ("metadata.taints[0].effect", unsupported)] * 2
    assert status["message"] == f'Node "node-1" is invalid: metadata.taints[0].effect: {unsupported}'


async def test_a_status_write_may_not_repeat_an_address(client: Any) -> None:
    await create(client, node())
    addresses = [{"type": "InternalIP", "address": "10.0.0.1"}, {"type": "InternalIP", "address": "10.0.0.1"}]
    status = await invalid(client, "PUT", NODES + "/node-1/status", node(status={"addresses": addresses}))
    assert [(c["field"], c["message"]) for c in status["details"]["causes"]] == [
        ("status.addresses[1]", 'Duplicate value: core.NodeAddress{Type:"InternalIP", Address:"10.0.0.1"}')]


async def test_a_rejected_write_changes_nothing(client: Any) -> None:
    created = await create(client, node(status=kubelet_status()))
    response = await client.patch(NODES + "/node-1", json={"spec": {"taints": [{"key": "a"}]}},
                                  headers={"Content-Type": "application/merge-patch+json"})
    assert response.status == 422
    assert await (await client.get(NODES + "/node-1")).json() == created


# ---- field selectors


async def test_nodes_select_on_name_and_unschedulable(client: Any) -> None:
    await create(client, node("a"))
    await create(client, node("b", unschedulable=True))
    for selector, names in (("spec.unschedulable=true", ["b"]), ("spec.unschedulable=false", ["a"]),
                            ("spec.unschedulable!=true,metadata.name!=x", ["a"]), ("metadata.name=b", ["b"])):
        listed = await (await client.get(NODES, params={"fieldSelector": selector})).json()
        assert [n["metadata"]["name"] for n in listed["items"]] == names, selector


@pytest.mark.parametrize("label", ["metadata.namespace", "status.phase"])
async def test_other_node_field_labels_are_not_supported(client: Any, label: str) -> None:
    response = await client.get(NODES, params={"fieldSelector": f"{label}=x"})
    assert response.status == 400
    assert (await response.json())["message"] == f"field label not supported: {label}"


# ---- Table


async def test_table_columns_are_upstreams(client: Any) -> None:
    table = await (await client.get(NODES, headers={"Accept": TABLE})).json()
    assert [(c["name"], c["type"], c["format"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", "string", "name", 0), ("Status", "string", "", 0), ("Roles", "string", "", 0),
        ("Age", "string", "", 0), ("Version", "string", "", 0), ("Internal-IP", "string", "", 1),
        ("External-IP", "string", "", 1), ("OS-Image", "string", "", 1), ("Kernel-Version", "string", "", 1),
        ("Container-Runtime", "string", "", 1)]
    descriptions = {c["name"]: c["description"] for c in table["columnDefinitions"]}
    assert descriptions["Status"] == "The status of the node"
    assert descriptions["Version"] == "Kubelet Version reported by the node."
    assert descriptions["External-IP"].startswith("List of addresses reachable to the node.")


@pytest.mark.parametrize(
    ("body", "cells"),
    [
        (node(labels={"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/worker": "",
                      "kubernetes.io/role": "edge"}, status=kubelet_status()),
         ["node-1", "Ready", "control-plane,edge,worker", "0s", "v1.32.0", "172.18.0.2", "<none>",
          "Debian GNU/Linux 12 (bookworm)", "6.8.0-49-generic", "containerd://1.7.24"]),
        (node(status=kubelet_status(ready="Unknown")) | {"spec": {"unschedulable": True}},
         ["node-1", "NotReady,SchedulingDisabled", "<none>", "0s", "v1.32.0", "172.18.0.2", "<none>",
          "Debian GNU/Linux 12 (bookworm)", "6.8.0-49-generic", "containerd://1.7.24"]),
        (node(status={"addresses": [{"type": "ExternalIP", "address": "203.0.113.9"}]}),
         ["node-1", "Unknown", "<none>", "0s", "", "<none>", "203.0.113.9", "<unknown>", "<unknown>", "<unknown>"]),
    ],
    ids=["ready-with-roles", "cordoned-not-ready", "unknown"],
)
async def test_table_rows_print_status_roles_and_node_info(client: Any, body: dict[str, Any],
                                                           cells: list[str]) -> None:
    from datetime import UTC, datetime

    from fakeapi.http.keys import api_key

    client.app[api_key].clock.freeze(datetime(2030, 6, 1, 12, tzinfo=UTC))
    await create(client, body)
    table = await (await client.get(NODES + "/node-1", headers={"Accept": TABLE})).json()
    assert table["rows"][0]["cells"] == cells
