"""kubectl against `fakeapi serve` as it starts by default: a simulated cluster of one node, on the live
clock. Pods run, become Ready, log, and go when deleted, as on a cluster."""

from __future__ import annotations

from tests.kubectl.conftest import Kubectl


def test_run_wait_logs_describe_and_delete_a_pod(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    assert kubectl.ok("run", "web", "--image=nginx") == "pod/web created\n"
    assert kubectl.ok("wait", "--for=condition=Ready", "pod/web", "--timeout=20s") == "pod/web condition met\n"
    row = kubectl.ok("get", "pod", "web", "--no-headers").split()
    assert row[:4] == ["web", "1/1", "Running", "0"]
    assert kubectl.ok("logs", "web") == 'fakeapi: started container "web" (image "nginx")\n'
    described = " ".join(kubectl.ok("describe", "pod", "web").split())
    assert "Node: node-1/172.18.0.2" in described and "IP: 10.244.0.2" in described, described
    events = described.split("Events: ")[1]
    for line in ("Normal Scheduled", "default-scheduler Successfully assigned default/web to node-1",
                 'kubelet Pulling image "nginx"', "kubelet Created container: web", "kubelet Started container web"):
        assert line in events, described
    assert kubectl.ok("delete", "pod", "web", "--timeout=20s") == 'pod "web" deleted\n'
    assert kubectl("get", "pod", "web").rc == 1


def test_get_nodes_shows_a_ready_node(cluster_kubectl: Kubectl) -> None:
    rows = [line.split() for line in cluster_kubectl.ok("get", "nodes").splitlines()]
    assert rows[0] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert rows[1][:3] == ["node-1", "Ready", "<none>"] and rows[1][4] == "v1.32.0"


def test_a_crash_looping_pod_shows_crash_loop_back_off_and_its_previous_log(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("run", "crash", "--image=nginx", "--annotations=fakeapi.dev/crash-loop=true",
               "--annotations=fakeapi.dev/exit-after=300ms", "--annotations=fakeapi.dev/log-lines=connecting to db")
    kubectl.ok("wait", "--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}=CrashLoopBackOff",
               "pod/crash", "--timeout=20s")
    row = kubectl.ok("get", "pod", "crash", "--no-headers").split()
    assert row[:4] == ["crash", "0/1", "CrashLoopBackOff", "1"], row
    assert kubectl.ok("logs", "crash", "--previous") == (
        'connecting to db\n'
        'fakeapi: container "crash" exited with code 1\n')
    described = " ".join(kubectl.ok("describe", "pod", "crash").split())
    assert "State: Waiting Reason: CrashLoopBackOff" in described, described
    assert "Last State: Terminated Reason: Error Exit Code: 1" in described, described
    assert "Warning BackOff" in described and "Back-off restarting failed container crash in pod" in described
    kubectl.ok("delete", "pod", "crash", "--timeout=20s")


def test_a_pod_that_runs_to_completion_shows_completed(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("run", "job", "--image=nginx", "--restart=Never", "--annotations=fakeapi.dev/exit-after=2s")
    kubectl.ok("wait", "--for=condition=Ready", "pod/job", "--timeout=20s")
    followed = kubectl.ok("logs", "-f", "job")  # until the container exits
    assert followed == 'fakeapi: started container "job" (image "nginx")\nfakeapi: container "job" exited with code 0\n'
    kubectl.ok("wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/job", "--timeout=20s")
    row = kubectl.ok("get", "pod", "job", "--no-headers").split()
    assert row[:4] == ["job", "0/1", "Completed", "0"], row
    stamped = kubectl.ok("logs", "job", "--timestamps").splitlines()
    assert [line.split(" ", 1)[1] for line in stamped] == followed.splitlines()
    assert all(len(line.split(" ", 1)[0]) == len("2030-06-01T12:00:00.000000000Z") for line in stamped)
    assert kubectl.ok("delete", "pod", "job") == 'pod "job" deleted\n'
