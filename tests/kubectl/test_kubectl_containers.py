"""The real kubectl 1.32 with what runs in containers, on `fakeapi serve`'s simulated cluster (live clock):
exec (v5 WebSockets), cp both ways, port-forward (SPDY in a WebSocket) with curl through it, run -it --rm,
attach, the logs and states of commands that exit, and containers held back by missing ConfigMaps."""

from __future__ import annotations

import http.server
import json
import re
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.kubectl.conftest import Kubectl, Server, kubectl_binary, start_server, stop_server


def control(server: Server, path: str, body: Any) -> Any:
    request = urllib.request.Request(server.url + "/fakeapi/v1" + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "X-Fakeapi-Control": "1"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def running(kubectl: Kubectl, name: str, *args: str) -> None:
    kubectl.ok("run", name, *args)
    kubectl.ok("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=20s")


@pytest.fixture
def local_web() -> Iterator[str]:
    """A web server of the test on 127.0.0.1: the address a pod's port is forwarded to."""

    class Hello(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = f"hello from {self.path}\n".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    serving = threading.Thread(target=httpd.serve_forever, daemon=True)
    serving.start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    serving.join(5)
    httpd.server_close()


def test_exec_prints_output_and_returns_the_exit_code(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("create", "configmap", "exec-config", "--from-literal=mode=fast")
    running(kubectl, "exec-web", "--image=nginx", "--env=GREETING=hi",
            '--overrides={"spec":{"containers":[{"name":"exec-web","image":"nginx","envFrom":'
            '[{"configMapRef":{"name":"exec-config"}}]}]}}')
    assert kubectl.ok("exec", "exec-web", "--", "sh", "-c", "echo $mode $HOSTNAME") == "fast exec-web\n"
    failed = kubectl("exec", "exec-web", "--", "sh", "-c", "echo out; echo err >&2; exit 3")
    assert (failed.rc, failed.out) == (3, "out\n")
    assert failed.err == "err\ncommand terminated with exit code 3\n"
    assert kubectl.ok("exec", "-i", "exec-web", "--", "cat", stdin="from stdin\n") == "from stdin\n"
    tokens = kubectl.ok("exec", "exec-web", "--", "ls", "/var/run/secrets/kubernetes.io/serviceaccount")
    assert tokens == "ca.crt\nnamespace\ntoken\n"
    missing = kubectl("exec", "exec-web", "--", "kubectl-is-not-here")
    assert (missing.rc, missing.err) == (127, "kubectl-is-not-here: command not found\n"
                                              "command terminated with exit code 127\n")
    wrong = kubectl("exec", "exec-web", "-c", "nope", "--", "ls")
    assert (wrong.rc, wrong.err) == (
        1, "Error from server (BadRequest): container nope is not valid for pod exec-web\n")


def test_cp_copies_files_and_directories_both_ways(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    running(kubectl, "cp-web", "--image=nginx")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<h1>hi</h1>\n")
    (tmp_path / "site" / "css").mkdir()
    (tmp_path / "site" / "css" / "main.css").write_text("body {}\n")
    (tmp_path / "notes.txt").write_text("one file\n")
    kubectl.ok("cp", str(tmp_path / "notes.txt"), "cp-web:/tmp/notes.txt")
    kubectl.ok("cp", str(tmp_path / "site"), "cp-web:/usr/share/site")
    assert kubectl.ok("exec", "cp-web", "--", "cat", "/tmp/notes.txt") == "one file\n"
    assert kubectl.ok("exec", "cp-web", "--", "ls", "-R", "/usr/share/site") == (
        "/usr/share/site:\ncss\nindex.html\n\n/usr/share/site/css:\nmain.css\n")
    copied = kubectl("cp", "cp-web:/usr/share/site", str(tmp_path / "back"))
    assert copied.rc == 0, str(copied)
    assert (tmp_path / "back" / "css" / "main.css").read_text() == "body {}\n"
    kubectl.ok("cp", "cp-web:/etc/hostname", str(tmp_path / "hostname"))
    assert (tmp_path / "hostname").read_text() == "cp-web\n"


def test_port_forward_reaches_the_address_given_and_refuses_other_ports(cluster_kubectl: Kubectl,
                                                                        local_web: str) -> None:
    kubectl = cluster_kubectl
    running(kubectl, "pf-web", "--image=nginx")
    control(kubectl.server, "/ports", {"pod": "pf-web", "port": 80, "address": local_web})
    forward = kubectl.background("port-forward", "pod/pf-web", ":80", ":81")
    assert forward.stdout is not None
    local: dict[str, int] = {}
    while len(local) < 2:  # "Forwarding from 127.0.0.1:40123 -> 80", and from [::1]
        found = re.match(r"Forwarding from 127\.0\.0\.1:(\d+) -> (\d+)", forward.stdout.readline())
        if found:
            local[found.group(2)] = int(found.group(1))
    ports = [local["80"], local["81"]]
    for path in ("/", "/again"):
        fetched = subprocess.run(["curl", "-s", f"http://127.0.0.1:{ports[0]}{path}"], capture_output=True,
                                 text=True, timeout=20)
        assert fetched.stdout == f"hello from {path}\n"
    refused = subprocess.run(["curl", "-s", f"http://127.0.0.1:{ports[1]}/"], capture_output=True, timeout=20)
    assert refused.returncode != 0
    _out, err = forward.communicate(timeout=20)  # kubectl reports the error and stops, as on a cluster
    assert "an error occurred forwarding" in err and "-> 81: error forwarding port 81 to pod" in err
    assert "connect: connection refused" in err and "error: lost connection to pod" in err


def test_run_it_rm_prints_the_commands_output_and_deletes_the_pod(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    result = kubectl("run", "hi", "-it", "--rm", "--image=busybox", "--", "sh", "-c", "echo hi", stdin="")
    assert result.rc == 0, str(result)
    assert result.out == 'hi\npod "hi" deleted\n'
    interactive = kubectl("run", "shell", "-i", "--rm", "--restart=Never", "--image=busybox", "--", "sh",
                          stdin="echo interactive\nexit 4\n")
    assert interactive.rc == 4 and interactive.out == 'interactive\npod "shell" deleted\n', str(interactive)
    assert "pod default/shell terminated (Error)" in interactive.err


def test_attach_shows_what_the_container_writes(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    running(kubectl, "ticker", "--image=busybox", "--", "sh", "-c",
            "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.5; done")
    attached = kubectl.background("attach", "ticker")
    assert attached.stdout is not None
    lines = [attached.stdout.readline() for _ in range(2)]
    assert all(re.fullmatch(r"tick \d+\n", line) for line in lines), lines
    attached.kill()
    assert kubectl.ok("logs", "ticker", "--tail=1").startswith("tick ")


def test_a_command_that_fails_shows_error_its_output_and_its_restarts(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("run", "job", "--image=busybox", "--restart=Never", "--", "sh", "-c", "echo working; exit 3")
    kubectl.ok("wait", "--for=jsonpath={.status.phase}=Failed", "pod/job", "--timeout=20s")
    assert kubectl.ok("get", "pod", "job", "--no-headers").split()[:3] == ["job", "0/1", "Error"]
    assert kubectl.ok("logs", "job") == "working\n"
    watch = kubectl.background("get", "pods", "--watch", "--no-headers", "--output-watch-events")
    kubectl.ok("run", "crasher", "--image=busybox", "--", "sh", "-c", "echo once; exit 1")
    assert watch.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + 20
    while "CrashLoopBackOff" not in seen and time.monotonic() < deadline:
        row = watch.stdout.readline().split()  # EVENT NAME READY STATUS RESTARTS AGE
        if row[1:2] == ["crasher"]:
            seen.append(row[3])
    watch.kill()
    assert "Error" in seen and seen.index("Error") < seen.index("CrashLoopBackOff"), seen


def test_a_missing_configmap_holds_the_container_back_until_it_exists(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    kubectl.ok("run", "needs-env", "--image=nginx", '--overrides={"spec":{"containers":[{"name":"needs-env",'
               '"image":"nginx","env":[{"name":"MODE","valueFrom":{"configMapKeyRef":{"name":"later","key":"mode"}}}]}]}}')
    kubectl.ok("run", "needs-volume", "--image=nginx", '--overrides={"spec":{"volumes":[{"name":"config",'
               '"configMap":{"name":"later"}}],"containers":[{"name":"needs-volume","image":"nginx",'
               '"volumeMounts":[{"name":"config","mountPath":"/etc/config"}]}]}}')
    kubectl.ok("wait", "--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}=CreateContainerConfigError",
               "pod/needs-env", "--timeout=20s")
    assert kubectl.ok("get", "pod", "needs-volume", "--no-headers").split()[2] == "ContainerCreating"
    described = kubectl.ok("describe", "pod", "needs-volume")
    assert 'MountVolume.SetUp failed for volume "config" : configmap "later" not found' in described
    assert 'Error: configmap "later" not found' in kubectl.ok("describe", "pod", "needs-env")
    kubectl.ok("create", "configmap", "later", "--from-literal=mode=ready")
    for name in ("needs-env", "needs-volume"):
        kubectl.ok("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=20s")
    assert kubectl.ok("exec", "needs-env", "--", "printenv", "MODE") == "ready\n"
    assert kubectl.ok("exec", "needs-volume", "--", "cat", "/etc/config/mode") == "ready"


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Kubectl]:
    """A server of its own (this test moves its clock, or stops its node)."""
    kubectl_binary()
    server = start_server(tmp_path / "server")
    runner = Kubectl(kubectl_binary(), server, tmp_path / "cache", tmp_path)
    yield runner
    runner.stop_background()
    stop_server(server)


def test_describe_ages_follow_the_server_clock_and_a_failed_node_is_unreachable(own_server: Kubectl) -> None:
    kubectl = own_server
    running(kubectl, "web", "--image=nginx")
    control(kubectl.server, "/clock", {"frozen": True, "advanceSeconds": 600})
    events = kubectl.ok("describe", "pod", "web").split("Events:")[1]
    assert "<invalid>" not in events and re.search(r"Normal\s+Started\s+10m\s+kubelet", events), events
    assert re.search(r"10m\s+Normal\s+Started", kubectl.ok("get", "events", "--field-selector",
                                                           "involvedObject.name=web"))
    control(kubectl.server, "/nodes/node-1/fail", {})
    refused = kubectl("exec", "web", "--", "true")
    assert refused.rc == 1 and "error dialing backend" in refused.err, str(refused)
    control(kubectl.server, "/clock", {"advanceSeconds": 60})
    assert kubectl.ok("get", "node", "node-1", "--no-headers").split()[1] == "NotReady"
    control(kubectl.server, "/nodes/node-1/recover", {})
    control(kubectl.server, "/clock", {"advanceSeconds": 1})
    assert kubectl.ok("get", "node", "node-1", "--no-headers").split()[1] == "Ready"
    assert kubectl.ok("exec", "web", "--", "echo", "back") == "back\n"
