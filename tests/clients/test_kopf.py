"""kopf against a live server: a tiny operator (`kopf run --standalone -A`) sees a pod created, runs its
handler, and its patch lands, through kopf's own discovery scan, list, watch and patches; over http, and
over https with the kubeconfig's CA and credentials."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import pytest
from kopf.testing import KopfRunner
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer

# kopf's own logins want a token or a certificate; a server without them is named in a login handler
# (kopf's documented way for such clusters)
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


# kopf's kubeconfig login reads $KUBECONFIG when it runs (the official client's read it at import)
HTTPS_OPERATOR = '''
import kopf


@kopf.on.login()
def login(**kwargs):
    return kopf.login_with_kubeconfig(**kwargs)


@kopf.on.create("pods", labels={"app": "web"})
def created(name, patch, **_):
    patch.metadata.labels["seen-by"] = "kopf"
'''


# kopf's aiohttp sessions can leave a TLS socket, still shutting down when kopf's loop stops, to the garbage
# collector: collected here (and its ResourceWarning ignored) rather than in whichever test runs next
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning", "ignore::ResourceWarning")
@pytest.mark.parametrize("token", ["s3cr3t", None], ids=["token", "client-certificate"])
def test_a_kopf_operator_logs_in_with_the_kubeconfig_over_https(token: str | None, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    operator = tmp_path / "operator.py"
    operator.write_text(HTTPS_OPERATOR)
    with FakeAPIServer(tls=True, token=token, anonymous_auth=False) as server:
        monkeypatch.setenv("KUBECONFIG", server.kubeconfig)
        core = k8s.CoreV1Api(server.kubernetes_client())
        with KopfRunner(["run", "-A", "--standalone", str(operator)], timeout=30) as runner:
            core.create_namespaced_pod("default", {"metadata": {"name": "web", "labels": {"app": "web"}},
                                                   "spec": {"containers": [{"name": "main", "image": "nginx"}]}})
            labels: dict[str, str] = {}
            deadline = time.monotonic() + DEADLINE
            while time.monotonic() < deadline and labels.get("seen-by") != "kopf":
                time.sleep(0.1)
                labels = core.read_namespaced_pod("web", "default").metadata.labels
        users = {entry.user.username for entry in server.requests}
    gc.collect()
    assert (runner.exception, runner.exit_code) == (None, 0)
    assert labels == {"app": "web", "seen-by": "kopf"}
    assert users == {"kubernetes-admin"}  # kopf's requests and the test's, none anonymous
