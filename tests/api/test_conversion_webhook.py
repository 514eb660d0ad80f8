"""`conversion: Webhook`: another version than the storage one is served through the CRD's conversion webhook
(ConversionReview v1 over HTTPS, the certificate checked against the caBundle, a service reached at the address
the server is given), and a failing webhook gets upstream's `conversion webhook for ... failed: ...`."""

from __future__ import annotations

import base64
import copy
import ssl
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from fakeapi.pki import Authority
from tests.crds import CRDS, GROUP, crd, crontab

V1 = f"/apis/{GROUP}/v1/namespaces/default/crontabs"
V2 = f"/apis/{GROUP}/v2/namespaces/default/crontabs"


@dataclass
class Converter:
    """A conversion webhook: v1 `spec.cronSpec` is v2 `spec.schedule`; it records the reviews it gets."""

    url: str = ""
    port: int = 0
    ca_bundle: str = ""
    reviews: list[dict[str, Any]] = field(default_factory=list)
    answer: dict[str, Any] | None = None  # what to answer instead

    async def handle(self, request: web.Request) -> web.Response:
        review = await request.json()
        self.reviews.append(review)
        if self.answer is not None:
            answer = copy.deepcopy(self.answer)
            if answer["response"]["uid"] == "ECHO":
                answer["response"]["uid"] = review["request"]["uid"]
            return web.json_response(answer)
        wanted = review["request"]["desiredAPIVersion"]
        converted = []
        for obj in review["request"]["objects"]:
            obj = copy.deepcopy(obj)
            spec = obj.get("spec") or {}
            if wanted.endswith("/v2") and "cronSpec" in spec:
                spec["schedule"] = spec.pop("cronSpec")
            if wanted.endswith("/v1") and "schedule" in spec:
                spec["cronSpec"] = spec.pop("schedule")
            obj["apiVersion"] = wanted
            converted.append(obj)
        return web.json_response({"apiVersion": review["apiVersion"], "kind": "ConversionReview",
                                  "response": {"uid": review["request"]["uid"], "result": {"status": "Success"},
                                               "convertedObjects": converted}})


@pytest.fixture
async def converter() -> AsyncIterator[Converter]:
    authority = Authority.new("webhook")
    pair = authority.issue_server(["converter.default.svc", "127.0.0.1"])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as directory:
        certificate, key = Path(directory) / "tls.crt", Path(directory) / "tls.key"
        certificate.write_bytes(pair.certificate)
        key.write_bytes(pair.key)
        context.load_cert_chain(certificate, key)
    found = Converter(ca_bundle=base64.b64encode(authority.certificate).decode())
    app = web.Application()
    app.router.add_post("/convert", found.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    found.port = runner.addresses[0][1]
    found.url = f"https://127.0.0.1:{found.port}/convert"
    yield found
    await runner.cleanup()


@pytest.fixture
async def client(aiohttp_client: Any, converter: Converter) -> Any:
    config = ServerConfig(webhook_addresses={"converter.default.svc:443": f"127.0.0.1:{converter.port}"})
    return await aiohttp_client(create_app(config))


def two_versions(client_config: dict[str, Any]) -> dict[str, Any]:
    v1 = crd()["spec"]["versions"][0]
    v2 = copy.deepcopy(v1)
    v2.update(name="v2", storage=False)
    v2.pop("additionalPrinterColumns")
    v2.pop("selectableFields")
    v2["subresources"].pop("scale")
    spec = v2["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["schedule"] = spec["properties"].pop("cronSpec")
    return crd([v1, v2], conversion={"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"], "clientConfig": client_config}})


async def ok(response: Any, code: int = 200) -> dict[str, Any]:
    assert response.status == code, await response.text()
    body: dict[str, Any] = await response.json()
    return body


async def test_the_other_version_is_read_and_written_through_the_webhook(client: Any, converter: Converter) -> None:
    await ok(await client.post(CRDS, json=two_versions({"url": converter.url, "caBundle": converter.ca_bundle})), 201)
    await ok(await client.post(V1, json=crontab("a")), 201)
    seen = await ok(await client.get(f"{V2}/a"))
    assert seen["apiVersion"] == f"{GROUP}/v2" and seen["spec"]["schedule"] == "* * * * */5"
    review = converter.reviews[-1]
    assert review["apiVersion"] == "apiextensions.k8s.io/v1" and review["kind"] == "ConversionReview"
    assert review["request"]["desiredAPIVersion"] == f"{GROUP}/v2"
    assert [obj["apiVersion"] for obj in review["request"]["objects"]] == [f"{GROUP}/v1"]
    body = {"apiVersion": f"{GROUP}/v2", "kind": "CronTab", "metadata": {"name": "b"},
            "spec": {"schedule": "0 * * * *", "image": "cron:2"}}
    created = await ok(await client.post(V2, json=body), 201)
    assert created["spec"]["schedule"] == "0 * * * *"
    assert (await ok(await client.get(f"{V1}/b")))["spec"]["cronSpec"] == "0 * * * *"
    listed = await ok(await client.get(V2))
    assert [(item["apiVersion"], item["spec"]["schedule"]) for item in listed["items"]] == [
        (f"{GROUP}/v2", "* * * * */5"), (f"{GROUP}/v2", "0 * * * *")]
    assert len(converter.reviews[-1]["request"]["objects"]) == 2  # one call for the list
    patched = await ok(await client.patch(f"{V2}/b", json={"spec": {"schedule": "5 * * * *"}},
                                          headers={"Content-Type": "application/merge-patch+json"}))
    assert patched["spec"]["schedule"] == "5 * * * *"
    assert (await ok(await client.get(f"{V1}/b")))["spec"]["cronSpec"] == "5 * * * *"


async def test_a_service_is_reached_at_the_address_the_server_is_given(client: Any, converter: Converter) -> None:
    service = {"service": {"name": "converter", "namespace": "default", "path": "/convert"},
               "caBundle": converter.ca_bundle}
    await ok(await client.post(CRDS, json=two_versions(service)), 201)
    await ok(await client.post(V1, json=crontab("a")), 201)
    assert (await ok(await client.get(f"{V2}/a")))["spec"]["schedule"] == "* * * * */5"
    assert converter.reviews


@pytest.mark.parametrize(("config", "answer", "message"), [
    ({"url": "https://127.0.0.1:1/convert"}, None,
     'Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused'),
    ({"service": {"name": "missing", "namespace": "default"}}, None, 'service "missing" not found'),
    ({"url": "CONVERTER"}, None, "x509: certificate signed by unknown authority"),
    ({"url": "CONVERTER", "caBundle": "CA"}, {"kind": "ConversionReview", "apiVersion": "apiextensions.k8s.io/v1",
                                              "response": {"uid": "other", "result": {"status": "Success"}}},
     'expected response.uid='),
    ({"url": "CONVERTER", "caBundle": "CA"}, "FAILED", "no way"),
])
async def test_a_failing_webhook_gets_upstreams_error(client: Any, converter: Converter, config: dict[str, Any],
                                                      answer: Any, message: str) -> None:
    config = {key: (converter.url if value == "CONVERTER" else converter.ca_bundle if value == "CA" else value)
              for key, value in config.items()}
    await ok(await client.post(CRDS, json=two_versions(config)), 201)
    await ok(await client.post(V1, json=crontab("a")), 201)
    if answer == "FAILED":
        converter.answer = {"kind": "ConversionReview", "apiVersion": "apiextensions.k8s.io/v1",
                            "response": {"uid": "ECHO", "result": {"status": "Failure", "message": "no way"}}}
    elif answer is not None:
        converter.answer = answer
    status = await ok(await client.get(f"{V2}/a"), 500)
    assert status["reason"] == "InternalError"
    assert status["message"].startswith(
        f"Internal error occurred: conversion webhook for {GROUP}/v1, Kind=CronTab failed: "), status["message"]
    assert message in status["message"]
    assert (await ok(await client.get(f"{V1}/a")))["spec"]["cronSpec"] == "* * * * */5"
