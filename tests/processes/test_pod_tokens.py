"""The token the kubelet projects into a pod's kube-api-access volume is a real one: a process in the pod
reads it (`cat` over exec) and calls the API as the pod's ServiceAccount, until the pod goes."""

from __future__ import annotations

import base64
import json
from typing import Any

import aiohttp

from fakeapi.testing import FakeAPIServer
from tests import builders

TOKEN_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/token"
EXEC = "/api/v1/namespaces/default/pods/web/exec"
WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
RUNNING = {"phase": "Running", "containerStatuses": [
    {"name": "web", "image": "nginx:1.27", "imageID": "", "ready": True, "restartCount": 0,
     "containerID": "containerd://c1", "state": {"running": {"startedAt": "2030-01-01T00:00:00Z"}}}]}


def claims(token: str) -> Any:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


async def read_token(http: aiohttp.ClientSession) -> str:
    """What `cat` prints in the pod's container (stdout is channel 1 of the v4 protocol)."""
    params = [("command", "cat"), ("command", TOKEN_FILE), ("stdout", "true"), ("stderr", "true")]
    out = b""
    async with http.ws_connect(EXEC, params=params, protocols=("v4.channel.k8s.io",)) as ws:
        async for message in ws:
            if message.type == aiohttp.WSMsgType.BINARY and message.data[0] == 1:
                out += message.data[1:]
    return out.decode()


async def whoami(http: aiohttp.ClientSession, token: str) -> tuple[int, Any]:
    async with http.post(WHOAMI, json={}, headers={"Authorization": f"Bearer {token}"}) as response:
        return response.status, await response.json()


async def test_the_projected_token_authenticates_as_the_pods_service_account_while_the_pod_lives() -> None:
    async with FakeAPIServer() as server, aiohttp.ClientSession(base_url=server.url) as http:
        server.seed([{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "web"}},
                     builders.pod("web", nodeName="node-1", serviceAccountName="web", status=RUNNING)])
        token = await read_token(http)
        pod_uid = server.get("pods", "web")["metadata"]["uid"]
        assert claims(token)["kubernetes.io"]["pod"] == {"name": "web", "uid": pod_uid}
        assert claims(token)["exp"] - claims(token)["iat"] == 365 * 24 * 3600  # 3607 s asked: extended
        status, review = await whoami(http, token)
        user = review["status"]["userInfo"]
        assert (status, user["username"], user["extra"]["authentication.kubernetes.io/pod-name"]) == (
            201, "system:serviceaccount:default:web", ["web"])
        assert await read_token(http) == token  # kept until 80% of its life has passed
        server.clock.advance(0.8 * 3607 + 1)
        renewed = await read_token(http)
        assert renewed != token and claims(renewed)["iat"] > claims(token)["iat"]
        async with http.delete("/api/v1/namespaces/default/pods/web", params={"gracePeriodSeconds": "0"}):
            pass
        assert (await whoami(http, renewed))[0] == 401
