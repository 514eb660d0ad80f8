"""kubectl's service account token commands against `fakeapi serve --tls-self-signed` (kubectl sends
credentials over https only): `kubectl create token` with its flags, the token used with `--token`, and
the refusals (fails without kubectl)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.kubectl.conftest import Kubectl, Server, kubectl_binary, start_server, stop_server

TOKENS = "admin-token,admin,1,system:masters\n"
ISSUER = "https://kubernetes.default.svc.cluster.local"
POD = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {serviceAccountName: robot, containers: [{name: nginx, image: nginx:1.27}]}
"""


def rows(output: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in output.strip().splitlines()]


def claims(token: str) -> Any:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    kubectl_binary()
    directory = tmp_path_factory.mktemp("fakeapi-sa-tokens")
    (directory / "tokens.csv").write_text(TOKENS)
    started = start_server(directory, "--simulate", "none", "--tls-self-signed",
                           "--token-auth-file", str(directory / "tokens.csv"))
    yield started
    stop_server(started)


@pytest.fixture
def robot(kubectl: Kubectl) -> Iterator[str]:
    kubectl.ok("create", "serviceaccount", "robot")
    yield kubectl.ok("get", "serviceaccount", "robot", "-o", "jsonpath={.metadata.uid}")
    kubectl("delete", "serviceaccount", "robot")
    kubectl("delete", "pod", "web", "--grace-period=0")


def test_create_token_gives_a_token_that_whoami_names(kubectl: Kubectl, robot: str) -> None:
    token = kubectl.ok("create", "token", "robot").strip()
    assert claims(token)["aud"] == [ISSUER]
    assert claims(token)["exp"] - claims(token)["iat"] == 3600
    assert rows(kubectl.ok("--token", token, "auth", "whoami")) == [
        ["ATTRIBUTE", "VALUE"],
        ["Username", "system:serviceaccount:default:robot"],
        ["UID", robot],
        ["Groups", "[system:serviceaccounts system:serviceaccounts:default system:authenticated]"],
        ["Extra: authentication.kubernetes.io/credential-id", f"[JTI={claims(token)['jti']}]"],
    ]
    assert kubectl.ok("--token", token, "get", "serviceaccounts", "-o", "name").splitlines() == [
        "serviceaccount/default", "serviceaccount/robot"]


def test_create_token_takes_audiences_a_duration_and_a_bound_pod(kubectl: Kubectl, robot: str) -> None:
    token = kubectl.ok("create", "token", "robot", "--audience", "vault", "--audience", "nats",
                       "--duration", "15m").strip()
    assert (claims(token)["aud"], claims(token)["exp"] - claims(token)["iat"]) == (["vault", "nats"], 900)
    kubectl.ok("create", "-f", kubectl.write("pod.yaml", POD))
    pod_uid = kubectl.ok("get", "pod", "web", "-o", "jsonpath={.metadata.uid}")
    token = kubectl.ok("create", "token", "robot", "--bound-object-kind", "Pod", "--bound-object-name", "web").strip()
    assert claims(token)["kubernetes.io"]["pod"] == {"name": "web", "uid": pod_uid}
    whoami = json.loads(kubectl.ok("--token", token, "auth", "whoami", "-o", "json"))
    assert whoami["status"]["userInfo"]["extra"]["authentication.kubernetes.io/pod-name"] == ["web"]
    kubectl.ok("delete", "pod", "web", "--grace-period=0")
    result = kubectl("--token", token, "auth", "whoami")
    assert (result.rc, result.err) == (1, "error: You must be logged in to the server (Unauthorized)\n")


def test_create_token_refusals_are_upstreams(kubectl: Kubectl, robot: str) -> None:
    result = kubectl("create", "token", "robot", "--duration", "5m")
    assert (result.rc, result.err) == (1, 'error: failed to create token: TokenRequest.authentication.k8s.io "" is '
                                          "invalid: spec.expirationSeconds: Invalid value: 300: may not specify a "
                                          "duration less than 10 minutes\n")
    result = kubectl("create", "token", "nobody")
    assert (result.rc, result.err) == (1, 'error: failed to create token: serviceaccounts "nobody" not found\n')
    result = kubectl("create", "token", "robot", "--bound-object-kind", "Pod", "--bound-object-name", "gone")
    assert (result.rc, result.err) == (1, 'error: failed to create token: pods "gone" not found\n')


def test_a_token_not_signed_by_the_server_is_refused(kubectl: Kubectl, robot: str) -> None:
    token = kubectl.ok("create", "token", "robot").strip()
    head, payload, _ = token.split(".")
    for bad in ("not-a-token", f"{head}.{payload}.AAAA"):
        result = kubectl("--token", bad, "get", "pods")
        assert (result.rc, result.err) == (1, "error: You must be logged in to the server (Unauthorized)\n")
