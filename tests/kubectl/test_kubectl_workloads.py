"""kubectl sessions with the workload kinds and Services, on a server without controllers: the create
generators (protobuf bodies), `expose`, `get all`, `describe` of each kind as kubectl prints it on a kind
cluster, `scale`, `autoscale`, `set image|resources|env`, `rollout restart`, `cluster-info`, and `drain`
against a PodDisruptionBudget whose status is written as the disruption controller would write it."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.kubectl.conftest import Kubectl, Server
from tests.kubectl.test_kubectl_protobuf import PROTOBUF, sent

WORKLOADS = """\
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: front}
spec:
  replicas: 2
  selector: {matchLabels: {app: front}}
  template:
    metadata: {labels: {app: front}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:17}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: busybox:1.36}]}
"""
POD_TEMPLATE = """\
Pod Template:
  Labels:  app={app}
  Containers:
   {container}:
    Image:         {image}
    Port:          <none>
    Host Port:     <none>
    Environment:   <none>
    Mounts:        <none>
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
"""


def get_json(kubectl: Kubectl, *args: str) -> Any:
    return json.loads(kubectl.ok("get", *args, "-o", "json"))


def masked(text: str) -> str:
    """Describe output with its creation time and ages, which change from run to run, masked."""
    text = re.sub(r"(CreationTimestamp: +)\w{3}, \d\d \w{3} \d{4} [\d:]{8} \+0000", r"\1<time>", text)
    return re.sub(r"\b\d+s\b", "<age>", text)


def test_the_create_generators_send_protobuf_and_get_all_lists_the_kinds(kubectl: Kubectl, server: Server) -> None:
    kubectl.ok("create", "namespace", "gen")
    assert kubectl.ok("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "--port=80",
                      "-n", "gen") == "deployment.apps/web created\n"
    assert kubectl.ok("create", "job", "pi", "--image=perl:5.34", "-n", "gen", "--", "perl", "-e",
                      "print 1") == "job.batch/pi created\n"
    assert kubectl.ok("create", "cronjob", "hourly", "--image=busybox:1.36", "--schedule=0 * * * *", "-n", "gen",
                      "--", "date") == "cronjob.batch/hourly created\n"
    assert kubectl.ok("create", "service", "clusterip", "db", "--tcp=5432:5432", "-n", "gen") == "service/db created\n"
    assert kubectl.ok("create", "service", "nodeport", "np", "--tcp=80:8080", "--node-port=30080",
                      "-n", "gen") == "service/np created\n"
    assert kubectl.ok("expose", "deployment", "web", "--port=8080", "--target-port=80", "-n", "gen") == \
        "service/web exposed\n"
    for name, resource in (("web", "deployments"), ("pi", "jobs"), ("hourly", "cronjobs"), ("db", "services"),
                           ("np", "services")):
        assert sent(server, name, method="POST", resource=resource, namespace="gen") == [(PROTOBUF, 201)]
    template = get_json(kubectl, "deployment", "web", "-n", "gen")["spec"]["template"]
    assert template["spec"]["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    web = get_json(kubectl, "service", "web", "-n", "gen")["spec"]
    assert (web["selector"], web["ports"]) == ({"app": "web"}, [{"port": 8080, "protocol": "TCP", "targetPort": 80}])
    taken = kubectl("create", "service", "nodeport", "again", "--tcp=80:80", "--node-port=30080", "-n", "gen")
    assert taken.err == ('error: failed to create NodePort service: Service "again" is invalid: '
                         "spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated\n")
    lines = masked(kubectl.ok("get", "all", "-n", "gen")).splitlines()
    ips = {name: get_json(kubectl, "service", name, "-n", "gen")["spec"]["clusterIP"] for name in ("db", "np", "web")}
    assert [line.split() for line in lines] == [
        ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
        ["service/db", "ClusterIP", ips["db"], "<none>", "5432/TCP", "<age>"],
        ["service/np", "NodePort", ips["np"], "<none>", "80:30080/TCP", "<age>"],
        ["service/web", "ClusterIP", ips["web"], "<none>", "8080/TCP", "<age>"],
        [],
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        ["deployment.apps/web", "0/2", "0", "0", "<age>"],
        [],
        ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE"],
        ["cronjob.batch/hourly", "0", "*", "*", "*", "*", "<none>", "False", "0", "<none>", "<age>"],
        [],
        ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
        ["job.batch/pi", "Running", "0/1", "<age>"],
    ]


def test_describe_shows_each_workload_as_on_a_kind_cluster(kubectl: Kubectl) -> None:
    kubectl.ok("create", "namespace", "described")
    kubectl.ok("apply", "-n", "described", "-f", kubectl.write("workloads.yaml", WORKLOADS))
    kubectl.ok("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "-n", "described")
    assert masked(kubectl.ok("describe", "deployment", "web", "-n", "described")) == f"""\
Name:                   web
Namespace:              described
CreationTimestamp:      <time>
Labels:                 app=web
Annotations:            <none>
Selector:               app=web
Replicas:               2 desired | 0 updated | 0 total | 0 available | 0 unavailable
StrategyType:           RollingUpdate
MinReadySeconds:        0
RollingUpdateStrategy:  25% max unavailable, 25% max surge
{POD_TEMPLATE.format(app="web", container="nginx", image="nginx:1.27")}Events:            <none>
"""
    assert kubectl.ok("describe", "rs", "front", "-n", "described") == f"""\
Name:         front
Namespace:    described
Selector:     app=front
Labels:       <none>
Annotations:  <none>
Replicas:     0 current / 2 desired
Pods Status:  0 Running / 0 Waiting / 0 Succeeded / 0 Failed
{POD_TEMPLATE.format(app="front", container="web", image="nginx:1.27")}Events:            <none>
"""
    assert masked(kubectl.ok("describe", "sts", "db", "-n", "described")) == f"""\
Name:               db
Namespace:          described
CreationTimestamp:  <time>
Selector:           app=db
Labels:             <none>
Annotations:        <none>
Replicas:           1 desired | 0 total
Update Strategy:    RollingUpdate
  Partition:        0
Pods Status:        0 Running / 0 Waiting / 0 Succeeded / 0 Failed
{POD_TEMPLATE.format(app="db", container="db", image="postgres:17")}Volume Claims:
  Name:          data
  StorageClass:  \n  Labels:        <none>
  Annotations:   <none>
  Capacity:      1Gi
  Access Modes:  [ReadWriteOnce]
Events:          <none>
"""
    assert kubectl.ok("describe", "ds", "agent", "-n", "described") == f"""\
Name:           agent
Selector:       app=agent
Node-Selector:  <none>
Labels:         <none>
Annotations:    deprecated.daemonset.template.generation: 1
Desired Number of Nodes Scheduled: 0
Current Number of Nodes Scheduled: 0
Number of Nodes Scheduled with Up-to-date Pods: 0
Number of Nodes Scheduled with Available Pods: 0
Number of Nodes Misscheduled: 0
Pods Status:  0 Running / 0 Waiting / 0 Succeeded / 0 Failed
{POD_TEMPLATE.format(app="agent", container="agent", image="busybox:1.36")}Events:            <none>
"""
    table = kubectl.ok("get", "rs,sts,ds", "-n", "described", "-o", "wide").splitlines()
    assert table[0].split() == ["NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]
    assert table[1].split()[:4] + table[1].split()[5:] == ["replicaset.apps/front", "2", "0", "0", "web",
                                                           "nginx:1.27", "app=front"]


def test_describe_a_job_a_cron_job_a_service_and_endpoints(kubectl: Kubectl) -> None:
    kubectl.ok("create", "namespace", "batchy")
    kubectl.ok("create", "job", "pi", "--image=perl:5.34", "-n", "batchy", "--", "perl", "-e", "1")
    kubectl.ok("create", "cronjob", "hourly", "--image=busybox:1.36", "--schedule=0 * * * *", "-n", "batchy",
               "--", "date")
    kubectl.ok("create", "service", "nodeport", "np", "--tcp=80:8080", "-n", "batchy")
    uid = get_json(kubectl, "job", "pi", "-n", "batchy")["metadata"]["uid"]
    job = kubectl.ok("describe", "job", "pi", "-n", "batchy")
    assert job.splitlines()[:16] == [
        "Name:             pi", "Namespace:        batchy",
        f"Selector:         batch.kubernetes.io/controller-uid={uid}", "Labels:           <none>",
        "Annotations:      <none>", "Parallelism:      1", "Completions:      1", "Completion Mode:  NonIndexed",
        "Suspend:          false", "Backoff Limit:    6",
        "Pods Statuses:    0 Active / 0 Succeeded / 0 Failed", "Pod Template:",
        f"  Labels:  batch.kubernetes.io/controller-uid={uid}", "           batch.kubernetes.io/job-name=pi",
        f"           controller-uid={uid}", "           job-name=pi"]
    cron = kubectl.ok("describe", "cronjob", "hourly", "-n", "batchy").splitlines()
    assert cron[:12] == [
        "Name:                          hourly", "Namespace:                     batchy",
        "Labels:                        <none>", "Annotations:                   <none>",
        "Schedule:                      0 * * * *", "Concurrency Policy:            Allow",
        "Suspend:                       False", "Successful Job History Limit:  3",
        "Failed Job History Limit:      1", "Starting Deadline Seconds:     <unset>",
        "Selector:                      <unset>", "Parallelism:                   <unset>"]
    assert cron[-3:] == ["Last Schedule Time:  <unset>", "Active Jobs:         <none>", "Events:              <none>"]
    spec = get_json(kubectl, "service", "np", "-n", "batchy")["spec"]
    assert kubectl.ok("describe", "svc", "np", "-n", "batchy") == f"""\
Name:                     np
Namespace:                batchy
Labels:                   app=np
Annotations:              <none>
Selector:                 app=np
Type:                     NodePort
IP Family Policy:         SingleStack
IP Families:              IPv4
IP:                       {spec["clusterIP"]}
IPs:                      {spec["clusterIP"]}
Port:                     80-8080  80/TCP
TargetPort:               8080/TCP
NodePort:                 80-8080  {spec["ports"][0]["nodePort"]}/TCP
Endpoints:                <none>
Session Affinity:         None
External Traffic Policy:  Cluster
Internal Traffic Policy:  Cluster
Events:                   <none>
"""
    port = get_json(kubectl, "endpoints", "kubernetes", "-n", "default")["subsets"][0]["ports"][0]["port"]
    assert kubectl.ok("describe", "endpoints", "kubernetes", "-n", "default") == f"""\
Name:         kubernetes
Namespace:    default
Labels:       endpointslice.kubernetes.io/skip-mirror=true
Annotations:  <none>
Subsets:
  Addresses:          172.18.0.1
  NotReadyAddresses:  <none>
  Ports:
    Name   Port   Protocol
    ----   ----   --------
    https  {port}  TCP

Events:  <none>
"""


def test_scale_autoscale_set_and_rollout_restart_change_the_deployment(kubectl: Kubectl) -> None:
    kubectl.ok("create", "namespace", "changes")
    kubectl.ok("create", "deployment", "web", "--image=nginx:1.27", "-n", "changes")
    assert kubectl.ok("scale", "deployment", "web", "--replicas=3", "-n", "changes") == "deployment.apps/web scaled\n"
    assert kubectl.ok("autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=70", "-n", "changes") \
        == "horizontalpodautoscaler.autoscaling/web autoscaled\n"
    assert kubectl.ok("get", "hpa", "-n", "changes").splitlines()[1].split()[:7] == [
        "web", "Deployment/web", "cpu:", "<unknown>/70%", "2", "5", "0"]
    autoscaler = get_json(kubectl, "hpa.v2.autoscaling", "web", "-n", "changes")["spec"]
    assert autoscaler["metrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]
    assert kubectl.ok("set", "image", "deployment/web", "nginx=nginx:1.28", "-n", "changes") == \
        "deployment.apps/web image updated\n"
    assert kubectl.ok("set", "resources", "deployment", "web", "--limits=cpu=200m,memory=256Mi", "-n", "changes") == \
        "deployment.apps/web resource requirements updated\n"
    assert kubectl.ok("set", "env", "deployment/web", "MODE=prod", "-n", "changes") == \
        "deployment.apps/web env updated\n"
    assert kubectl.ok("rollout", "restart", "deployment", "web", "-n", "changes") == "deployment.apps/web restarted\n"
    deployment = get_json(kubectl, "deployment", "web", "-n", "changes")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert (deployment["spec"]["replicas"], deployment["metadata"]["generation"]) == (3, 6)
    assert (container["image"], container["env"], container["resources"]) == (
        "nginx:1.28", [{"name": "MODE", "value": "prod"}], {"limits": {"cpu": "200m", "memory": "256Mi"}})
    assert list(deployment["spec"]["template"]["metadata"]["annotations"]) == ["kubectl.kubernetes.io/restartedAt"]


def test_cluster_info_finds_the_control_plane(kubectl: Kubectl, server: Server) -> None:
    assert kubectl.ok("cluster-info") == (
        f"Kubernetes control plane is running at {server.url}\n"
        f"CoreDNS is running at {server.url}/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\n\n"
        "To further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n")
    assert get_json(kubectl, "service", "kubernetes", "-n", "default")["spec"]["clusterIP"] == "10.96.0.1"


def test_the_kube_dns_service_is_there_as_on_a_kind_cluster(kubectl: Kubectl) -> None:
    assert kubectl.ok("get", "service", "kube-dns", "-n", "kube-system", "-o", "custom-columns="
                      "NAME:.metadata.name,IP:.spec.clusterIP,PORTS:.spec.ports[*].port,LABELS:.metadata.labels") == (
        "NAME       IP           PORTS        LABELS\n"
        "kube-dns   10.96.0.10   53,53,9153   map[k8s-app:kube-dns kubernetes.io/cluster-service:true "
        "kubernetes.io/name:CoreDNS]\n")
    service = get_json(kubectl, "service", "kube-dns", "-n", "kube-system")
    assert [(p["name"], p["port"], p["protocol"]) for p in service["spec"]["ports"]] == [
        ("dns", 53, "UDP"), ("dns-tcp", 53, "TCP"), ("metrics", 9153, "TCP")]
    assert service["spec"]["selector"] == {"k8s-app": "kube-dns"}


def guarded_node(kubectl: Kubectl, node: str, disruptions_allowed: int) -> None:
    """A node with one running, ready pod that a budget guards, its status as the disruption controller's."""
    kubectl.ok("create", "namespace", node)
    kubectl.ok("create", "-f", "-", stdin=f"apiVersion: v1\nkind: Node\nmetadata: {{name: {node}}}\n")
    kubectl.ok("create", "-n", node, "-f", "-", stdin=f"""\
apiVersion: v1
kind: Pod
metadata: {{name: guarded, labels: {{app: web}}}}
spec: {{nodeName: {node}, containers: [{{name: web, image: nginx:1.27}}]}}
""")
    kubectl.ok("patch", "pod", "guarded", "-n", node, "--subresource=status", "--type=merge", "-p",
               '{"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}')
    kubectl.ok("create", "poddisruptionbudget", "web", "--selector=app=web", "--min-available=1", "-n", node)
    status = {"observedGeneration": 1, "currentHealthy": 1 + disruptions_allowed, "desiredHealthy": 1,
              "expectedPods": 1 + disruptions_allowed, "disruptionsAllowed": disruptions_allowed}
    kubectl.ok("patch", "pdb", "web", "-n", node, "--subresource=status", "--type=merge", "-p",
               json.dumps({"status": status}))


def test_drain_waits_on_a_budget_that_allows_no_disruption(kubectl: Kubectl) -> None:
    guarded_node(kubectl, "tight-node", 0)
    result = kubectl("drain", "tight-node", "--force", "--grace-period=0", "--timeout=2s")
    assert result.rc == 1
    assert ('error when evicting pods/"guarded" -n "tight-node" (will retry after 5s): Cannot evict pod as it would '
            "violate the pod's disruption budget.") in result.err
    assert 'error when evicting pods/"guarded" -n "tight-node": global timeout reached: 2s' in result.err
    assert get_json(kubectl, "pod", "guarded", "-n", "tight-node")["metadata"].get("deletionTimestamp") is None


def test_drain_evicts_a_pod_its_budget_allows_to_go(kubectl: Kubectl) -> None:
    guarded_node(kubectl, "loose-node", 1)
    out = kubectl.ok("drain", "loose-node", "--force", "--grace-period=0", "--timeout=10s")
    assert out == ("node/loose-node cordoned\nevicting pod loose-node/guarded\npod/guarded evicted\n"
                   "node/loose-node drained\n")
    budget = get_json(kubectl, "pdb", "web", "-n", "loose-node")["status"]
    assert (budget["disruptionsAllowed"], list(budget["disruptedPods"])) == (0, ["guarded"])
    assert kubectl.ok("get", "pdb", "-n", "loose-node").splitlines()[1].split()[:4] == ["web", "1", "N/A", "0"]
