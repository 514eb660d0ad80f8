"""The real kubectl against nodes and leases: get (wide), cordon, field selectors, describe node, and a kind
in a named API group (apply, get, delete and its NotFound message)."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

from tests.builders import kubelet_status, node
from tests.kubectl.conftest import Kubectl, Server


def post(server: Server, path: str, body: dict[str, Any]) -> None:
    request = urllib.request.Request(server.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 201


def rows(output: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in output.strip().splitlines()]


def register(server: Server, name: str, **labels: str) -> None:
    post(server, "/api/v1/nodes", node(name, labels={"kubernetes.io/hostname": name, **labels},
                                       status=kubelet_status(internal_ip="172.18.0.9"), podCIDR="10.244.9.0/24"))


def lease_yaml(name: str, holder: str) -> str:
    return (f"apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: {name}\n"
            f"  namespace: kube-node-lease\nspec:\n  holderIdentity: {holder}\n  leaseDurationSeconds: 40\n"
            '  renewTime: "2030-06-01T12:00:00.123456Z"\n')


def test_get_nodes_prints_status_roles_and_the_wide_columns(kubectl: Kubectl) -> None:
    register(kubectl.server, "cp-1", **{"node-role.kubernetes.io/control-plane": ""})
    table = rows(kubectl.ok("get", "nodes", "cp-1"))
    assert table[0] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert [table[1][i] for i in (0, 1, 2, 4)] == ["cp-1", "Ready", "control-plane", "v1.32.0"]
    wide = rows(kubectl.ok("get", "no", "cp-1", "-o", "wide"))
    assert wide[0] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE",
                       "KERNEL-VERSION", "CONTAINER-RUNTIME"]
    assert wide[1][5:] == ["172.18.0.9", "<none>", "Debian GNU/Linux 12 (bookworm)", "6.8.0-49-generic",
                           "containerd://1.7.24"]


def test_cordon_shows_scheduling_disabled_and_selects_by_unschedulable(kubectl: Kubectl) -> None:
    register(kubectl.server, "worker-1")
    assert kubectl.ok("cordon", "worker-1") == "node/worker-1 cordoned\n"
    assert rows(kubectl.ok("get", "node", "worker-1"))[1][1] == "Ready,SchedulingDisabled"
    selected = kubectl.ok("get", "nodes", "--field-selector", "spec.unschedulable=true", "-o", "name")
    assert "node/worker-1" in selected.split()
    assert kubectl.ok("uncordon", "worker-1") == "node/worker-1 uncordoned\n"
    refused = kubectl("get", "nodes", "--field-selector", "status.phase=Ready")
    assert refused.rc == 1
    assert "field label not supported: status.phase" in refused.err


def test_describe_node_shows_its_lease_conditions_and_pods(kubectl: Kubectl) -> None:
    register(kubectl.server, "desc-1")
    without_lease = kubectl.ok("describe", "node", "desc-1")
    assert re.search(r'^Lease:\s+Failed to get lease: leases.coordination.k8s.io "desc-1" not found$',
                     without_lease, re.MULTILINE), without_lease
    kubectl.ok("apply", "-f", kubectl.write("lease.yaml", lease_yaml("desc-1", "desc-1")))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "on-desc-1"},
           "spec": {"nodeName": "desc-1", "containers": [{"name": "main", "image": "nginx:1.27",
                                                          "resources": {"requests": {"cpu": "250m"}}}]}}
    post(kubectl.server, "/api/v1/namespaces/default/pods", pod)
    described = kubectl.ok("describe", "node", "desc-1")
    assert re.search(r"^Name:\s+desc-1$", described, re.MULTILINE)
    assert re.search(r"^Taints:\s+node.kubernetes.io/not-ready:NoSchedule$", described, re.MULTILINE)
    assert re.search(r"^  HolderIdentity:\s+desc-1$", described, re.MULTILINE), described
    assert re.search(r"^  Ready\s+True\s+", described, re.MULTILINE)
    assert re.search(r"^  InternalIP:\s+172.18.0.9$", described, re.MULTILINE)
    assert re.search(r"^PodCIDRs:\s+10.244.9.0/24$", described, re.MULTILINE)
    assert re.search(r"^Non-terminated Pods:\s+\(1 in total\)$", described, re.MULTILINE)
    assert re.search(r"^  default\s+on-desc-1\s+250m \(3%\)", described, re.MULTILINE), described


def test_leases_in_their_named_group(kubectl: Kubectl) -> None:
    path = kubectl.write("lease.yaml", lease_yaml("kubectl-lease", "node-a"))
    assert kubectl.ok("apply", "-f", path) == "lease.coordination.k8s.io/kubectl-lease created\n"
    assert kubectl.ok("apply", "--server-side", "-f", path) == (
        "lease.coordination.k8s.io/kubectl-lease serverside-applied\n")
    table = rows(kubectl.ok("get", "leases", "-n", "kube-node-lease", "kubectl-lease"))
    assert table[0] == ["NAME", "HOLDER", "AGE"]
    assert table[1][:2] == ["kubectl-lease", "node-a"]
    renew = kubectl.ok("get", "lease.coordination.k8s.io", "kubectl-lease", "-n", "kube-node-lease",
                       "-o", "jsonpath={.apiVersion} {.spec.renewTime}")
    assert renew == "coordination.k8s.io/v1 2030-06-01T12:00:00.123456Z"
    assert kubectl.ok("delete", "-n", "kube-node-lease", "lease", "kubectl-lease") == (
        'lease.coordination.k8s.io "kubectl-lease" deleted\n')
    missing = kubectl("get", "-n", "kube-node-lease", "lease", "kubectl-lease")
    assert missing.rc == 1
    assert missing.err.strip() == (
        'Error from server (NotFound): leases.coordination.k8s.io "kubectl-lease" not found')
