"""kopf against a live server: a tiny operator (`kopf run --standalone -A`) sees a pod created, runs its
handler, and its patch lands, through kopf's own discovery scan, list, watch and patches."""

from __future__ import annotations

import time
from pathlib import Path

from kopf.testing import KopfRunner
from kubernetes import client as k8s

# kopf's own logins want a token or a certificate; a server without authentication is named in a login
# handler (kopf's documented way for such clusters)
OPERATOR = '''
import kopf


@kopf.on.login()
def login(**_):
    return kopf.ConnectionInfo(server=SERVER, insecure=True)


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_):
    settings.watching.server_timeout = 5  # each watch request asks the server to end it in 5 s
    settings.networking.request_timeout = 10


@kopf.on.create("pods", labels={"app": "web"})
def created(name, patch, **_):
    patch.metadata.labels["seen-by"] = "kopf"
    return {"greeted": name}
'''
DEADLINE = 15  # seconds for the operator to handle the pod


def test_a_kopf_operator_handles_a_created_pod(live_server: str, tmp_path: Path) -> None:
    operator = tmp_path / "operator.py"
    operator.write_text(f"SERVER = {live_server!r}\n" + OPERATOR)
    configuration = k8s.Configuration()
    configuration.host = live_server
    with k8s.ApiClient(configuration) as api_client:
        core = k8s.CoreV1Api(api_client)
        with KopfRunner(["run", "-A", "--standalone", "--verbose", str(operator)], timeout=30) as runner:
            core.create_namespaced_pod("default", k8s.V1Pod(
                metadata=k8s.V1ObjectMeta(name="web", labels={"app": "web"}),
                spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="main", image="nginx:1.27")])))
            labels: dict[str, str] = {}
            deadline = time.monotonic() + DEADLINE
            while time.monotonic() < deadline and labels.get("seen-by") != "kopf":
                time.sleep(0.1)
                labels = core.read_namespaced_pod("web", "default").metadata.labels
    assert runner.exception is None
    assert runner.exit_code == 0
    assert labels == {"app": "web", "seen-by": "kopf"}
    assert "Handler 'created' succeeded." in runner.output
