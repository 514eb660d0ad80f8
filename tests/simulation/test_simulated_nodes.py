"""Simulated nodes as a v1.32 kubelet and the node controllers keep them: registered Ready, untainted,
with a lease renewed every 10 s on the server clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests.simulation.conftest import START, events_of

KUBELET_AGENT = "kubelet/v1.32.0 (linux/amd64) kubernetes/fakeapi"


def conditions(node: Any) -> dict[str, tuple[str, str]]:
    return {condition.type: (condition.status, condition.reason) for condition in node.status.conditions}


def test_a_node_registers_ready_untainted_with_the_kubelets_status(core: Any) -> None:
    node = core.read_node("node-1")
    assert conditions(node) == {"MemoryPressure": ("False", "KubeletHasSufficientMemory"),
                                "DiskPressure": ("False", "KubeletHasNoDiskPressure"),
                                "PIDPressure": ("False", "KubeletHasSufficientPID"),
                                "Ready": ("True", "KubeletReady")}
    assert node.status.conditions[-1].message == "kubelet is posting ready status"
    assert node.spec.taints is None  # the admission's not-ready taint went once the node was Ready
    assert node.spec.pod_cidr == "10.244.0.0/24"
    assert node.metadata.labels == {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
                                    "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": "node-1",
                                    "kubernetes.io/os": "linux"}
    assert [(a.type, a.address) for a in node.status.addresses] == [("InternalIP", "172.18.0.2"),
                                                                    ("Hostname", "node-1")]
    assert node.status.daemon_endpoints.kubelet_endpoint.port == 10250
    assert (node.status.node_info.kubelet_version, node.status.node_info.container_runtime_version) == (
        "v1.32.0", "containerd://1.7.24")
    assert node.status.allocatable == node.status.capacity == {
        "cpu": "8", "ephemeral-storage": "100Gi", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "32Gi",
        "pods": "110"}
    assert [reason for _type, reason, _message in events_of(core, "node-1")] == [
        "Starting", "NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID",
        "NodeAllocatableEnforced", "RegisteredNode"]


def test_the_lease_is_renewed_every_ten_seconds_on_the_server_clock(cluster: FakeAPIServer) -> None:
    leases = k8s.CoordinationV1Api(cluster.kubernetes_client())
    first = leases.read_namespaced_lease("node-1", "kube-node-lease")
    assert (first.spec.holder_identity, first.spec.lease_duration_seconds) == ("node-1", 40)
    assert first.metadata.owner_references[0].kind == "Node"
    cluster.clock.advance(9)
    assert leases.read_namespaced_lease("node-1", "kube-node-lease").spec.renew_time == first.spec.renew_time
    cluster.clock.advance(30)
    renewed = leases.read_namespaced_lease("node-1", "kube-node-lease").spec.renew_time
    assert renewed == first.spec.renew_time + timedelta(seconds=30)
    renewals = [entry for entry in cluster.requests if entry.method == "PUT" and entry.resource == "leases"]
    assert {entry.user_agent for entry in renewals} == {KUBELET_AGENT} and len(renewals) == 3
    # each kubelet authenticates as its node (upstream's node client certificate)
    assert {(entry.user.username, entry.user.groups) for entry in renewals} == {
        ("system:node:node-1", ("system:nodes", "system:authenticated"))}


def test_the_node_status_is_reported_every_five_minutes(cluster: FakeAPIServer, core: Any) -> None:
    def heartbeat() -> Any:
        return next(c.last_heartbeat_time for c in core.read_node("node-1").status.conditions if c.type == "Ready")

    cluster.clock.advance(299)
    assert heartbeat() == START
    cluster.clock.advance(1)
    assert heartbeat() == START + timedelta(seconds=300)
    transition = next(c.last_transition_time for c in core.read_node("node-1").status.conditions if c.type == "Ready")
    assert transition == START


def test_a_node_created_through_the_api_is_run_by_a_kubelet(cluster: FakeAPIServer, core: Any) -> None:
    core.create_node(k8s.V1Node(metadata=k8s.V1ObjectMeta(name="big", labels={"disk": "ssd"}),
                                status=k8s.V1NodeStatus(capacity={"cpu": "64", "memory": "256Gi", "pods": "250"})))
    node = core.read_node("big")
    assert conditions(node)["Ready"] == ("True", "KubeletReady")
    assert node.status.capacity == {"cpu": "64", "memory": "256Gi", "pods": "250"}
    assert node.metadata.labels["disk"] == "ssd" and node.metadata.labels["kubernetes.io/hostname"] == "big"
    assert node.spec.taints is None and node.spec.pod_cidr == "10.244.1.0/24"


def test_a_node_labelled_unsimulated_goes_unknown_after_the_grace_period(cluster: FakeAPIServer, core: Any) -> None:
    core.create_node(k8s.V1Node(metadata=k8s.V1ObjectMeta(name="ghost", labels={"fakeapi.dev/simulated": "false"}),
                                status=k8s.V1NodeStatus(conditions=[k8s.V1NodeCondition(
                                    type="Ready", status="True", reason="KubeletReady",
                                    last_heartbeat_time=START, last_transition_time=START)])))
    cluster.clock.advance(45)
    assert conditions(core.read_node("ghost"))["Ready"] == ("True", "KubeletReady")
    cluster.clock.advance(15)
    ghost = core.read_node("ghost")
    assert conditions(ghost) == {"Ready": ("Unknown", "NodeStatusUnknown"),
                                 "MemoryPressure": ("Unknown", "NodeStatusNeverUpdated"),
                                 "DiskPressure": ("Unknown", "NodeStatusNeverUpdated"),
                                 "PIDPressure": ("Unknown", "NodeStatusNeverUpdated")}
    assert ghost.status.conditions[0].message == "Kubelet stopped posting node status."
    assert [(taint.key, taint.effect) for taint in ghost.spec.taints] == [
        ("node.kubernetes.io/unreachable", "NoSchedule"), ("node.kubernetes.io/unreachable", "NoExecute")]
    assert ("Normal", "NodeNotReady", "Node ghost status is now: NodeNotReady") in events_of(core, "ghost")
    assert conditions(core.read_node("node-1"))["Ready"] == ("True", "KubeletReady")  # its kubelet renews


def test_a_failed_node_goes_unknown_and_recovers(cluster: FakeAPIServer, core: Any) -> None:
    cluster.node("node-1").fail()
    cluster.clock.advance(60)
    assert conditions(core.read_node("node-1"))["Ready"][0] == "Unknown"
    cluster.node("node-1").recover()
    node = core.read_node("node-1")
    assert conditions(node)["Ready"] == ("True", "KubeletReady") and node.spec.taints is None


def test_reset_registers_the_nodes_again(cluster: FakeAPIServer, core: Any) -> None:
    uid = core.read_node("node-1").metadata.uid
    cluster.reset()
    cluster.clock.freeze(START)
    again = core.read_node("node-1")
    assert conditions(again)["Ready"] == ("True", "KubeletReady") and again.spec.taints is None
    assert again.metadata.uid == uid  # the seeded ids start over


def test_a_fault_aimed_at_the_kubelet_fails_its_renewal_which_it_retries(cluster: FakeAPIServer) -> None:
    leases = k8s.CoordinationV1Api(cluster.kubernetes_client())
    before = leases.read_namespaced_lease("node-1", "kube-node-lease").spec.renew_time
    rule = cluster.inject(resource="leases", verb="update", status=500, times=1, user_agent="kubelet/*")
    cluster.clock.advance(10)
    assert rule.fired == 1
    assert leases.read_namespaced_lease("node-1", "kube-node-lease").spec.renew_time == before
    cluster.clock.advance(1)
    assert leases.read_namespaced_lease("node-1", "kube-node-lease").spec.renew_time == before + timedelta(seconds=11)
    assert [entry.status for entry in cluster.requests if entry.verb == "update"][-2:] == [500, 200]


def test_a_server_reset_before_it_starts_runs_its_nodes_once_started() -> None:
    server = FakeAPIServer(nodes=1)
    server.reset()
    with server:
        assert [node["metadata"]["name"] for node in server.list("nodes")] == ["node-1"]


def test_a_kubelet_that_cannot_write_goes_unknown_keeps_trying_and_comes_back(cluster: FakeAPIServer,
                                                                             core: Any) -> None:
    leases = k8s.CoordinationV1Api(cluster.kubernetes_client())
    rule = cluster.inject(user_agent="kubelet/*", status=503)  # every lease renewal and status report fails
    cluster.clock.advance(50)  # last renewed at the start: the grace period runs from there
    assert conditions(core.read_node("node-1"))["Ready"] == ("True", "KubeletReady")
    cluster.clock.advance(5)
    assert conditions(core.read_node("node-1"))["Ready"] == ("Unknown", "NodeStatusUnknown")
    failed = rule.fired
    cluster.clock.advance(125)
    assert rule.fired > failed  # its renewals go on failing, with back-off, and it keeps trying
    cluster.clear_faults()
    cluster.clock.advance(60)  # the longest back-off
    assert conditions(core.read_node("node-1"))["Ready"] == ("True", "KubeletReady")
    renewed = leases.read_namespaced_lease("node-1", "kube-node-lease").spec.renew_time
    assert (START + timedelta(seconds=240) - renewed).total_seconds() <= 60
    cluster.clock.advance(60)  # and renews it every 10 s again
    renewed_again = leases.read_namespaced_lease("node-1", "kube-node-lease").spec.renew_time
    assert (START + timedelta(seconds=300) - renewed_again).total_seconds() <= 10


def test_the_kubelet_reports_only_what_it_owns_however_much_a_client_wrote_into_the_node(
        cluster: FakeAPIServer, core: Any) -> None:
    """Its status patch carries the heartbeats: conditions of other types, volumesAttached and the like stay,
    and a node holding thousands of them costs no more than its own size."""
    extra = {"type": "NetworkUnavailable", "status": "False", "reason": "RouteCreated",
             "message": "RouteController created a route"}
    custom = [{"type": f"example.com/Check{index}", "status": "False", "reason": "Fine"} for index in range(2000)]
    attached = [{"name": f"kubernetes.io/csi/driver^volume-{index}", "devicePath": ""} for index in range(2000)]
    core.patch_node_status("node-1", {"status": {"conditions": [extra, *custom], "volumesAttached": attached}})
    written = [condition.type for condition in core.read_node("node-1").status.conditions]
    cluster.clock.advance(300)  # the next status report
    status = core.read_node("node-1").status
    assert [condition.type for condition in status.conditions] == written and len(written) == 2005
    assert len(status.volumes_attached) == 2000
    reports = [entry for entry in cluster.requests if entry.user_agent.startswith("kubelet/")
               and entry.subresource == "status" and entry.resource == "nodes"]
    patch = reports[-1].json()
    assert set(patch["status"]) == {"conditions", "$setElementOrder/conditions"}  # heartbeats, and their order
    assert [condition["type"] for condition in patch["status"]["conditions"]] == [
        "MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]
