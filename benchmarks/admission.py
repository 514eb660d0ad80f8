"""Creates per second through admission, as a user would measure it: with nothing configured, through one
validating webhook on loopback (HTTPS, a CA of its own, answering allowed), and through one
ValidatingAdmissionPolicy with 3 rules, in the same run.

    python benchmarks/admission.py [--creates 2000] [--seconds 10]

Starts `python -m fakeapi serve --simulate none` on 127.0.0.1 with the webhook's service address, and the
webhook (aiohttp) in this process. Each phase creates ConfigMaps over 16 connections, bounded by a count and a
deadline; the server is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from aiohttp import web
from api_bench import CONNECTIONS, phase
from serverproc import HOST, free_port, stop, wait_ready

from fakeapi.pki import Authority

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
CONFIGMAPS = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]


async def webhook(request: web.Request) -> web.Response:
    review = await request.json()
    return web.json_response({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                              "response": {"uid": review["request"]["uid"], "allowed": True}})


async def start_webhook(authority: Authority) -> tuple[web.AppRunner, int]:
    pair = authority.issue_server(["bench.default.svc", HOST])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as directory:
        certificate, key = Path(directory) / "tls.crt", Path(directory) / "tls.key"
        certificate.write_bytes(pair.certificate)
        key.write_bytes(pair.key)
        context.load_cert_chain(certificate, key)
    app = web.Application()
    app.router.add_post("/validate", webhook)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, HOST, 0, ssl_context=context)
    await site.start()
    return runner, runner.addresses[0][1]


def webhook_configuration(ca_bundle: str) -> dict[str, Any]:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "bench"}, "webhooks": [{
                "name": "bench.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                "clientConfig": {"service": {"name": "bench", "namespace": "default", "path": "/validate"},
                                 "caBundle": ca_bundle}, "rules": CONFIGMAPS}]}


POLICY = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
          "metadata": {"name": "bench"}, "spec": {"matchConstraints": {"resourceRules": CONFIGMAPS}, "validations": [
              {"expression": "object.metadata.name.startsWith('bench-')"},
              {"expression": "!has(object.data) || size(object.data) <= 10"},
              {"expression": "!has(object.metadata.labels) || object.metadata.labels.all(k, k.size() < 64)"}]}}
BINDING = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
           "metadata": {"name": "bench"}, "spec": {"policyName": "bench", "validationActions": ["Deny"]}}


async def run(args: argparse.Namespace) -> None:
    authority = Authority.new("bench-webhook")
    runner, hook_port = await start_webhook(authority)
    port = free_port()
    url = f"http://{HOST}:{port}"
    server = subprocess.Popen([sys.executable, "-m", "fakeapi", "serve", "--port", str(port), "--simulate", "none",
                               "--webhook-address", f"bench.default.svc:443={HOST}:{hook_port}"],
                              stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        await wait_ready(url, time.monotonic() + 30)
        headers = {"Content-Type": "application/json"}
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONNECTIONS)) as session:

            async def post(path: str, body: dict[str, Any]) -> None:
                async with session.post(url + path, data=orjson.dumps(body), headers=headers) as response:
                    assert response.status == 201, await response.text()

            async def delete(path: str) -> None:
                async with session.delete(url + path) as response:
                    assert response.status == 200, await response.text()

            def creates(prefix: str) -> Callable[[int], Awaitable[None]]:
                async def create(i: int) -> None:
                    await post("/api/v1/namespaces/default/configmaps",
                               {"metadata": {"name": f"bench-{prefix}-{i}", "labels": {"app": "bench"}},
                                "data": {"key": "value"}})
                return create

            await phase("create, no admission configured", args.creates, args.seconds, creates("none"), width=34)
            await post(f"{ADMISSION}/validatingwebhookconfigurations",
                       webhook_configuration(base64.b64encode(authority.certificate).decode()))
            await phase("create, one validating webhook", args.creates, args.seconds, creates("webhook"), width=34)
            await delete(f"{ADMISSION}/validatingwebhookconfigurations/bench")
            await post(f"{ADMISSION}/validatingadmissionpolicies", POLICY)
            await post(f"{ADMISSION}/validatingadmissionpolicybindings", BINDING)
            await phase("create, one policy of 3 rules", args.creates, args.seconds, creates("policy"), width=34)
    finally:
        stop(server, 5)
        await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--creates", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=10.0, help="time limit per phase")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
