"""ValidatingAdmissionPolicy and its bindings: kinds with upstream's defaults and validation, and the policies'
CEL run on writes (params, variables, match conditions and constraints, messages, reasons, Deny/Warn)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from fakeapi.testing import FakeAPIServer
from tests.admission.rest import call

GROUP = "admissionregistration.k8s.io"
POLICIES = f"/apis/{GROUP}/v1/validatingadmissionpolicies"
BINDINGS = f"/apis/{GROUP}/v1/validatingadmissionpolicybindings"


def deployment_rules() -> dict[str, Any]:
    return {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                               "resources": ["deployments"]}]}


def policy(name: str = "replicas", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"matchConstraints": deployment_rules(),
                            "validations": [{"expression": "object.spec.replicas <= 5"}]}
    body.update(spec)
    return {"apiVersion": f"{GROUP}/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
            "spec": body}


def binding(name: str = "replicas-binding", policy_name: str = "replicas", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"policyName": policy_name, "validationActions": ["Deny"]}
    body.update(spec)
    return {"apiVersion": f"{GROUP}/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
            "spec": body}


def create(fakeapi: FakeAPIServer, path: str, body: dict[str, Any]) -> dict[str, Any]:
    status, answer, _ = call(fakeapi, "POST", path, body)
    assert status == 201, answer
    result: dict[str, Any] = answer
    return result


def deployment(name: str, replicas: int, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "labels": labels or {"a": "b"}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def apps(fakeapi: FakeAPIServer) -> Any:
    return client.AppsV1Api(fakeapi.kubernetes_client())


def refused(fakeapi: FakeAPIServer, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    with pytest.raises(ApiException) as raised:
        apps(fakeapi).create_namespaced_deployment("default", body)
    return raised.value.status, json.loads(raised.value.body)


def test_a_policy_gets_defaults_a_generation_and_its_status(fakeapi: FakeAPIServer) -> None:
    created = create(fakeapi, POLICIES, policy())
    assert created["spec"]["failurePolicy"] == "Fail"
    assert created["spec"]["matchConstraints"]["matchPolicy"] == "Equivalent"
    assert created["spec"]["matchConstraints"]["namespaceSelector"] == {}
    assert created["spec"]["matchConstraints"]["resourceRules"][0]["scope"] == "*"
    assert created["metadata"]["generation"] == 1 and "status" not in created
    _, stored, _ = call(fakeapi, "GET", f"{POLICIES}/replicas")
    assert stored["status"] == {"observedGeneration": 1, "typeChecking": {}}
    stored["spec"]["validations"][0]["expression"] = "object.spec.replicas <= 6"
    _, updated, _ = call(fakeapi, "PUT", f"{POLICIES}/replicas", stored)
    assert updated["metadata"]["generation"] == 2 and updated["status"]["observedGeneration"] == 1
    _, stored, _ = call(fakeapi, "GET", f"{POLICIES}/replicas")
    assert stored["status"] == {"observedGeneration": 2, "typeChecking": {}}


@pytest.mark.parametrize(("body", "expected"), [
    (policy(validations=[]), "spec.validations: Required value: validations or auditAnnotations must contain at "
                             "least one item"),
    (policy(validations=[{"expression": "object.spec.replicas <"}]),
     'spec.validations[0].expression: Invalid value: "object.spec.replicas <": compilation failed: ERROR: '),
    (policy(validations=[{"expression": "1 + 1"}]),
     'spec.validations[0].expression: Invalid value: "1 + 1": must evaluate to bool'),
    (policy(validations=[{"expression": "true", "reason": "Teapot"}]),
     'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", '
     '"RequestEntityTooLarge", "Unauthorized"'),
    (policy(matchConstraints={}), "spec.matchConstraints.resourceRules: Required value"),
    (policy(variables=[{"name": "not valid", "expression": "1"}]),
     'spec.variables[0].name: Invalid value: "not valid": name is not a valid CEL identifier'),
    (policy(paramKind={"apiVersion": "v1"}), "spec.paramKind.kind: Required value"),
])
def test_invalid_policies_get_upstream_messages(fakeapi: FakeAPIServer, body: dict[str, Any], expected: str) -> None:
    status, answer, _ = call(fakeapi, "POST", POLICIES, body)
    assert status == 422
    prefix = 'ValidatingAdmissionPolicy.admissionregistration.k8s.io "replicas" is invalid: '
    assert answer["message"].startswith(prefix) and expected in answer["message"], answer["message"]


@pytest.mark.parametrize(("spec", "expected"), [
    ({"validationActions": []}, "spec.validationActions: Required value: at least one validation action is required"),
    ({"validationActions": ["Deny", "Warn"]},
     'spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the '
     "same validation failure information in the API response and headers serves no purpose)"),
    ({"paramRef": {"name": "p"}}, "spec.paramRef.parameterNotFoundAction: Required value"),
    ({"paramRef": {"parameterNotFoundAction": "Deny"}},
     "spec.paramRef: Required value: one of name or selector must be specified"),
])
def test_invalid_bindings_get_upstream_messages(fakeapi: FakeAPIServer, spec: dict[str, Any], expected: str) -> None:
    status, answer, _ = call(fakeapi, "POST", BINDINGS, binding(**spec))
    assert status == 422
    assert answer["message"] == \
        f'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "replicas-binding" is invalid: {expected}'


def test_a_policy_denies_with_upstreams_message_and_code(fakeapi: FakeAPIServer) -> None:
    create(fakeapi, POLICIES, policy())
    create(fakeapi, BINDINGS, binding())
    status, body = refused(fakeapi, deployment("big", 6))
    message = "ValidatingAdmissionPolicy 'replicas' with binding 'replicas-binding' denied request: failed " \
              "expression: object.spec.replicas <= 5"
    assert status == 422
    assert body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": f'deployments.apps "big" is forbidden: {message}', "reason": "Invalid",
                    "details": {"name": "big", "group": "apps", "kind": "deployments",
                                "causes": [{"message": message}]}, "code": 422}
    apps(fakeapi).create_namespaced_deployment("default", deployment("small", 2))
    assert [d.metadata.name for d in apps(fakeapi).list_namespaced_deployment("default").items] == ["small"]


def test_params_variables_messages_and_reasons(fakeapi: FakeAPIServer) -> None:
    core = client.CoreV1Api(fakeapi.kubernetes_client())
    core.create_namespaced_config_map("default", {"metadata": {"name": "limits"}, "data": {"max": "3"}})
    create(fakeapi, POLICIES, policy(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        variables=[{"name": "most", "expression": "int(params.data.max)"}],
        validations=[{"expression": "object.spec.replicas <= variables.most", "reason": "Forbidden",
                      "messageExpression": "'at most ' + string(variables.most) + ' replicas, not ' + "
                                           "string(object.spec.replicas)"}]))
    create(fakeapi, BINDINGS, binding(paramRef={"name": "limits", "parameterNotFoundAction": "Deny"}))
    status, body = refused(fakeapi, deployment("four", 4))
    assert status == 403 and body["reason"] == "Forbidden"
    assert body["message"].endswith("denied request: at most 3 replicas, not 4")
    apps(fakeapi).create_namespaced_deployment("default", deployment("three", 3))
    core.create_namespace({"metadata": {"name": "elsewhere"}})
    with pytest.raises(ApiException) as raised:
        apps(fakeapi).create_namespaced_deployment("elsewhere", deployment("one", 1))
    assert json.loads(raised.value.body)["message"].endswith(
        "denied request: no params found for policy binding with `Deny` parameterNotFoundAction")


def test_warn_and_match_conditions(fakeapi: FakeAPIServer) -> None:
    create(fakeapi, POLICIES, policy(matchConditions=[{"name": "labelled", "expression":
                                                       "has(object.metadata.labels) && 'checked' in "
                                                       "object.metadata.labels"}],
                                     validations=[{"expression": "object.spec.replicas <= 5",
                                                   "message": "too many replicas"}]))
    create(fakeapi, BINDINGS, binding(validationActions=["Warn"]))
    status, _, headers = call(fakeapi, "POST", "/apis/apps/v1/namespaces/default/deployments",
                              deployment("a", 9, checked="yes"))
    assert status == 201
    assert headers["Warning"] == ('299 - "Validation failed for ValidatingAdmissionPolicy \'replicas\' with binding '
                                  '\'replicas-binding\': too many replicas"')
    status, _, headers = call(fakeapi, "POST", "/apis/apps/v1/namespaces/default/deployments", deployment("b", 9))
    assert status == 201 and "Warning" not in headers


def test_the_servers_own_writes_are_checked_too(fakeapi: FakeAPIServer) -> None:
    pods = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                               "resources": ["configmaps"]}]}
    create(fakeapi, POLICIES, policy(matchConstraints=pods, validations=[{"expression": "request.userInfo.username"
                                                                                        " != 'system:apiserver'"}]))
    create(fakeapi, BINDINGS, binding())
    status, _, _ = call(fakeapi, "POST", "/api/v1/namespaces", {"metadata": {"name": "team"}})
    assert status == 201
    assert fakeapi.list("configmaps", namespace="team") == []  # the root CA publisher was refused


def test_failure_policy_decides_what_an_evaluation_error_does(fakeapi: FakeAPIServer) -> None:
    create(fakeapi, POLICIES, policy(validations=[{"expression": "object.metadata.labels['missing'] == 'x'"}]))
    create(fakeapi, BINDINGS, binding())
    status, body = refused(fakeapi, deployment("a", 1))
    assert status == 422
    assert body["message"].endswith("denied request: expression 'object.metadata.labels['missing'] == 'x'' "
                                    "resulted in error: no such key: missing")
    status, current, _ = call(fakeapi, "GET", f"{POLICIES}/replicas")
    current["spec"]["failurePolicy"] = "Ignore"
    assert call(fakeapi, "PUT", f"{POLICIES}/replicas", current)[0] == 200
    apps(fakeapi).create_namespaced_deployment("default", deployment("a", 1))


def test_selectors_exclusions_and_the_namespace_object(fakeapi: FakeAPIServer) -> None:
    core = client.CoreV1Api(fakeapi.kubernetes_client())
    core.create_namespace({"metadata": {"name": "strict", "labels": {"tier": "strict"}}})
    for name, limit in (("small", "2"), ("large", "8")):
        core.create_namespaced_config_map("strict", {"metadata": {"name": name, "labels": {"limit": "yes"}},
                                                     "data": {"max": limit}})
    rules = deployment_rules()
    rules["excludeResourceRules"] = [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                                      "resources": ["deployments"], "resourceNames": ["exempt"]}]
    create(fakeapi, POLICIES, policy(
        matchConstraints=rules, paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{"expression": "object.spec.replicas <= int(params.data.max)",
                      "messageExpression": "namespaceObject.metadata.name + ' allows ' + params.data.max"}]))
    create(fakeapi, BINDINGS, binding(
        paramRef={"selector": {"matchLabels": {"limit": "yes"}}, "parameterNotFoundAction": "Allow"},
        matchResources={"namespaceSelector": {"matchLabels": {"tier": "strict"}}}))
    with pytest.raises(ApiException) as raised:
        apps(fakeapi).create_namespaced_deployment("strict", deployment("three", 3))
    assert json.loads(raised.value.body)["message"].endswith("denied request: strict allows 2")
    apps(fakeapi).create_namespaced_deployment("strict", deployment("exempt", 3))  # excluded by name
    apps(fakeapi).create_namespaced_deployment("default", deployment("three", 3))  # namespace not selected
    apps(fakeapi).create_namespaced_deployment("strict", deployment("two", 2))  # every param allows it


def test_a_namespace_whose_content_a_policy_keeps_stays_terminating(fakeapi: FakeAPIServer) -> None:
    core = client.CoreV1Api(fakeapi.kubernetes_client())
    core.create_namespace({"metadata": {"name": "team"}})
    core.create_namespaced_config_map("team", {"metadata": {"name": "keep"}})
    deletes = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["DELETE"],
                                  "resources": ["configmaps"]}]}
    create(fakeapi, POLICIES, policy(matchConstraints=deletes,
                                     validations=[{"expression": "oldObject.metadata.name != 'keep'"}]))
    create(fakeapi, BINDINGS, binding())
    core.delete_namespace("team")
    assert core.read_namespace("team").status.phase == "Terminating"
    assert [item.metadata.name for item in core.list_namespaced_config_map("team").items] == ["keep"]
    call(fakeapi, "DELETE", f"{BINDINGS}/replicas-binding")
    core.patch_namespaced_config_map("keep", "team", {"metadata": {"labels": {"go": "now"}}})  # (a change: again)
    with pytest.raises(ApiException) as raised:
        core.read_namespace("team")
    assert raised.value.status == 404
