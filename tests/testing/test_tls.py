"""FakeAPIServer(tls=True, token=...) and the pytest mark: https with a CA made for the server, and the
clients it configures (the official client, kubernetes_asyncio) or its kubeconfig configures (lightkube,
kr8s) trusting that CA and presenting the token, or a client certificate the CA issued, unchanged."""

from __future__ import annotations

import base64
import hashlib
import http.client
import os
import ssl
import stat
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kr8s
import kr8s.asyncio
import orjson
import pytest
import yaml
from kr8s._async_utils import Portal
from kubernetes import client
from lightkube import Client as LightkubeClient
from lightkube import KubeConfig
from lightkube.resources.authentication_v1 import SelfSubjectReview
from lightkube.resources.core_v1 import Pod as LightkubePod

from fakeapi.pki import Authority
from fakeapi.testing import FakeAPIServer, UserInfo

ALICE = UserInfo("alice", "1001", ("dev",))
UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Unauthorized", "reason": "Unauthorized", "code": 401}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
       "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]}}


def trusting(server: FakeAPIServer, certificate: tuple[Path, Path] | None = None) -> ssl.SSLContext:
    """A client context that trusts the server's CA (and presents `certificate`: its file and key file)."""
    assert server.certificate_authority is not None
    context = ssl.create_default_context(cadata=server.certificate_authority.decode())
    if certificate is not None:
        context.load_cert_chain(*certificate)
    return context


def get(server: FakeAPIServer, path: str, context: ssl.SSLContext | None = None) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(server.url + path, context=context or trusting(server), timeout=10) as response:
            return response.status, orjson.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, orjson.loads(error.read())


def whoami(api_client: Any) -> Any:
    return client.AuthenticationV1Api(api_client).create_self_subject_review(client.V1SelfSubjectReview()).status


def test_the_official_client_reaches_an_https_server_with_the_token() -> None:
    with FakeAPIServer(tls=True, token="s3cr3t", user=ALICE, anonymous_auth=False) as server:
        assert server.url.startswith("https://127.0.0.1:")
        api_client = server.kubernetes_client()
        client.CoreV1Api(api_client).create_namespaced_pod("default", POD)
        status = whoami(api_client)
        assert (status.user_info.username, status.user_info.uid, status.user_info.groups, status.user_info.extra) \
            == ("alice", "1001", ["dev", "system:authenticated"], None)
        assert [(entry.verb, entry.user.username) for entry in server.requests] == [("create", "alice")] * 2
        # the same server without the token: upstream's 401 Status
        assert get(server, "/api/v1/namespaces/default/pods") == (401, UNAUTHORIZED)


def test_the_official_client_presents_a_client_certificate_without_a_token() -> None:
    with FakeAPIServer(tls=True, user=ALICE, anonymous_auth=False) as server:
        assert server.credentials is not None and server.credentials.client_certificate is not None
        der = ssl.PEM_cert_to_DER_cert(server.credentials.client_certificate.decode())
        user_info = whoami(server.kubernetes_client()).user_info
        assert (user_info.username, user_info.uid, user_info.groups) == ("alice", None, ["dev", "system:authenticated"])
        assert user_info.extra == {
            "authentication.kubernetes.io/credential-id": [f"X509SHA256={hashlib.sha256(der).hexdigest()}"]}


def test_the_tls_is_real_a_client_without_the_ca_is_refused() -> None:
    with FakeAPIServer(tls=True) as server:
        with pytest.raises(urllib.error.URLError) as refused:
            urllib.request.urlopen(server.url + "/readyz", timeout=10)
        assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)
        with urllib.request.urlopen(server.url + "/readyz", context=trusting(server), timeout=10) as response:
            assert response.read() == b"ok"


def test_a_client_certificate_another_ca_issued_ends_the_connection(tmp_path: Path) -> None:
    """A difference from upstream (which answers 401): Python's TLS layer refuses the certificate."""
    mallory = Authority.new("other").issue_client("mallory", ())
    (tmp_path / "mallory.crt").write_bytes(mallory.certificate)
    (tmp_path / "mallory.key").write_bytes(mallory.key)
    with FakeAPIServer(tls=True) as server:
        context = trusting(server, (tmp_path / "mallory.crt", tmp_path / "mallory.key"))
        with pytest.raises((http.client.RemoteDisconnected, ssl.SSLError, ConnectionResetError)):
            get(server, "/readyz", context)
        assert server.requests == []


def test_the_kubeconfig_carries_the_ca_and_the_token_and_only_its_owner_reads_it() -> None:
    with FakeAPIServer(tls=True, token="s3cr3t") as server:
        config = yaml.safe_load(Path(server.kubeconfig).read_text())
        assert config["clusters"][0]["cluster"] == {
            "server": server.url,
            "certificate-authority-data": base64.b64encode(server.certificate_authority or b"").decode()}
        assert config["users"][0]["user"] == {"token": "s3cr3t"}
        assert stat.S_IMODE(os.stat(server.kubeconfig).st_mode) == 0o600


@pytest.mark.parametrize("credential", [
    pytest.param("token", marks=pytest.mark.fakeapi(tls=True, token="s3cr3t", anonymous_auth=False)),
    pytest.param("client certificate", marks=pytest.mark.fakeapi(tls=True, anonymous_auth=False)),
])
async def test_the_mark_gives_kubernetes_asyncio_an_https_server_and_credentials(async_fakeapi: FakeAPIServer,
                                                                                 credential: str) -> None:
    from kubernetes_asyncio import client as aclient

    api = async_fakeapi.kubernetes_asyncio_client()
    review = await aclient.AuthenticationV1Api(api).create_self_subject_review(aclient.V1SelfSubjectReview())
    assert (review.status.user_info.username, review.status.user_info.groups) == (
        "kubernetes-admin", ["system:masters", "system:authenticated"])
    assert (review.status.user_info.extra is not None) == (credential == "client certificate")
    await aclient.CoreV1Api(api).create_namespaced_pod("default", POD)
    assert [pod.metadata.name for pod in (await aclient.CoreV1Api(api).list_namespaced_pod("default")).items] \
        == ["web"]


@pytest.fixture
def kr8s_api(fakeapi: FakeAPIServer) -> Iterator[Any]:
    """kr8s on the server's kubeconfig; its httpx session closed after the test (kr8s keeps it open)."""
    api = kr8s.api(kubeconfig=fakeapi.kubeconfig)
    yield api
    if api._session is not None:
        Portal().call(api._session.aclose)


@pytest.mark.parametrize("credential", [
    pytest.param("client-certificate-data", marks=pytest.mark.fakeapi(tls=True, anonymous_auth=False)),
    pytest.param("token", marks=pytest.mark.fakeapi(tls=True, token="s3cr3t", anonymous_auth=False)),
])
def test_lightkube_and_kr8s_use_the_kubeconfig_unchanged(fakeapi: FakeAPIServer, kr8s_api: Any,
                                                         credential: str) -> None:
    assert credential in yaml.safe_load(Path(fakeapi.kubeconfig).read_text())["users"][0]["user"]
    with LightkubeClient(KubeConfig.from_file(fakeapi.kubeconfig), namespace="default") as lightkube:
        lightkube.create(LightkubePod.from_dict(POD))
        review = lightkube.create(SelfSubjectReview())
        assert review.status is not None and review.status.userInfo is not None
        assert review.status.userInfo.username == "kubernetes-admin"
    assert kr8s_api.whoami() == "kubernetes-admin"
    assert [pod.name for pod in kr8s_api.get("pods", namespace="default")] == ["web"]
    assert {entry.user.username for entry in fakeapi.requests} == {"kubernetes-admin"}


@pytest.mark.fakeapi(tls=True, token="s3cr3t", anonymous_auth=False)
async def test_kr8s_asyncio_uses_the_kubeconfig_unchanged(async_fakeapi: FakeAPIServer) -> None:
    api = await kr8s.asyncio.api(kubeconfig=async_fakeapi.kubeconfig)
    try:
        assert await api.whoami() == "kubernetes-admin"
        assert (await api.version())["minor"] == "32"
    finally:
        if api._session is not None:
            await api._session.aclose()
