"""kubectl commands whose typed clients send protobuf bodies, beyond the create generators: a pod's copy
and a node's debugging pod (`kubectl debug`), deletes (`debug --replace`, `drain --disable-eviction`),
and binary data in a ConfigMap and a Secret. The request log shows how each body went."""

from __future__ import annotations

import base64
import json
import urllib.parse
import urllib.request
from typing import Any

from fakeapi.http.access import CONTROL_HEADER
from tests.kubectl.conftest import Kubectl, Server

PROTOBUF = "application/vnd.kubernetes.protobuf"
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: NAME, labels: {app: web}}
spec:
  NODE
  initContainers:
  - {name: init, image: busybox:1.36, command: [sh, -c, "true"]}
  containers:
  - name: web
    image: nginx:1.27
    args: [-g, daemon off;]
    ports: [{containerPort: 80, name: http}, {containerPort: 9090, protocol: UDP, hostPort: 9090}]
    env: [{name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    resources: {limits: {cpu: 500m, memory: 128Mi}, requests: {cpu: 100m}}
    livenessProbe: {httpGet: {path: /healthz, port: http}, initialDelaySeconds: 3}
    readinessProbe: {tcpSocket: {port: 80}, periodSeconds: 5}
    startupProbe: {exec: {command: [cat, /ready]}, failureThreshold: 30}
    securityContext: {runAsUser: 1000, allowPrivilegeEscalation: false}
    volumeMounts: [{name: data, mountPath: /data}, {name: cfg, mountPath: /etc/app, readOnly: true}]
  securityContext: {fsGroup: 2000, supplementalGroups: [3000, 4000]}
  tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoExecute, tolerationSeconds: 60}]
  volumes:
  - {name: data, emptyDir: {sizeLimit: 1Gi}}
  - {name: cfg, configMap: {name: app-config, optional: true, defaultMode: 0440, items: [{key: a, path: a.conf}]}}
  - {name: token, secret: {secretName: app-token, optional: false}}
"""


def pod_yaml(name: str, node: str = "") -> str:
    return POD.replace("NAME", name).replace("NODE", f"nodeName: {node}" if node else "")


def node_yaml(name: str) -> str:
    return f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\n"


def sent(server: Server, name: str = "", **filters: str) -> list[tuple[str | None, int]]:
    """(Content-Type, answer status) of each logged request that matches `filters` (method, resource,
    subresource, namespace...) and names `name` in its path or carries it in its body."""
    query = urllib.parse.urlencode(filters)
    request = urllib.request.Request(f"{server.url}/fakeapi/v1/requests?{query}", headers={CONTROL_HEADER: "1"})
    with urllib.request.urlopen(request, timeout=10) as response:
        entries: list[dict[str, Any]] = json.loads(response.read())["items"]
    found = []
    for entry in entries:
        body = entry["body"].encode() if "body" in entry else base64.b64decode(entry.get("bodyBase64", ""))
        if entry["name"] == name or name.encode() in body:
            found.append((entry["headers"].get("Content-Type"), entry["status"]))
    return found


def get_json(kubectl: Kubectl, *args: str) -> Any:
    return json.loads(kubectl.ok("get", *args, "-o", "json"))


def test_debug_copy_creates_the_pods_copy_from_a_protobuf_body(kubectl: Kubectl, server: Server) -> None:
    kubectl.ok("create", "-f", kubectl.write("pod.yaml", pod_yaml("web")))
    # the legacy profile leaves the copied spec as it is (general drops the probes and init containers)
    kubectl.ok("debug", "web", "--copy-to=web-copy", "--set-image=*=busybox:1.36", "--profile=legacy")
    assert sent(server, "web-copy", method="POST", resource="pods") == [(PROTOBUF, 201)]
    original, copy = get_json(kubectl, "pod", "web")["spec"], get_json(kubectl, "pod", "web-copy")["spec"]
    assert [container["image"] for container in copy["containers"] + copy["initContainers"]] == [
        "busybox:1.36", "busybox:1.36"]
    for container in original["containers"] + original["initContainers"]:
        container["image"] = "busybox:1.36"
    assert copy == original  # every field of the spec, as the server defaulted it, came through


def test_debug_copy_with_replace_deletes_the_original_with_protobuf_delete_options(
        kubectl: Kubectl, server: Server) -> None:
    # a pod bound to a node (with no kubelet) is only deleted at once with a grace period of 0
    kubectl.ok("create", "-f", kubectl.write("pod.yaml", pod_yaml("bound", node="elsewhere")))
    kubectl.ok("debug", "bound", "--copy-to=bound-copy", "--set-image=*=busybox:1.36", "--profile=legacy",
               "--replace")
    assert sent(server, "bound", method="DELETE", resource="pods") == [(PROTOBUF, 200)]
    assert kubectl("get", "pod", "bound").err == 'Error from server (NotFound): pods "bound" not found\n'
    assert "nodeName" not in get_json(kubectl, "pod", "bound-copy")["spec"]


def test_debug_node_creates_a_pod_on_the_node_with_the_host_filesystem(kubectl: Kubectl, server: Server) -> None:
    kubectl.ok("create", "-f", kubectl.write("node.yaml", node_yaml("debug-node")))
    out = kubectl.ok("debug", "node/debug-node", "--image=busybox:1.36", "--profile=general")
    name = out.split()[3]  # Creating debugging pod node-debugger-debug-node-xxxxx with container debugger ...
    assert name.startswith("node-debugger-debug-node-")
    assert sent(server, name, method="POST", resource="pods") == [(PROTOBUF, 201)]
    spec = get_json(kubectl, "pod", name)["spec"]
    assert (spec["nodeName"], spec["hostNetwork"], spec["hostPID"], spec["hostIPC"], spec["restartPolicy"]) == (
        "debug-node", True, True, True, "Never")
    assert spec["tolerations"] == [{"operator": "Exists"}]
    assert spec["volumes"][0] == {"name": "host-root", "hostPath": {"path": "/", "type": ""}}
    assert spec["containers"][0]["volumeMounts"][0] == {"name": "host-root", "mountPath": "/host"}


def test_drain_without_eviction_deletes_the_nodes_pods(kubectl: Kubectl, server: Server) -> None:
    kubectl.ok("create", "-f", kubectl.write("node.yaml", node_yaml("delete-node")))
    kubectl.ok("create", "-f", kubectl.write("pod.yaml", pod_yaml("on-delete-node", node="delete-node")))
    out = kubectl.ok("drain", "delete-node", "--disable-eviction", "--force", "--delete-emptydir-data",
                     "--grace-period=0", "--timeout=30s")
    assert out == "node/delete-node cordoned\npod/on-delete-node deleted\nnode/delete-node drained\n"
    assert sent(server, "on-delete-node", method="DELETE", resource="pods") == [(PROTOBUF, 200)]
    assert kubectl.ok("get", "pods", "--field-selector=spec.nodeName=delete-node", "-o", "name") == ""


def test_drain_evicts_the_nodes_pods_in_json(kubectl: Kubectl, server: Server) -> None:
    # the Eviction goes as JSON: client-go's Evict is written by hand, and only generated methods prefer protobuf
    kubectl.ok("create", "-f", kubectl.write("node.yaml", node_yaml("evict-node")))
    kubectl.ok("create", "-f", kubectl.write("pod.yaml", pod_yaml("on-evict-node", node="evict-node")))
    out = kubectl.ok("drain", "evict-node", "--force", "--delete-emptydir-data", "--grace-period=0",
                     "--timeout=30s")
    assert out == ("node/evict-node cordoned\nevicting pod default/on-evict-node\npod/on-evict-node evicted\n"
                   "node/evict-node drained\n")
    assert sent(server, "on-evict-node", method="POST", resource="pods", subresource="eviction") == [
        ("application/json", 201)]
    assert kubectl.ok("get", "pods", "--field-selector=spec.nodeName=evict-node", "-o", "name") == ""


def test_binary_files_keep_their_bytes_in_a_config_map_and_a_secret(kubectl: Kubectl, server: Server) -> None:
    blob = bytes(range(256))
    path = kubectl.workdir / "blob.bin"
    path.write_bytes(blob)
    kubectl.ok("create", "namespace", "binary")
    kubectl.ok("create", "configmap", "blob", "-n", "binary", f"--from-file=blob={path}", "--from-literal=mode=fast")
    kubectl.ok("create", "secret", "generic", "blob", "-n", "binary", f"--from-file=blob={path}")
    # the request log keeps no Secret body: what it names is read from its namespace
    for resource in ("configmaps", "secrets"):
        assert sent(server, method="POST", resource=resource, namespace="binary") == [(PROTOBUF, 201)]
    config_map = get_json(kubectl, "configmap", "blob", "-n", "binary")
    assert (config_map["data"], base64.b64decode(config_map["binaryData"]["blob"])) == ({"mode": "fast"}, blob)
    assert base64.b64decode(get_json(kubectl, "secret", "blob", "-n", "binary")["data"]["blob"]) == blob
