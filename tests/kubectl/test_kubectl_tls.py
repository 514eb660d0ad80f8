"""kubectl and the official client over https, with the credentials `fakeapi serve` is given:
`--tls-self-signed` with `--token-auth-file` and `--anonymous-auth=false` (the kubeconfig carries the CA and
the file's first token), `--tls-cert-file`/`--tls-private-key-file` with `--client-ca-file` (client
certificates name users), and the in-process server's client certificate (fails without kubectl)."""

from __future__ import annotations

import base64
import json
import os
import re
import ssl
import stat
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, config

from fakeapi.pki import Authority
from fakeapi.testing import FakeAPIServer
from tests.kubectl.conftest import Kubectl, Server, kubectl_binary, start_server, stop_server

TOKENS = 'alice-token,alice,1001,"dev,ops"\nbob-token,bob,1002\n'
UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Unauthorized", "reason": "Unauthorized", "code": 401}
POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: nginx, image: nginx:1.27}]}\n"


def rows(output: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in output.strip().splitlines()]


def kubeconfig_of(server: Server) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(server.kubeconfig.read_text())
    return loaded


def trusted_ca(server: Server) -> str:
    return base64.b64decode(kubeconfig_of(server)["clusters"][0]["cluster"]["certificate-authority-data"]).decode()


def get(server: Server, path: str, token: str | None = None) -> tuple[int, bytes]:
    """GET over https trusting the kubeconfig's CA, with `token` if given."""
    headers = {"X-Fakeapi-Control": "1", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(server.url + path, headers=headers)
    context = ssl.create_default_context(cadata=trusted_ca(server))
    try:
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """--tls-self-signed, a token file and no anonymous requests."""
    kubectl_binary()
    directory = tmp_path_factory.mktemp("fakeapi-tokens")
    (directory / "tokens.csv").write_text(TOKENS)
    started = start_server(directory, "--tls-self-signed", "--token-auth-file", str(directory / "tokens.csv"),
                           "--anonymous-auth=false")
    yield started
    stop_server(started)


def test_the_kubeconfig_holds_the_ca_and_the_files_first_token_for_its_owner_only(server: Server) -> None:
    assert server.url.startswith("https://127.0.0.1:")
    config_file = kubeconfig_of(server)
    assert config_file["clusters"][0]["cluster"]["server"] == server.url
    assert trusted_ca(server).startswith("-----BEGIN CERTIFICATE-----")
    assert config_file["users"][0]["user"] == {"token": "alice-token"}
    assert stat.S_IMODE(os.stat(server.kubeconfig).st_mode) == 0o600


def test_whoami_shows_each_tokens_user(kubectl: Kubectl) -> None:
    assert rows(kubectl.ok("auth", "whoami")) == [
        ["ATTRIBUTE", "VALUE"], ["Username", "alice"], ["UID", "1001"], ["Groups", "[dev ops system:authenticated]"]]
    assert rows(kubectl.ok("--token", "bob-token", "auth", "whoami")) == [
        ["ATTRIBUTE", "VALUE"], ["Username", "bob"], ["UID", "1002"], ["Groups", "[system:authenticated]"]]


def test_kubectl_works_over_https_and_the_request_log_names_the_user(kubectl: Kubectl, server: Server) -> None:
    path = kubectl.write("pod.yaml", POD)
    assert kubectl.ok("--token", "bob-token", "create", "-f", path) == "pod/web created\n"
    assert kubectl.ok("get", "pods", "-o", "name") == "pod/web\n"
    status, body = get(server, "/fakeapi/v1/requests?verb=create&resource=pods&subresource=", token="alice-token")
    assert status == 200
    assert [entry["user"] for entry in json.loads(body)["items"]] == [
        {"username": "bob", "uid": "1002", "groups": ["system:authenticated"]}]
    kubectl.ok("delete", "pod", "web", "--wait=false")


def test_a_wrong_token_or_none_is_401(kubectl: Kubectl, server: Server) -> None:
    result = kubectl("--token", "not-a-token", "get", "pods")
    assert (result.rc, result.out) == (1, "")
    # (discovery asks first, with a fresh cache: kubectl then words it as it does against kube-apiserver)
    assert result.err.endswith("\nerror: You must be logged in to the server (the server has asked for the client "
                               "to provide credentials)\n"), str(result)
    assert get(server, "/api/v1/namespaces/default/pods") == (401, json.dumps(UNAUTHORIZED, separators=(",", ":"))
                                                              .encode())


def test_health_checks_need_a_token_too(server: Server) -> None:
    assert get(server, "/readyz")[0] == 401
    assert get(server, "/readyz", token="bob-token") == (200, b"ok")


def test_the_official_client_loads_the_kubeconfig_unchanged(server: Server) -> None:
    configuration = client.Configuration()
    config.load_kube_config(str(server.kubeconfig), client_configuration=configuration)
    with client.ApiClient(configuration) as api_client:
        assert client.CoreV1Api(api_client).list_namespaced_pod("default").metadata.resource_version
        review = client.AuthenticationV1Api(api_client).create_self_subject_review(client.V1SelfSubjectReview())
        assert review.status.user_info.username == "alice"


# ---- certificate files of the user's own, and client certificates


@pytest.fixture(scope="module")
def authority() -> Authority:
    return Authority.new("team")


@pytest.fixture(scope="module")
def files_server(tmp_path_factory: pytest.TempPathFactory, authority: Authority) -> Iterator[Server]:
    """--tls-cert-file and --tls-private-key-file (a chain ending in the CA), --client-ca-file; anonymous
    requests allowed, as upstream's default."""
    directory = tmp_path_factory.mktemp("fakeapi-files")
    serving = authority.issue_server(["127.0.0.1"])
    (directory / "tls.crt").write_bytes(serving.certificate)
    (directory / "tls.key").write_bytes(serving.key)
    (directory / "ca.crt").write_bytes(authority.certificate)
    started = start_server(directory, "--tls-cert-file", str(directory / "tls.crt"), "--tls-private-key-file",
                           str(directory / "tls.key"), "--client-ca-file", str(directory / "ca.crt"))
    yield started
    stop_server(started)


@pytest.fixture
def files_kubectl(files_server: Server, tmp_path: Path) -> Iterator[Kubectl]:
    runner = Kubectl(kubectl_binary(), files_server, tmp_path / "cache", tmp_path)
    yield runner
    runner.stop_background()


def client_certificate(kubectl: Kubectl, authority: Authority, name: str, *groups: str) -> list[str]:
    """kubectl's flags presenting a client certificate `authority` issues for `name` in `groups`."""
    pair = authority.issue_client(name, groups)
    return ["--client-certificate", kubectl.write(f"{name}.crt", pair.certificate.decode()),
            "--client-key", kubectl.write(f"{name}.key", pair.key.decode())]


def test_the_kubeconfig_trusts_the_ca_ending_the_certificate_chain(files_server: Server,
                                                                   authority: Authority) -> None:
    config_file = kubeconfig_of(files_server)
    assert trusted_ca(files_server) == authority.certificate.decode()
    assert config_file["users"][0]["user"] == {}  # no credential to give: requests are anonymous


def test_a_client_certificate_names_the_user_and_its_groups(files_kubectl: Kubectl, authority: Authority) -> None:
    flags = client_certificate(files_kubectl, authority, "carol", "qa", "ops")
    review = json.loads(files_kubectl.ok(*flags, "auth", "whoami", "-o", "json"))
    user = review["status"]["userInfo"]
    assert (user["username"], user["groups"]) == ("carol", ["qa", "ops", "system:authenticated"])
    [credential_id] = user["extra"]["authentication.kubernetes.io/credential-id"]
    assert re.fullmatch("X509SHA256=[0-9a-f]{64}", credential_id)


def test_without_a_certificate_requests_are_anonymous(files_server: Server) -> None:
    """(kubectl itself asks for a user name when its kubeconfig has no credential for an https server)"""
    status, body = get(files_server, "/apis/authentication.k8s.io/v1/selfsubjectreviews")
    assert status == 405
    request = urllib.request.Request(files_server.url + "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                                     data=b"{}", headers={"Content-Type": "application/json"}, method="POST")
    context = ssl.create_default_context(cadata=trusted_ca(files_server))
    with urllib.request.urlopen(request, context=context, timeout=10) as response:
        assert json.loads(response.read())["status"]["userInfo"] == {"username": "system:anonymous",
                                                                      "groups": ["system:unauthenticated"]}


def test_kubectl_uses_the_client_certificate_of_the_in_process_servers_kubeconfig(tmp_path: Path) -> None:
    with FakeAPIServer(tls=True, anonymous_auth=False) as server:
        done = subprocess.run([kubectl_binary(), "--kubeconfig", server.kubeconfig, "--cache-dir", str(tmp_path),
                               "auth", "whoami"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert rows(done.stdout)[:3] == [["ATTRIBUTE", "VALUE"], ["Username", "kubernetes-admin"],
                                     ["Groups", "[system:masters system:authenticated]"]]
