"""FakeAPIServer.on_webhook: a Python function served as an admission webhook, over HTTPS with a CA the
server trusts, by URL or by service, in thread mode and on the caller's loop."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from fakeapi.testing import FakeAPIServer

GROUP = "admissionregistration.k8s.io"


def configuration(kind: str, client_config: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": "hooks"}, "webhooks": [{
        "name": "test.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "clientConfig": client_config,
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
    }]}


def no_secrets(request: dict[str, Any]) -> dict[str, Any]:
    if "password" in (request["object"].get("data") or {}):
        return {"allowed": False, "status": {"message": "no passwords in config maps"}}
    return {"allowed": True, "warnings": ["checked"]}


def test_a_function_denies_through_a_service(fakeapi: FakeAPIServer) -> None:
    webhook = fakeapi.on_webhook(no_secrets, service="default/checker", path="/check")
    assert webhook.client_config == {"service": {"namespace": "default", "name": "checker", "path": "/check",
                                                 "port": 443}}
    admission = client.AdmissionregistrationV1Api(fakeapi.kubernetes_client())
    admission.create_validating_webhook_configuration(
        configuration("ValidatingWebhookConfiguration", webhook.client_config))
    core = client.CoreV1Api(fakeapi.kubernetes_client())
    with pytest.raises(ApiException) as raised:
        core.create_namespaced_config_map("default", {"metadata": {"name": "a"}, "data": {"password": "x"}})
    assert raised.value.status == 400
    assert '"admission webhook \\"test.example.com\\" denied the request: no passwords in config maps"' \
        in raised.value.body
    core.create_namespaced_config_map("default", {"metadata": {"name": "b"}, "data": {"user": "x"}})
    assert [request["name"] for request in webhook.requests] == ["a", "b"]


async def test_a_function_mutates_by_url_on_the_callers_loop() -> None:
    from kubernetes_asyncio import client as async_client

    def label(request: dict[str, Any]) -> dict[str, Any]:
        return {"allowed": True, "patch": [{"op": "add", "path": "/metadata/labels", "value": {"seen": "yes"}}]}

    async with FakeAPIServer() as server:
        webhook = server.on_webhook(label)
        assert webhook.client_config["url"].startswith("https://127.0.0.1:")
        async with server.kubernetes_asyncio_client() as api_client:
            await async_client.AdmissionregistrationV1Api(api_client).create_mutating_webhook_configuration(
                configuration("MutatingWebhookConfiguration", webhook.client_config))
            created = await async_client.CoreV1Api(api_client).create_namespaced_config_map(
                "default", {"metadata": {"name": "a"}})
        assert created.metadata.labels == {"seen": "yes"}
