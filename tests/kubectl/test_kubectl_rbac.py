"""The real kubectl against `fakeapi serve --authorization-mode RBAC`: `auth can-i` (with `--as` and
`--list`), `create role|clusterrole|rolebinding|clusterrolebinding`, their Table columns, impersonation in
`auth whoami`, and a denied `get pods` (fails without kubectl)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kubectl.conftest import Kubectl, Server, kubectl_binary, start_server, stop_server

TOKENS = 'admin-token,admin,1,"system:masters"\njane-token,jane,2,"team"\n'
FORBIDDEN = ('Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API '
             'group "" in the namespace "kube-system"\n')


@pytest.fixture(scope="module")
def rbac_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    kubectl_binary()
    directory = tmp_path_factory.mktemp("fakeapi")
    tokens = directory / "tokens.csv"
    tokens.write_text(TOKENS)  # the kubeconfig presents the first: the admin's
    # (kubectl sends tokens over https only)
    started = start_server(directory, "--simulate", "none", "--tls-self-signed", "--authorization-mode", "RBAC",
                           "--token-auth-file", str(tokens))
    yield started
    stop_server(started)


@pytest.fixture
def kubectl(rbac_server: Server, tmp_path: Path) -> Iterator[Kubectl]:
    runner = Kubectl(kubectl_binary(), rbac_server, tmp_path / "cache", tmp_path)
    yield runner
    runner.stop_background()


def rows(output: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in output.strip().splitlines()]


def test_the_server_says_which_authorization_mode_runs(rbac_server: Server) -> None:
    deadline = time.monotonic() + 10  # the line follows the one the fixture waits for
    while "authorization mode: RBAC\n" not in rbac_server.log and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "authorization mode: RBAC\n" in rbac_server.log


def test_can_i_answers_from_rbac(kubectl: Kubectl) -> None:
    assert kubectl.ok("auth", "can-i", "delete", "nodes") == "yes\n"  # the admin, in system:masters
    result = kubectl("auth", "can-i", "list", "secrets", "--as", "jane", "-n", "default")
    assert (result.rc, result.out) == (1, "no\n"), str(result)
    assert kubectl.ok("auth", "can-i", "create", "selfsubjectaccessreviews", "--as", "jane") == "yes\n"


def test_a_role_and_binding_made_with_kubectl_grant_what_they_say(kubectl: Kubectl) -> None:
    assert kubectl.ok("create", "role", "pod-reader", "--verb=get,list", "--resource=pods", "-n", "default") == \
        "role.rbac.authorization.k8s.io/pod-reader created\n"
    assert kubectl.ok("create", "rolebinding", "jane-reads", "--role=pod-reader", "--user=jane",
                      "-n", "default") == "rolebinding.rbac.authorization.k8s.io/jane-reads created\n"
    assert kubectl.ok("auth", "can-i", "list", "pods", "--as", "jane", "-n", "default") == "yes\n"
    assert kubectl.ok("get", "pods", "--token", "jane-token", "-n", "default") == ""
    denied = kubectl("get", "pods", "--token", "jane-token", "-n", "kube-system")
    assert (denied.rc, denied.err) == (1, FORBIDDEN), str(denied)
    listed = rows(kubectl.ok("auth", "can-i", "--list", "--as", "jane", "-n", "default"))
    assert listed[0] == ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"]
    assert ["pods", "[]", "[]", "[get list]"] in listed
    wide = rows(kubectl.ok("get", "rolebinding", "jane-reads", "-n", "default", "-o", "wide"))
    assert wide[0] == ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]
    assert wide[1][:2] == ["jane-reads", "Role/pod-reader"] and wide[1][3:] == ["jane"]


def test_cluster_roles_and_bindings_are_made_and_listed(kubectl: Kubectl) -> None:
    assert kubectl.ok("create", "clusterrole", "node-reader", "--verb=get", "--resource=nodes") == \
        "clusterrole.rbac.authorization.k8s.io/node-reader created\n"
    assert kubectl.ok("create", "clusterrolebinding", "team-reads-nodes", "--clusterrole=node-reader",
                      "--group=team") == "clusterrolebinding.rbac.authorization.k8s.io/team-reads-nodes created\n"
    assert kubectl.ok("auth", "can-i", "get", "nodes", "--as", "jane", "--as-group", "team") == "yes\n"
    roles = rows(kubectl.ok("get", "clusterrole", "node-reader"))
    assert roles[0] == ["NAME", "CREATED AT"] and roles[1][0] == "node-reader"
    bindings = rows(kubectl.ok("get", "clusterrolebinding", "cluster-admin", "-o", "wide"))
    assert bindings[1][:2] == ["cluster-admin", "ClusterRole/cluster-admin"]
    assert bindings[1][3:] == ["system:masters"]


def test_whoami_answers_the_impersonated_user(kubectl: Kubectl) -> None:
    assert rows(kubectl.ok("--as=jane", "--as-group=g", "auth", "whoami")) == [
        ["ATTRIBUTE", "VALUE"], ["Username", "jane"], ["Groups", "[g system:authenticated]"]]
    refused = kubectl("--token", "jane-token", "--as", "bob", "get", "--raw", "/api/v1/pods")
    assert refused.err == ('Error from server (Forbidden): users "bob" is forbidden: User "jane" cannot impersonate '
                           'resource "users" in API group "" at the cluster scope\n'), str(refused)
