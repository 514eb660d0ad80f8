"""The real kubectl 1.32 against fakeapi: every command of issue 4, asserting exit codes and output.

One server serves the module; each test uses its own pod names and its own kubectl cache. Objects a
test only needs as a setting (pods, events, log text, status) are made over plain HTTP.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.request
from typing import Any

from tests.kubectl.conftest import ROOT, Kubectl, Server

PODS = "/api/v1/namespaces/default/pods"


def call(server: Server, method: str, path: str, body: Any = None,
         content_type: str = "application/json") -> Any:
    data = body if isinstance(body, bytes | None) else json.dumps(body).encode()
    # X-Fakeapi-Control: what the control API asks of requests that change state
    request = urllib.request.Request(server.url + path, data=data, method=method,
                                     headers={"Content-Type": content_type, "X-Fakeapi-Control": "1"})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
    return json.loads(text) if text.startswith("{") else text


def make_pod(server: Server, name: str, image: str = "nginx:1.25", **spec: Any) -> dict[str, Any]:
    labels = spec.pop("labels", {"app": name})
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
           "spec": {"containers": [{"name": "main", "image": image}], **spec}}
    created: dict[str, Any] = call(server, "POST", PODS, pod)
    return created


def set_status(server: Server, name: str, status: dict[str, Any]) -> None:
    call(server, "PATCH", f"{PODS}/{name}/status", {"status": status}, "application/merge-patch+json")


def running_ready(server: Server, name: str) -> None:
    running = {"name": "main", "image": "nginx:1.25", "imageID": "", "ready": True, "restartCount": 0,
               "started": True, "state": {"running": {"startedAt": "2025-01-01T00:00:00Z"}}}
    set_status(server, name, {"phase": "Running", "podIP": "10.0.0.7", "podIPs": [{"ip": "10.0.0.7"}],
                              "conditions": [{"type": "Ready", "status": "True"}],
                              "containerStatuses": [running]})


def pod_yaml(name: str, image: str = "nginx:1.25", extra: str = "") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels:\n    app: {name}\n"
            f"spec:\n  containers:\n  - name: {name}\n    image: {image}\n{extra}")


def rows(output: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in output.strip().splitlines()]


# ---- discovery and version


def test_version_reports_the_fake_server(kubectl: Kubectl) -> None:
    out = kubectl.ok("version")
    assert "Client Version: v1.32" in out
    assert "Server Version: v1.32.0-fakeapi" in out


def test_api_resources_lists_pods_namespaces_and_events(kubectl: Kubectl) -> None:
    table = rows(kubectl.ok("api-resources"))
    assert table[0] == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    assert ["pods", "po", "v1", "true", "Pod"] in table
    assert ["namespaces", "ns", "v1", "false", "Namespace"] in table
    assert ["events", "ev", "v1", "true", "Event"] in table
    wide = kubectl.ok("api-resources", "-o", "wide")
    assert ["pods", "po", "v1", "true", "Pod", "create,delete,deletecollection,get,list,patch,update,watch",
            "all"] in rows(wide), wide


# ---- get


def test_get_pods_prints_the_upstream_columns(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "get-1")
    running_ready(server, "get-1")
    table = rows(kubectl.ok("get", "pods", "get-1"))
    assert table[0] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert table[1][:4] == ["get-1", "1/1", "Running", "0"]
    wide = rows(kubectl.ok("get", "pod", "get-1", "-o", "wide"))
    assert wide[0] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE",
                       "READINESS GATES"]
    assert wide[1][5:] == ["10.0.0.7", "<none>", "<none>", "<none>"]
    everywhere = rows(kubectl.ok("get", "pods", "-A"))
    assert everywhere[0][:2] == ["NAMESPACE", "NAME"]
    assert ["default", "get-1"] in [row[:2] for row in everywhere]


def test_get_pods_in_yaml_json_and_name_form(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "fmt-1")
    as_yaml = kubectl.ok("get", "pod", "fmt-1", "-o", "yaml")
    assert "name: fmt-1" in as_yaml and "kind: Pod" in as_yaml
    assert "managedFields" not in as_yaml  # kubectl hides them unless --show-managed-fields
    as_json = json.loads(kubectl.ok("get", "pod", "fmt-1", "-o", "json"))
    assert as_json["metadata"]["name"] == "fmt-1" and as_json["status"]["phase"] == "Pending"
    listed = json.loads(kubectl.ok("get", "pods", "-l", "app=fmt-1", "-o", "json"))
    assert listed["kind"] == "List" and [i["metadata"]["name"] for i in listed["items"]] == ["fmt-1"]
    assert kubectl.ok("get", "pods", "-l", "app=fmt-1", "-o", "name") == "pod/fmt-1\n"


def test_get_pods_with_label_and_field_selectors(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "sel-a", labels={"sel": "yes", "tier": "a"})
    make_pod(server, "sel-b", labels={"sel": "yes", "tier": "b"})
    running_ready(server, "sel-b")
    assert kubectl.ok("get", "pods", "-l", "sel=yes,tier=a", "-o", "name") == "pod/sel-a\n"
    assert kubectl.ok("get", "pods", "-l", "sel=yes", "--field-selector", "status.phase=Running",
                      "-o", "name") == "pod/sel-b\n"
    none = kubectl("get", "pods", "-l", "sel=no")
    assert none.rc == 0 and none.err.strip() == "No resources found in default namespace."
    bad = kubectl("get", "pods", "--field-selector", "foo=bar")
    assert bad.rc == 1
    assert 'field label not supported: foo' in bad.err


def test_get_pods_show_labels_and_sort_by(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "sort-b", labels={"sortme": "1"})
    make_pod(server, "sort-a", labels={"sortme": "1"})
    table = rows(kubectl.ok("get", "pods", "-l", "sortme", "--show-labels"))
    assert table[0][-1] == "LABELS" and table[1][-1] == "sortme=1"
    by_name = rows(kubectl.ok("get", "pods", "-l", "sortme", "--sort-by", ".metadata.name"))
    assert [row[0] for row in by_name[1:]] == ["sort-a", "sort-b"]


def test_get_pods_watch_streams_changes(kubectl: Kubectl, server: Server) -> None:
    watcher = kubectl.background("get", "pods", "-l", "app=watch-1", "-w")
    try:
        time.sleep(1.0)  # let kubectl list and start watching
        make_pod(server, "watch-1")
        running_ready(server, "watch-1")
        time.sleep(1.5)
    finally:
        watcher.terminate()
        out, err = watcher.communicate(timeout=10)  # also closes its pipes
    table = rows(out)
    assert table[0] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"], out + err
    assert [row[:3] for row in table[1:]] == [["watch-1", "0/1", "Pending"], ["watch-1", "1/1", "Running"]]


# ---- describe, events, logs, raw


def test_describe_pod_shows_its_events(kubectl: Kubectl, server: Server) -> None:
    pod = make_pod(server, "desc-1")
    event = {"metadata": {"name": "desc-1.1"}, "type": "Normal", "reason": "Scheduled",
             "message": "Successfully assigned default/desc-1 to node-1",
             "involvedObject": {"kind": "Pod", "namespace": "default", "name": "desc-1",
                                "uid": pod["metadata"]["uid"], "apiVersion": "v1"},
             "source": {"component": "default-scheduler"}, "count": 1,
             "firstTimestamp": pod["metadata"]["creationTimestamp"],
             "lastTimestamp": pod["metadata"]["creationTimestamp"]}
    call(server, "POST", "/api/v1/namespaces/default/events", event)
    out = kubectl.ok("describe", "pod", "desc-1")
    assert re.search(r"^Name:\s+desc-1$", out, re.M), out
    assert re.search(r"^QoS Class:\s+BestEffort$", out, re.M), out
    assert re.search(r"Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default/desc-1 "
                     r"to node-1", out), out
    events = rows(kubectl.ok("get", "events", "--field-selector", "involvedObject.name=desc-1"))
    assert events[0] == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert events[1][1:] == ["Normal", "Scheduled", "pod/desc-1",
                             "Successfully assigned default/desc-1 to node-1"]


def test_logs_prints_the_container_log(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "logs-1")
    assert kubectl.ok("logs", "logs-1") == ""
    call(server, "PUT", "/fakeapi/v1/logs/default/logs-1/main", {"text": "line one\nline two\n"})
    assert kubectl.ok("logs", "logs-1") == "line one\nline two\n"
    assert kubectl.ok("logs", "logs-1", "--tail=1") == "line two\n"
    missing = kubectl("logs", "nope-1")
    assert missing.rc == 1
    assert 'pods "nope-1" not found' in missing.err


def test_get_raw_prints_the_body_verbatim(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "raw-1")
    body = json.loads(kubectl.ok("get", "--raw", PODS + "/raw-1"))
    assert body["kind"] == "Pod" and body["metadata"]["name"] == "raw-1"
    missing = kubectl("get", "--raw", PODS + "/nope-2")
    assert missing.rc == 1 and 'Error from server (NotFound): pods "nope-2" not found' in missing.err


def test_explain_pod_spec(kubectl: Kubectl) -> None:
    out = kubectl.ok("explain", "pod.spec")
    assert re.search(r"^KIND:\s+Pod$", out, re.M) and re.search(r"^VERSION:\s+v1$", out, re.M), out
    assert re.search(r"^FIELD:\s+spec <PodSpec>$", out, re.M), out
    assert re.search(r"^\s+containers\s+<\[\]Container> -required-$", out, re.M), out


# ---- create, apply, replace


def test_create_from_a_file_validates_strictly(kubectl: Kubectl) -> None:
    path = kubectl.write("create-1.yaml", pod_yaml("create-1"))
    assert kubectl.ok("create", "-f", path) == "pod/create-1 created\n"
    again = kubectl("create", "-f", path)
    assert again.rc == 1
    assert again.err.strip() == (f'Error from server (AlreadyExists): error when creating "{path}": '
                                 'pods "create-1" already exists')
    unknown = kubectl.write("create-2.yaml", pod_yaml("create-2", extra="    foo: bar\n"))
    result = kubectl("create", "-f", unknown)
    assert result.rc == 1
    assert result.err.strip() == (
        f'Error from server (BadRequest): error when creating "{unknown}": Pod in version "v1" cannot be '
        'handled as a Pod: strict decoding error: unknown field "spec.containers[0].foo"')


def test_client_side_apply_twice_is_unchanged_and_a_change_configures(kubectl: Kubectl) -> None:
    path = kubectl.write("apply-1.yaml", pod_yaml("apply-1"))
    assert kubectl.ok("apply", "-f", path) == "pod/apply-1 created\n"
    assert kubectl.ok("apply", "-f", path) == "pod/apply-1 unchanged\n"
    kubectl.write("apply-1.yaml", pod_yaml("apply-1", image="nginx:1.26"))
    assert kubectl.ok("apply", "-f", path) == "pod/apply-1 configured\n"
    assert kubectl.ok("get", "pod", "apply-1", "-o", "jsonpath={.spec.containers[0].image}") == "nginx:1.26"


def test_the_readmes_example_pod_applies_as_the_readme_shows(kubectl: Kubectl) -> None:
    path = str(ROOT / "examples" / "web.yaml")
    assert kubectl.ok("apply", "-f", path) == "pod/web-1 created\n"
    assert kubectl.ok("apply", "-f", path) == "pod/web-1 unchanged\n"
    pod = json.loads(kubectl.ok("get", "pod", "web-1", "-o", "json"))
    assert pod["metadata"]["labels"] == {"app": "web"}
    [container] = pod["spec"]["containers"]
    assert (container["name"], container["image"], container["resources"]) == \
        ("nginx", "nginx:1.27", {"requests": {"cpu": "100m"}})
    assert pod["status"]["qosClass"] == "Burstable"
    assert kubectl.ok("delete", "pod", "web-1") == 'pod "web-1" deleted\n'


PROBED = ("    securityContext: {}\n    livenessProbe:\n      httpGet:\n        path: /healthz\n        port: 8080\n"
          "    ports:\n    - containerPort: 8080\n")


def test_diff_of_an_unchanged_pod_is_empty(kubectl: Kubectl) -> None:
    # kubectl's dry-run patch sends `"annotations": {}`: stored and returned as Go encodes it, it is no change
    applied = kubectl.write("diff-1.yaml", pod_yaml("diff-1", extra=PROBED))
    assert kubectl.ok("apply", "-f", applied) == "pod/diff-1 created\n"
    assert kubectl.ok("diff", "-f", applied) == ""
    assert kubectl.ok("apply", "-f", applied) == "pod/diff-1 unchanged\n"
    created = kubectl.write("diff-2.yaml", pod_yaml("diff-2", extra=PROBED))
    assert kubectl.ok("create", "-f", created) == "pod/diff-2 created\n"
    assert kubectl.ok("diff", "-f", created) == ""
    changed = kubectl("diff", "-f", kubectl.write("diff-2.yaml", pod_yaml("diff-2", image="nginx:1.26")))
    assert changed.rc == 1 and "+  - image: nginx:1.26\n" in changed.out, str(changed)


def test_server_side_apply_owns_fields_and_reports_conflicts(kubectl: Kubectl) -> None:
    path = kubectl.write("ssa-1.yaml", pod_yaml("ssa-1"))
    assert kubectl.ok("apply", "--server-side", "-f", path) == "pod/ssa-1 serverside-applied\n"
    before = json.loads(kubectl.ok("get", "pod", "ssa-1", "-o", "json", "--show-managed-fields"))
    assert kubectl.ok("apply", "--server-side", "-f", path) == "pod/ssa-1 serverside-applied\n"
    after = json.loads(kubectl.ok("get", "pod", "ssa-1", "-o", "json", "--show-managed-fields"))
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert after["metadata"]["managedFields"] == before["metadata"]["managedFields"]
    [entry] = after["metadata"]["managedFields"]
    assert (entry["manager"], entry["operation"]) == ("kubectl", "Apply")
    assert entry["fieldsV1"]["f:spec"]["f:containers"]['k:{"name":"ssa-1"}'] == {".": {}, "f:image": {},
                                                                                 "f:name": {}}
    other = kubectl.write("ssa-1b.yaml", pod_yaml("ssa-1", image="nginx:1.26"))
    conflict = kubectl("apply", "--server-side", "--field-manager=other", "-f", other)
    assert conflict.rc == 1
    assert conflict.err.startswith('error: Apply failed with 1 conflict: conflict with "kubectl": '
                                   '.spec.containers[name="ssa-1"].image\n'), conflict.err
    forced = kubectl.ok("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", other)
    assert forced == "pod/ssa-1 serverside-applied\n"
    dry = kubectl.ok("apply", "--server-side", "--dry-run=server", "-f", kubectl.write(
        "ssa-1c.yaml", pod_yaml("ssa-1", image="nginx:1.27")), "--force-conflicts")
    assert dry == "pod/ssa-1 serverside-applied (server dry run)\n"
    assert kubectl.ok("get", "pod", "ssa-1", "-o", "jsonpath={.spec.containers[0].image}") == "nginx:1.26"


def test_replace_from_a_file(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "repl-1")
    stored = kubectl.ok("get", "pod", "repl-1", "-o", "yaml")
    path = kubectl.write("repl-1.yaml", stored.replace("app: repl-1", "app: replaced"))
    assert kubectl.ok("replace", "-f", path) == "pod/repl-1 replaced\n"
    assert kubectl.ok("get", "pod", "repl-1", "-o", "jsonpath={.metadata.labels.app}") == "replaced"
    # the bare manifest lacks what admission added (service account, token volume): a spec change, as upstream
    bare = pod_yaml("repl-1").replace("- name: repl-1", "- name: main")
    refused = kubectl("replace", "-f", kubectl.write("bare.yaml", bare))
    assert refused.rc == 1 and "spec: Forbidden: pod updates may not change fields" in refused.err
    assert "- spec.serviceAccountName: \"default\"" in refused.err
    missing = kubectl("replace", "-f", kubectl.write("repl-2.yaml", pod_yaml("repl-2")))
    assert missing.rc == 1 and 'pods "repl-2" not found' in missing.err


# ---- patch, edit, label, annotate


def test_patch_strategic_merge_and_json(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "patch-1")
    smp = '{"spec":{"containers":[{"name":"main","image":"nginx:1.26"}]}}'
    assert kubectl.ok("patch", "pod", "patch-1", "-p", smp) == "pod/patch-1 patched\n"
    assert kubectl.ok("patch", "pod", "patch-1", "-p", smp) == "pod/patch-1 patched (no change)\n"
    merge = '{"metadata":{"labels":{"p":"merge"}}}'
    assert kubectl.ok("patch", "pod", "patch-1", "--type=merge", "-p", merge) == "pod/patch-1 patched\n"
    jsonpatch = '[{"op":"replace","path":"/metadata/labels/p","value":"json"}]'
    assert kubectl.ok("patch", "pod", "patch-1", "--type=json", "-p", jsonpatch) == "pod/patch-1 patched\n"
    pod = json.loads(kubectl.ok("get", "pod", "patch-1", "-o", "json"))
    assert pod["spec"]["containers"][0]["image"] == "nginx:1.26" and pod["metadata"]["labels"]["p"] == "json"


def test_patch_status_subresource_keeps_qos_class(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "qos-1")
    kubectl.ok("patch", "pod", "qos-1", "--subresource=status", "--type=merge",
               "-p", '{"status":{"phase":"Running"}}')
    assert kubectl.ok("get", "pod", "qos-1", "-o", "jsonpath={.status.phase}") == "Running"
    resources = {"requests": {"cpu": "100m"}}
    call(server, "POST", PODS, {"metadata": {"name": "qos-2"}, "spec": {"containers": [
        {"name": "main", "image": "nginx", "resources": resources}]}})
    result = kubectl("patch", "pod", "qos-2", "--subresource=status", "--type=merge",
                     "-p", '{"status":{"qosClass":"BestEffort"}}')
    assert result.rc == 1
    assert result.err.strip() == ('The Pod "qos-2" is invalid: status.qosClass: Invalid value: "BestEffort": '
                                  'field is immutable')


def test_edit_through_a_non_interactive_editor(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "edit-1")
    out = kubectl.ok("edit", "pod", "edit-1", env={"EDITOR": "sed -i s/nginx:1.25/nginx:1.28/",
                                                   "KUBE_EDITOR": ""})
    assert out == "pod/edit-1 edited\n"
    assert kubectl.ok("get", "pod", "edit-1", "-o", "jsonpath={.spec.containers[0].image}") == "nginx:1.28"


def test_label_and_annotate(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "label-1")
    assert kubectl.ok("label", "pod", "label-1", "a=b") == "pod/label-1 labeled\n"
    refused = kubectl("label", "pod", "label-1", "a=c")
    assert refused.rc == 1
    assert refused.err.strip() == "error: 'a' already has a value (b), and --overwrite is false"
    assert kubectl.ok("label", "pod", "label-1", "a-") == "pod/label-1 unlabeled\n"
    assert kubectl.ok("annotate", "pod", "label-1", "note=hello") == "pod/label-1 annotated\n"
    pod = json.loads(kubectl.ok("get", "pod", "label-1", "-o", "json", "--show-managed-fields"))
    assert "a" not in pod["metadata"]["labels"] and pod["metadata"]["annotations"]["note"] == "hello"
    managers = {(e.get("manager"), e["operation"]) for e in pod["metadata"]["managedFields"]}
    assert ("kubectl-annotate", "Update") in managers


# ---- delete and wait


def test_delete_one_all_and_wait(kubectl: Kubectl, server: Server) -> None:
    kubectl.ok("create", "namespace", "kt-del")
    for name in ("del-1", "del-2", "del-3"):
        call(server, "POST", "/api/v1/namespaces/kt-del/pods",
             {"metadata": {"name": name}, "spec": {"containers": [{"name": "main", "image": "nginx"}]}})
    assert kubectl.ok("delete", "pod", "del-1", "-n", "kt-del") == 'pod "del-1" deleted\n'
    assert kubectl.ok("delete", "pods", "--all", "-n", "kt-del", "--wait", "--timeout=20s") == (
        'pod "del-2" deleted\npod "del-3" deleted\n')
    missing = kubectl("delete", "pod", "nope-3")
    assert missing.rc == 1 and missing.err.strip() == 'Error from server (NotFound): pods "nope-3" not found'


def test_delete_waits_until_a_graceful_deletion_completes(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "grace-1", nodeName="node-1")  # on a node: deletion waits for the (absent) kubelet
    deleter = kubectl.background("delete", "pod", "grace-1", "--wait", "--timeout=20s")
    time.sleep(1.0)
    pod = call(server, "GET", f"{PODS}/grace-1")
    assert pod["metadata"]["deletionTimestamp"]  # still there, terminating, while kubectl waits
    assert deleter.poll() is None
    call(server, "DELETE", f"{PODS}/grace-1", {"gracePeriodSeconds": 0})  # what the kubelet does
    out, err = deleter.communicate(timeout=20)
    assert deleter.returncode == 0, err
    assert out == 'pod "grace-1" deleted\n'


def test_wait_for_condition_ready(kubectl: Kubectl, server: Server) -> None:
    make_pod(server, "wait-1")
    timeout = kubectl("wait", "--for=condition=Ready", "pod/wait-1", "--timeout=1s")
    assert timeout.rc == 1
    assert timeout.err.strip() == "error: timed out waiting for the condition on pods/wait-1"
    waiter = kubectl.background("wait", "--for=condition=Ready", "pod/wait-1", "--timeout=20s")
    time.sleep(0.7)
    running_ready(server, "wait-1")
    try:
        out, err = waiter.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        waiter.kill()
        raise
    assert waiter.returncode == 0, err
    assert out == "pod/wait-1 condition met\n"


# ---- namespaces


def test_create_get_and_delete_namespace(kubectl: Kubectl) -> None:
    assert kubectl.ok("create", "ns", "kt-ns") == "namespace/kt-ns created\n"
    table = rows(kubectl.ok("get", "ns"))
    assert table[0] == ["NAME", "STATUS", "AGE"]
    assert ["kt-ns", "Active"] in [row[:2] for row in table]
    assert kubectl.ok("delete", "ns", "kt-ns", "--timeout=20s") == 'namespace "kt-ns" deleted\n'
    assert kubectl("get", "ns", "kt-ns").rc == 1
