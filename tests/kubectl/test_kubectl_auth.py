"""The real kubectl's auth commands, `apply -f` of a kind fakeapi does not serve (an Ingress), `get --raw` with pretty
output and `create -f` of a review (fails without kubectl)."""

from __future__ import annotations

import json
import re

from tests.kubectl.conftest import Kubectl

INGRESS = """apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  defaultBackend:
    service: {name: web, port: {number: 80}}
"""
NO_INGRESSES = (
    'error: resource mapping not found for name: "web" namespace: "" from "{path}": no matches for kind '
    '"Ingress" in version "networking.k8s.io/v1"\nensure CRDs are installed first\n'
)


def rows(output: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in output.strip().splitlines()]


def test_can_i_answers_yes(kubectl: Kubectl) -> None:
    assert kubectl.ok("auth", "can-i", "create", "pods") == "yes\n"
    assert kubectl.ok("auth", "can-i", "delete", "namespaces", "--all-namespaces") == "yes\n"
    assert kubectl.ok("auth", "can-i", "get", "/healthz") == "yes\n"


def test_can_i_list_prints_always_allows_rules(kubectl: Kubectl) -> None:
    assert rows(kubectl.ok("auth", "can-i", "--list")) == [
        ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"],
        ["*.*", "[]", "[]", "[*]"],
        ["[*]", "[]", "[*]"],
    ]


def test_whoami_is_the_anonymous_user(kubectl: Kubectl) -> None:
    assert rows(kubectl.ok("auth", "whoami")) == [
        ["ATTRIBUTE", "VALUE"],
        ["Username", "system:anonymous"],
        ["Groups", "[system:unauthenticated]"],
    ]
    review = json.loads(kubectl.ok("auth", "whoami", "-o", "json"))
    assert review["status"] == {"userInfo": {"username": "system:anonymous", "groups": ["system:unauthenticated"]}}


def test_apply_of_a_kind_not_served_prints_upstreams_mapping_error(kubectl: Kubectl) -> None:
    path = kubectl.write("ingress.yaml", INGRESS)
    for command in (["apply", "-f", path], ["create", "-f", path], ["apply", "--server-side", "-f", path]):
        result = kubectl(*command)
        assert (result.rc, result.out, result.err) == (1, "", NO_INGRESSES.format(path=path)), str(result)


def test_create_of_a_review_from_a_file_is_validated_on_the_server(kubectl: Kubectl) -> None:
    path = kubectl.write("review.yaml", (
        "apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\n"
        "spec:\n  resourceAttributes: {verb: list, resource: pods}\n"))
    review = json.loads(kubectl.ok("create", "-f", path, "-o", "json"))
    assert review["status"] == {"allowed": True}
    assert review["spec"] == {"resourceAttributes": {"verb": "list", "resource": "pods"}}


def test_get_raw_of_version_is_indented(kubectl: Kubectl) -> None:
    assert kubectl.ok("get", "--raw", "/version").startswith('{\n  "major": "1",\n')
    assert kubectl.ok("get", "--raw", "/readyz?verbose").endswith("readyz check passed\n")
