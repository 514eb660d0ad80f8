"""The access and identity reviews over HTTP: what kubectl's `auth can-i`, `auth can-i --list` and
`auth whoami` send (protobuf), what the python clients send (JSON), and upstream's answers and errors.

Expected bodies: upstream's REST storage (pkg/registry/authorization/selfsubjectaccessreview,
.../selfsubjectrulesreview, pkg/registry/authentication/selfsubjectreview) with the AlwaysAllow
authorizer and an anonymous caller; managedFields as a v1.2x cluster answers `kubectl auth can-i -v=8`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.http.keys import api_key
from tests.unit.test_protobuf import envelope, integer, message, string

AUTHZ = "/apis/authorization.k8s.io/v1"
SSAR = AUTHZ + "/selfsubjectaccessreviews"
NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
STAMP = "2025-03-01T12:00:00Z"
# Captured from kubectl v1.32.4 against fakeapi's request log: `auth can-i create pods`, `auth can-i --list`,
# `auth whoami`.
KUBECTL_CAN_I_CREATE_PODS = bytes.fromhex(
    "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a65637441636365737352657669"
    "6577123f0a100a0012001a0022002a0032003800420012210a1f0a0764656661756c7412066372656174651a0022002a04706f6473"
    "32003a001a08080012001a0020001a002200"
)
KUBECTL_CAN_I_LIST = bytes.fromhex(
    "6b3873000a310a17617574686f72697a6174696f6e2e6b38732e696f2f7631121653656c665375626a65637452756c6573526576696577"
    "12230a100a0012001a0022002a0032003800420012090a0764656661756c741a04180022001a002200"
)
KUBECTL_WHOAMI = bytes.fromhex(
    "6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a10"
    "0a0012001a0022002a0032003800420012060a040a0012001a002200"
)
KUBECTL = {
    "Content-Type": "application/vnd.kubernetes.protobuf",
    "Accept": "application/vnd.kubernetes.protobuf,application/json",
    "User-Agent": "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd",
}


@pytest.fixture
def frozen(client: Any) -> Any:
    client.app[api_key].clock.freeze(NOW)
    return client


def empty_meta() -> bytes:
    """An empty ObjectMeta as gogo writes it: every string and the generation, and an empty timestamp."""
    return b"".join(string(number, "") for number in range(1, 7)) + integer(7, 0) + message(8, b"")


def empty_status() -> bytes:
    return integer(1, 0) + string(2, "") + string(3, "") + integer(4, 0)


def kubectl_ssar(spec: bytes) -> bytes:
    raw = message(1, empty_meta()) + message(2, spec) + message(3, empty_status())
    return envelope(raw, "SelfSubjectAccessReview", "authorization.k8s.io/v1")


def whoami_body() -> bytes:
    raw = message(1, empty_meta()) + message(2, message(1, string(1, "") + string(2, "")))
    return envelope(raw, "SelfSubjectReview", "authentication.k8s.io/v1")


def resource_attributes(namespace: str, verb: str, resource: str) -> bytes:
    return message(1, string(1, namespace) + string(2, verb) + string(3, "") + string(4, "") + string(5, resource)
                   + string(6, "") + string(7, ""))


def compact(body: dict[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"))


def test_the_hand_built_bodies_are_what_kubectl_sends() -> None:
    assert kubectl_ssar(resource_attributes("default", "create", "pods")) == KUBECTL_CAN_I_CREATE_PODS
    assert whoami_body() == KUBECTL_WHOAMI


async def test_kubectl_can_i_is_allowed_and_answers_the_review_with_its_managed_fields(frozen: Any) -> None:
    response = await frozen.post(SSAR, data=KUBECTL_CAN_I_CREATE_PODS, headers=KUBECTL)
    assert response.status == 201
    assert response.headers["Content-Type"] == "application/json"  # kubectl reads a JSON answer too
    assert await response.text() == compact({
        "kind": "SelfSubjectAccessReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": {
            "creationTimestamp": None,
            "managedFields": [{
                "manager": "kubectl", "operation": "Update", "apiVersion": "authorization.k8s.io/v1", "time": STAMP,
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:resourceAttributes": {".": {}, "f:namespace": {}, "f:resource": {},
                                                                 "f:verb": {}}}},
            }],
        },
        "spec": {"resourceAttributes": {"namespace": "default", "verb": "create", "resource": "pods"}},
        "status": {"allowed": True},
    })


async def test_a_non_resource_review_is_allowed(frozen: Any) -> None:
    # `kubectl auth can-i get /healthz`
    spec = message(2, string(1, "/healthz") + string(2, "get"))
    response = await frozen.post(SSAR, data=kubectl_ssar(spec), headers=KUBECTL)
    assert response.status == 201
    answer = await response.json()
    assert answer["spec"] == {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}}
    assert answer["status"] == {"allowed": True}


async def test_the_python_clients_json_body_gets_the_same_answer(frozen: Any) -> None:
    # AuthorizationV1Api().create_self_subject_access_review(...) sends no apiVersion or kind
    body = {"spec": {"resourceAttributes": {"namespace": "default", "resource": "pods", "verb": "create"}}}
    response = await frozen.post(SSAR, json=body, headers={"User-Agent": "OpenAPI-Generator/31.0.0/python"})
    assert response.status == 201
    answer = await response.json()
    assert answer["metadata"]["managedFields"][0]["manager"] == "OpenAPI-Generator"
    assert answer["spec"] == {"resourceAttributes": {"namespace": "default", "verb": "create", "resource": "pods"}}
    assert answer["status"] == {"allowed": True}


def invalid(message_text: str, causes: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": '.authorization.k8s.io "" is invalid: ' + message_text, "reason": "Invalid",
        "details": {"group": "authorization.k8s.io",
                    "causes": [{"reason": "FieldValueInvalid", "message": text, "field": field}
                               for field, text in causes]},
        "code": 422,
    }


@pytest.mark.parametrize(
    ("spec", "message_text", "causes"),
    [
        pytest.param(
            {},
            'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or '
            "resourceAttributes must be specified",
            [("spec.resourceAttributes", 'Invalid value: "null": exactly one of nonResourceAttributes or '
              "resourceAttributes must be specified")],
            id="neither",
        ),
        pytest.param(
            {"resourceAttributes": {"verb": "get"}, "nonResourceAttributes": {"path": "/x", "verb": "get"}},
            'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", '
            'Verb:"get"}: cannot be specified in combination with resourceAttributes',
            [("spec.nonResourceAttributes", 'Invalid value: authorization.NonResourceAttributes{Path:"/x", '
              'Verb:"get"}: cannot be specified in combination with resourceAttributes')],
            id="both",
        ),
    ],
)
async def test_attributes_must_be_exactly_one_kind(
    client: Any, spec: dict[str, Any], message_text: str, causes: list[tuple[str, str]]
) -> None:
    response = await client.post(SSAR, json={"spec": spec})
    assert response.status == 422
    assert await response.json() == invalid(message_text, causes)


async def test_a_review_with_metadata_is_invalid(client: Any) -> None:
    body = {"metadata": {"name": "mine"}, "spec": {"resourceAttributes": {"verb": "get"}}}
    response = await client.post(SSAR, json=body)
    assert response.status == 422
    value = (
        'v1.ObjectMeta{Name:"mine", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", '
        "Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), "
        "DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string(nil), "
        "Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), "
        "ManagedFields:[]v1.ManagedFieldsEntry(nil)}"
    )
    assert (await response.json())["message"] == (
        f'.authorization.k8s.io "" is invalid: metadata: Invalid value: {value}: must be empty')


async def test_a_selector_needs_a_raw_selector_or_requirements(client: Any) -> None:
    body = {"spec": {"resourceAttributes": {"verb": "list", "resource": "pods", "labelSelector": {}}}}
    response = await client.post(SSAR, json=body)
    assert response.status == 422
    assert (await response.json())["message"] == (
        '.authorization.k8s.io "" is invalid: spec.resourceAttributes.labelSelector.requirements: Required value: '
        "when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required")


async def test_a_subject_access_review_names_a_user_or_groups(frozen: Any) -> None:
    attributes = {"namespace": "default", "verb": "delete", "resource": "pods"}
    missing = await frozen.post(AUTHZ + "/subjectaccessreviews", json={"spec": {"resourceAttributes": attributes}})
    assert missing.status == 422
    assert (await missing.json())["message"] == (
        '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must '
        "be specified")
    body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
            "spec": {"resourceAttributes": attributes, "user": "jane", "groups": ["dev"]}}
    allowed = await frozen.post(AUTHZ + "/subjectaccessreviews", json=body, headers={"User-Agent": ""})
    assert allowed.status == 201
    assert await allowed.json() == {
        "kind": "SubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
        "metadata": {"creationTimestamp": None, "managedFields": [{
            "operation": "Update", "apiVersion": "authorization.k8s.io/v1", "time": STAMP, "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:groups": {}, "f:resourceAttributes": {
                ".": {}, "f:namespace": {}, "f:resource": {}, "f:verb": {}}, "f:user": {}}},
        }]},
        "spec": {"resourceAttributes": attributes, "user": "jane", "groups": ["dev"]},
        "status": {"allowed": True},
    }


async def test_kubectl_can_i_list_gets_always_allows_rules(client: Any) -> None:
    # spec.namespace "default"
    response = await client.post(AUTHZ + "/selfsubjectrulesreviews", data=KUBECTL_CAN_I_LIST, headers=KUBECTL)
    assert response.status == 201
    # a new object: the request's spec is not echoed, and nothing is owned
    assert await response.text() == compact({
        "kind": "SelfSubjectRulesReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": {"creationTimestamp": None},
        "spec": {},
        "status": {
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            "incomplete": False,
        },
    })


async def test_a_rules_review_without_a_namespace_is_a_bad_request(client: Any) -> None:
    response = await client.post(AUTHZ + "/selfsubjectrulesreviews", json={"spec": {}})
    assert response.status == 400
    assert (await response.json())["message"] == "no namespace on request"


@pytest.mark.parametrize("protobuf", [True, False], ids=["kubectl", "json"])
async def test_whoami_is_the_anonymous_user(frozen: Any, protobuf: bool) -> None:
    path = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
    if protobuf:
        response = await frozen.post(path, data=KUBECTL_WHOAMI, headers=KUBECTL)
    else:
        response = await frozen.post(path, json={})  # AuthenticationV1Api().create_self_subject_review
    assert response.status == 201
    assert await response.text() == compact({
        "kind": "SelfSubjectReview",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"creationTimestamp": STAMP},
        "status": {"userInfo": {"username": "system:anonymous", "groups": ["system:unauthenticated"]}},
    })


async def test_reviews_are_create_only_cluster_scoped_and_never_stored(client: Any) -> None:
    assert (await client.get(SSAR)).status == 405
    namespaced = await client.post(AUTHZ + "/namespaces/default/selfsubjectaccessreviews", json={})
    assert namespaced.status == 404
    before = (await (await client.get("/api/v1/namespaces")).json())["metadata"]["resourceVersion"]
    body = {"spec": {"resourceAttributes": {"verb": "get"}}}
    assert (await client.post(SSAR, json=body, params={"dryRun": "All"})).status == 201
    assert (await client.post(SSAR, json=body)).status == 201
    after = (await (await client.get("/api/v1/namespaces")).json())["metadata"]["resourceVersion"]
    assert after == before


async def test_the_body_is_decoded_as_any_create_body(client: Any) -> None:
    wrong_kind = await client.post(SSAR, json={"kind": "SubjectAccessReview", "spec": {}})
    assert (wrong_kind.status, (await wrong_kind.json())["message"]) == (
        400, "the kind in the data (SubjectAccessReview) does not match the expected kind (SelfSubjectAccessReview)")
    strict = await client.post(SSAR, json={"spec": {"resourceAttributes": {"verb": "get", "colour": "red"}}},
                               params={"fieldValidation": "Strict"})
    assert (strict.status, (await strict.json())["message"]) == (
        400, 'SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: strict '
             'decoding error: unknown field "spec.resourceAttributes.colour"')
    warned = await client.post(SSAR, json={"spec": {"resourceAttributes": {"verb": "get", "colour": "red"}}})
    assert warned.status == 201
    assert warned.headers["Warning"] == '299 - "unknown field \\"spec.resourceAttributes.colour\\""'
    wrong_type = await client.post(SSAR, json={"spec": {"resourceAttributes": {"verb": 3}}})
    assert wrong_type.status == 400
