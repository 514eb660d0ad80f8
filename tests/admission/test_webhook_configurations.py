"""MutatingWebhookConfiguration and ValidatingWebhookConfiguration as kinds: upstream's v1 defaults, validation
messages and paths, Table columns, discovery."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client

from fakeapi.testing import FakeAPIServer
from tests.admission.rest import call

GROUP = "admissionregistration.k8s.io"


def webhook(**overrides: Any) -> dict[str, Any]:
    hook: dict[str, Any] = {
        "name": "deny.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "clientConfig": {"service": {"name": "hook", "namespace": "default", "path": "/validate"}},
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]}
    hook.update(overrides)
    return hook


def configuration(kind: str, *hooks: dict[str, Any], name: str = "policy") -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": name}, "webhooks": list(hooks)}


def api(fakeapi: FakeAPIServer) -> Any:
    return client.AdmissionregistrationV1Api(fakeapi.kubernetes_client())


def test_webhooks_get_upstream_defaults(fakeapi: FakeAPIServer) -> None:
    created = api(fakeapi).create_mutating_webhook_configuration(
        configuration("MutatingWebhookConfiguration", webhook()))
    hook = created.webhooks[0]
    assert (hook.failure_policy, hook.match_policy, hook.timeout_seconds, hook.reinvocation_policy) == (
        "Fail", "Equivalent", 10, "Never")
    assert hook.namespace_selector.to_dict() == {"match_expressions": None, "match_labels": None}
    assert hook.rules[0].scope == "*" and hook.client_config.service.port == 443
    assert created.metadata.generation == 1


def test_a_validating_configuration_has_no_reinvocation_policy(fakeapi: FakeAPIServer) -> None:
    created = api(fakeapi).create_validating_webhook_configuration(
        configuration("ValidatingWebhookConfiguration", webhook()))
    assert created.to_dict()["webhooks"][0].get("reinvocation_policy") is None


def invalid(fakeapi: FakeAPIServer, body: dict[str, Any]) -> str:
    status, answer, _ = call(fakeapi, "POST", f"/apis/{GROUP}/v1/validatingwebhookconfigurations", body)
    assert status == 422, answer
    assert api(fakeapi).list_validating_webhook_configuration().items == []
    message: str = answer["message"]
    return message


@pytest.mark.parametrize(("hook", "expected"), [
    (webhook(name="deny"), 'webhooks[0].name: Invalid value: "deny": should be a domain with at least three '
                           "segments separated by dots"),
    (webhook(sideEffects=None), "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"),
    (webhook(sideEffects="Some"), 'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", '
                                  '"NoneOnDryRun"'),
    (webhook(admissionReviewVersions=[]), "webhooks[0].admissionReviewVersions: Required value: must specify one of "
                                          "v1, v1beta1"),
    (webhook(admissionReviewVersions=["v2"]), 'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must '
                                              "include at least one of v1, v1beta1"),
    (webhook(timeoutSeconds=31), "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between "
                                 "1 and 30 seconds"),
    (webhook(clientConfig={}), "webhooks[0].clientConfig: Required value: exactly one of url or service is required"),
    (webhook(clientConfig={"url": "http://example.com/x"}),
     'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired '
     "format: https://host[/path]"),
    (webhook(clientConfig={"url": "https://example.com/x?a=b"}),
     'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL'),
    (webhook(clientConfig={"service": {"name": "s", "namespace": "n", "port": 70000}}),
     "webhooks[0].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, "
     "inclusive"),
    (webhook(rules=[{"operations": ["CREATE", "*"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]),
     'webhooks[0].rules[0].operations: Invalid value: ["CREATE","*"]: if \'*\' is present, must not specify other '
     "operations"),
    (webhook(rules=[{"operations": ["PATCH"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]),
     'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", '
     '"DELETE", "UPDATE"'),
    (webhook(rules=[{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": []}]),
     "webhooks[0].rules[0].resources: Required value"),
    (webhook(failurePolicy="Sometimes"),
     'webhooks[0].failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"'),
    (webhook(matchConditions=[{"name": "c", "expression": "object.x +"}]),
     'webhooks[0].matchConditions[0].expression: Invalid value: "object.x +": compilation failed: ERROR: '
     "<input>:1:11: Syntax error: mismatched input '<EOF>'"),
])
def test_invalid_webhooks_get_upstream_messages(fakeapi: FakeAPIServer, hook: dict[str, Any], expected: str) -> None:
    body = configuration("ValidatingWebhookConfiguration", {k: v for k, v in hook.items() if v is not None})
    message = invalid(fakeapi, body)
    assert message.startswith(f'ValidatingWebhookConfiguration.admissionregistration.k8s.io "policy" is invalid: '
                              f"{expected}"), message


def test_webhook_names_must_be_unique(fakeapi: FakeAPIServer) -> None:
    message = invalid(fakeapi, configuration("ValidatingWebhookConfiguration", webhook(), webhook()))
    assert message.endswith('webhooks[1].name: Duplicate value: "deny.example.com"'), message


def test_a_table_lists_name_webhooks_and_age(fakeapi: FakeAPIServer) -> None:
    api(fakeapi).create_validating_webhook_configuration(
        configuration("ValidatingWebhookConfiguration", webhook(), webhook(name="other.example.com")))
    _, table, _ = call(fakeapi, "GET", f"/apis/{GROUP}/v1/validatingwebhookconfigurations",
                       headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert [column["name"] for column in table["columnDefinitions"]] == ["Name", "Webhooks", "Age"]
    assert table["rows"][0]["cells"][:2] == ["policy", 2]


def test_discovery_lists_both_kinds(fakeapi: FakeAPIServer) -> None:
    resources = client.ApisApi(fakeapi.kubernetes_client()).get_api_versions()
    assert GROUP in [group.name for group in resources.groups]
    listed = api(fakeapi).get_api_resources()
    assert {(r.name, r.kind, r.namespaced) for r in listed.resources} >= {
        ("mutatingwebhookconfigurations", "MutatingWebhookConfiguration", False),
        ("validatingwebhookconfigurations", "ValidatingWebhookConfiguration", False)}
