"""kubectl sessions against the controllers of `fakeapi serve`'s simulated cluster (live clock): rollouts,
their history, undo, pause and resume, restarts, `get all`, cascading deletes. Outputs are kubectl 1.32's on a
cluster."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kubectl.conftest import Kubectl, Server, kubectl_binary, start_server, stop_server

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
"""
DAEMON_SET = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: "busybox:1.36"}]}
"""
STATEFUL_SET = """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "postgres:16"}]}
"""


def rollout_status(kubectl: Kubectl, target: str) -> str:
    return kubectl.ok("rollout", "status", target, "--timeout=60s")


def test_a_deployment_rolls_out_and_back(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    assert kubectl.ok("apply", "-f", kubectl.write("web.yaml", DEPLOYMENT)) == "deployment.apps/web created\n"
    status = rollout_status(kubectl, "deployment/web")
    assert status.splitlines()[-1] == 'deployment "web" successfully rolled out', status
    for line in status.splitlines()[:-1]:
        assert re.fullmatch(r'Waiting for deployment "web" rollout to finish: '
                            r'(\d of 2 updated replicas are available|\d out of 2 new replicas have been updated|'
                            r'\d old replicas are pending termination)\.\.\.', line), status
    assert kubectl.ok("set", "image", "deployment/web", "web=nginx:1.28") == "deployment.apps/web image updated\n"
    assert rollout_status(kubectl, "deployment/web").endswith('deployment "web" successfully rolled out\n')
    assert kubectl.ok("rollout", "history", "deployment/web") == (
        "deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n")
    assert kubectl.ok("rollout", "undo", "deployment/web") == "deployment.apps/web rolled back\n"
    assert rollout_status(kubectl, "deployment/web").endswith('deployment "web" successfully rolled out\n')
    assert kubectl.ok("rollout", "history", "deployment/web") == (
        "deployment.apps/web \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n")
    pods = json.loads(kubectl.ok("get", "pods", "-l", "app=web", "-o", "json"))["items"]
    images = [pod["spec"]["containers"][0]["image"] for pod in pods if "deletionTimestamp" not in pod["metadata"]]
    assert images == ["nginx:1.27", "nginx:1.27"]
    revision = kubectl.ok("rollout", "history", "deployment/web", "--revision=3")
    assert revision.startswith("deployment.apps/web with revision #3\nPod Template:\n")
    assert "Image:\tnginx:1.27" in revision, revision
    rows = [line.split() for line in kubectl.ok("get", "replicasets").splitlines()]
    assert rows[0] == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
    assert sorted(row[1:4] for row in rows[1:]) == [["0", "0", "0"], ["2", "2", "2"]]
    kubectl.ok("delete", "deployment", "web", "--timeout=30s")


def test_undo_to_a_revision_renumbers_its_replica_set_and_keeps_its_history(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("apply", "-f", kubectl.write("undo.yaml", DEPLOYMENT.replace("name: web}", "name: undo}")))
    rollout_status(kubectl, "deployment/undo")
    for image in ("nginx:1.28", "nginx:1.29"):
        kubectl.ok("set", "image", "deployment/undo", f"web={image}")
        rollout_status(kubectl, "deployment/undo")
    assert kubectl.ok("rollout", "undo", "deployment/undo", "--to-revision=1") == "deployment.apps/undo rolled back\n"
    rollout_status(kubectl, "deployment/undo")
    assert kubectl.ok("rollout", "history", "deployment/undo") == (
        "deployment.apps/undo \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n4         <none>\n\n")
    sets = json.loads(kubectl.ok("get", "replicasets", "-o", "json"))["items"]
    annotations = {rs["spec"]["template"]["spec"]["containers"][0]["image"]: rs["metadata"]["annotations"]
                   for rs in sets if rs["metadata"]["name"].startswith("undo-")}
    assert annotations["nginx:1.27"]["deployment.kubernetes.io/revision"] == "4"
    assert annotations["nginx:1.27"]["deployment.kubernetes.io/revision-history"] == "1"
    assert "deployment.kubernetes.io/revision-history" not in annotations["nginx:1.29"]
    deployment = json.loads(kubectl.ok("get", "deployment", "undo", "-o", "json"))
    assert deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "4"
    assert kubectl.ok("rollout", "undo", "deployment/undo") == "deployment.apps/undo rolled back\n"  # back to 3
    rollout_status(kubectl, "deployment/undo")
    sets = json.loads(kubectl.ok("get", "replicasets", "-o", "json"))["items"]
    revisions = {rs["spec"]["template"]["spec"]["containers"][0]["image"]: (
        rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        rs["metadata"]["annotations"].get("deployment.kubernetes.io/revision-history"))
        for rs in sets if rs["metadata"]["name"].startswith("undo-")}
    assert revisions == {"nginx:1.27": ("4", "1"), "nginx:1.28": ("2", None), "nginx:1.29": ("5", "3")}
    refused = kubectl("rollout", "undo", "deployment/undo", "--to-revision=9")
    assert (refused.rc, refused.err) == (1, "error: unable to find specified revision 9 in history\n")
    kubectl.ok("delete", "deployment", "undo", "--timeout=30s")


def test_pause_resume_and_restart(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("apply", "-f", kubectl.write("web.yaml", DEPLOYMENT.replace("name: web}", "name: paused}")))
    rollout_status(kubectl, "deployment/paused")
    assert kubectl.ok("rollout", "pause", "deployment/paused") == "deployment.apps/paused paused\n"
    kubectl.ok("set", "image", "deployment/paused", "web=nginx:1.28")
    assert kubectl.ok("get", "replicasets", "-l", "app=web", "--no-headers").count("\n") == 1  # no rollout
    assert kubectl.ok("rollout", "resume", "deployment/paused") == "deployment.apps/paused resumed\n"
    rollout_status(kubectl, "deployment/paused")
    assert kubectl.ok("rollout", "restart", "deployment/paused") == "deployment.apps/paused restarted\n"
    rollout_status(kubectl, "deployment/paused")
    template = kubectl.ok("get", "deployment", "paused", "-o",
                          "jsonpath={.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", template), template
    assert kubectl.ok("get", "replicasets", "-l", "app=web", "--no-headers").count("\n") == 3
    kubectl.ok("delete", "deployment", "paused", "--timeout=30s")


def test_get_all_lists_the_workload_and_what_it_made(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("apply", "-f", kubectl.write("web.yaml", DEPLOYMENT.replace("name: web}", "name: all}")))
    rollout_status(kubectl, "deployment/all")
    listed = kubectl.ok("get", "all")
    rs_name = kubectl.ok("get", "replicasets", "-o", "jsonpath={.items[0].metadata.name}")
    assert re.search(r"^pod/all-[a-z0-9]+-[a-z0-9]{5}\s+1/1\s+Running\s+0\s+", listed, re.M), listed
    assert re.search(r"^deployment\.apps/all\s+2/2\s+2\s+2\s+", listed, re.M), listed
    assert re.search(rf"^replicaset\.apps/{rs_name}\s+2\s+2\s+2\s+", listed, re.M), listed
    headers = [line.split() for line in listed.splitlines() if line.startswith("NAME")]
    assert ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"] in headers, listed
    kubectl.ok("delete", "deployment", "all", "--timeout=30s")


def test_cascading_deletes(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("apply", "-f", kubectl.write("web.yaml", DEPLOYMENT.replace("name: web}", "name: fg}")))
    rollout_status(kubectl, "deployment/fg")
    assert kubectl.ok("delete", "deployment", "fg", "--cascade=foreground", "--timeout=30s") == (
        'deployment.apps "fg" deleted\n')
    assert kubectl.ok("get", "replicasets,pods", "-l", "app=web", "--no-headers") == ""
    kubectl.ok("apply", "-f", kubectl.write("web.yaml", DEPLOYMENT.replace("name: web}", "name: orphan}")))
    rollout_status(kubectl, "deployment/orphan")
    assert kubectl.ok("delete", "deployment", "orphan", "--cascade=orphan") == 'deployment.apps "orphan" deleted\n'
    kubectl.ok("wait", "--for=delete", "deployment/orphan", "--timeout=20s")
    rs = kubectl.ok("get", "replicasets", "-l", "app=web", "-o", "jsonpath={.items[0].metadata.ownerReferences}")
    assert rs == "", rs  # orphaned: kept, without its owner
    kubectl.ok("delete", "replicasets", "-l", "app=web", "--timeout=30s")
    kubectl.ok("wait", "--for=delete", "pods", "-l", "app=web", "--timeout=30s")


def test_a_daemon_set_and_a_stateful_set_roll_out(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("apply", "-f", kubectl.write("agent.yaml", DAEMON_SET))
    assert rollout_status(kubectl, "daemonset/agent").endswith('daemon set "agent" successfully rolled out\n')
    kubectl.ok("set", "image", "daemonset/agent", "agent=busybox:1.37")
    assert rollout_status(kubectl, "daemonset/agent").endswith('daemon set "agent" successfully rolled out\n')
    history = kubectl.ok("rollout", "history", "daemonset/agent")
    assert history == "daemonset.apps/agent \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n"
    assert kubectl.ok("rollout", "undo", "daemonset/agent") == "daemonset.apps/agent rolled back\n"
    rollout_status(kubectl, "daemonset/agent")
    kubectl.ok("apply", "-f", kubectl.write("db.yaml", STATEFUL_SET))
    status = rollout_status(kubectl, "statefulset/db")
    # (apps/v1 defaults rollingUpdate.partition to 0: kubectl reports a partitioned roll out, as on a cluster)
    assert status.splitlines()[-1] == "partitioned roll out complete: 2 new pods have been updated...", status
    assert kubectl.ok("get", "pods", "-l", "app=db", "-o", "jsonpath={.items[*].metadata.name}") == "db-0 db-1"
    kubectl.ok("delete", "daemonset", "agent", "--timeout=30s")
    kubectl.ok("delete", "statefulset", "db", "--timeout=30s")


CLAIMED_SET = STATEFUL_SET.replace("name: db}", "name: claimed}").replace("app: db", "app: claimed") + """\
  persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"""
FAILING_JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: fails}
spec:
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {containerName: main, operator: In, values: [42]}
  template:
    metadata: {annotations: {fakeapi.dev/exit-after: 1s, fakeapi.dev/exit-code: "42"}}
    spec:
      restartPolicy: Never
      containers: [{name: main, image: "busybox:1.36"}]
"""


def test_a_stateful_set_gets_a_claim_per_pod_that_goes_with_it(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("apply", "-f", kubectl.write("claimed.yaml", CLAIMED_SET))
    rollout_status(kubectl, "statefulset/claimed")
    listed = [line.split() for line in kubectl.ok("get", "pvc", "-l", "app=claimed").splitlines()]
    assert [row[:2] for row in listed[1:]] == [["data-claimed-0", "Pending"], ["data-claimed-1", "Pending"]]
    volume = kubectl.ok("get", "pod", "claimed-1", "-o", "jsonpath={.spec.volumes[0]}")
    assert json.loads(volume) == {"name": "data", "persistentVolumeClaim": {"claimName": "data-claimed-1"}}
    kubectl.ok("delete", "statefulset", "claimed", "--timeout=30s")
    kubectl.ok("wait", "--for=delete", "pvc/data-claimed-0", "pvc/data-claimed-1", "--timeout=30s")


def test_a_pod_failure_policy_fails_the_job_with_its_rule(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    on_failure = FAILING_JOB.replace("restartPolicy: Never", "restartPolicy: OnFailure")
    refused = kubectl("create", "-f", "-", stdin=on_failure)
    assert (refused.rc, refused.err) == (1, 'The Job "fails" is invalid: spec.template.spec.restartPolicy: '
                                            'Invalid value: "OnFailure": only "Never" is supported when '
                                            'podFailurePolicy is specified\n')
    kubectl.ok("create", "-f", "-", stdin=FAILING_JOB)
    waited = kubectl.ok("wait", "--for=condition=Failed", "job/fails", "--timeout=30s")
    assert waited == "job.batch/fails condition met\n"
    pod = kubectl.ok("get", "pods", "-l", "job-name=fails", "-o", "jsonpath={.items[0].metadata.name}")
    conditions = json.loads(kubectl.ok("get", "job", "fails", "-o", "jsonpath={.status.conditions}"))
    message = f"Container main for pod default/{pod} failed with exit code 42 matching FailJob rule at index 0"
    assert [(c["type"], c["reason"], c["message"]) for c in conditions] == [
        ("FailureTarget", "PodFailurePolicy", message), ("Failed", "PodFailurePolicy", message)]
    assert kubectl.ok("get", "job", "fails", "--no-headers").split()[:3] == ["fails", "Failed", "0/1"]
    kubectl.ok("delete", "job", "fails", "--timeout=30s")


GUARDED = DEPLOYMENT.replace("name: web}", "name: guarded}") + """---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: guarded}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
"""


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A simulated cluster of two nodes, to drain one."""
    kubectl_binary()
    started = start_server(tmp_path_factory.mktemp("fakeapi"), "--nodes", "2")
    yield started
    stop_server(started)


def test_drain_evicts_within_the_disruption_budget_and_waits_when_it_would_break_it(two_nodes: Server,
                                                                                     tmp_path: Path) -> None:
    kubectl = Kubectl(kubectl_binary(), two_nodes, tmp_path / "cache", tmp_path)
    kubectl.ok("apply", "-f", kubectl.write("guarded.yaml", GUARDED))
    rollout_status(kubectl, "deployment/guarded")
    nodes = kubectl.ok("get", "pods", "-o", "jsonpath={.items[*].spec.nodeName}").split()
    assert sorted(nodes) == ["node-1", "node-2"]  # spread: the least allocated node wins
    assert kubectl.ok("get", "pdb", "guarded", "--no-headers").split()[:4] == ["guarded", "1", "N/A", "1"]
    on_node_1 = kubectl.ok("get", "pods", "--field-selector=spec.nodeName=node-1", "-o",
                           "jsonpath={.items[0].metadata.name}")
    assert kubectl.ok("drain", "node-1", "--timeout=30s") == (
        f"node/node-1 cordoned\nevicting pod default/{on_node_1}\npod/{on_node_1} evicted\nnode/node-1 drained\n")
    rollout_status(kubectl, "deployment/guarded")  # the replacement runs on node-2
    kubectl.ok("patch", "pdb", "guarded", "--type=merge", "-p", '{"spec":{"minAvailable":2}}')
    kubectl.ok("wait", "--for=jsonpath={.status.disruptionsAllowed}=0", "pdb/guarded", "--timeout=10s")
    blocked = kubectl("drain", "node-2", "--timeout=6s", timeout=30)
    assert blocked.rc == 1, blocked
    assert "Cannot evict pod as it would violate the pod's disruption budget." in blocked.err, blocked
    assert re.search(r'error when evicting pods/"guarded-[a-z0-9]+-[a-z0-9]{5}" -n "default" \(will retry after 5s\)',
                     blocked.err), blocked
    assert 'error: unable to drain node "node-2" due to error:' in blocked.err, blocked
    assert len(json.loads(kubectl.ok("get", "pods", "-o", "json"))["items"]) == 2  # nothing was evicted
    kubectl.ok("uncordon", "node-1", "node-2")
    kubectl.ok("delete", "-f", kubectl.write("guarded.yaml", GUARDED), "--timeout=30s")
