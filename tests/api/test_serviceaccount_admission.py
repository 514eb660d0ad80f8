"""The ServiceAccount admission plugin: the default account, the kube-api-access projected volume mounted
in every container, automount opt-outs, image pull secrets, the refusal of a missing account, mirror pods."""

from __future__ import annotations

import re
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from tests.builders import pod

PODS = "/api/v1/namespaces/default/pods"
ACCOUNTS = "/api/v1/namespaces/default/serviceaccounts"
TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_SOURCES = [
    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
    {"downwardAPI": {"items": [{"path": "namespace",
                                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
]
VOLUME_NAME = re.compile("kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}")


async def create(client: TestClient, body: dict[str, Any], path: str = PODS) -> tuple[int, dict[str, Any]]:
    response = await client.post(path, json=body)
    return response.status, await response.json()


def token_mount(volume: str) -> dict[str, Any]:
    return {"name": volume, "readOnly": True, "mountPath": TOKEN_PATH}


async def test_a_pod_runs_as_default_with_the_api_access_volume_in_every_container(client: Any) -> None:
    init = {"name": "init", "image": "busybox", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}
    status, created = await create(client, pod(initContainers=[init], volumes=[{"name": "data", "emptyDir": {}}]))
    assert status == 201
    spec = created["spec"]
    assert (spec["serviceAccountName"], spec["serviceAccount"]) == ("default", "default")
    data, token = spec["volumes"]
    assert VOLUME_NAME.fullmatch(token["name"])
    assert token == {"name": token["name"], "projected": {"sources": TOKEN_SOURCES, "defaultMode": 420}}
    assert spec["initContainers"][0]["volumeMounts"] == [{"name": "data", "mountPath": "/data"},
                                                         token_mount(token["name"])]
    assert spec["containers"][0]["volumeMounts"] == [token_mount(token["name"])]
    stored = await (await client.get(PODS + "/web")).json()
    assert stored["spec"] == spec
    unchanged = await client.put(PODS + "/web", json=stored)  # only creates are admitted this way
    assert unchanged.status == 200 and (await unchanged.json())["spec"] == spec


async def test_a_container_with_its_own_mount_at_the_token_path_keeps_it(client: Any) -> None:
    own = {"name": "web", "image": "nginx", "volumeMounts": [{"name": "mine", "mountPath": TOKEN_PATH}]}
    status, created = await create(client, pod(containers=[own], volumes=[{"name": "mine", "emptyDir": {}}]))
    assert status == 201
    assert created["spec"]["containers"][0]["volumeMounts"] == [{"name": "mine", "mountPath": TOKEN_PATH}]
    assert [volume["name"] for volume in created["spec"]["volumes"]] == ["mine"]  # no container needed it


async def test_a_kube_api_access_volume_of_the_pod_is_the_one_mounted(client: Any) -> None:
    volume = {"name": "kube-api-access-mine", "projected": {"sources": TOKEN_SOURCES}}
    status, created = await create(client, pod(volumes=[volume]))
    assert status == 201
    assert [v["name"] for v in created["spec"]["volumes"]] == ["kube-api-access-mine"]
    assert created["spec"]["containers"][0]["volumeMounts"] == [token_mount("kube-api-access-mine")]


async def test_a_pod_with_its_token_volume_mounted_gets_nothing_more(client: Any) -> None:
    """As a pod read back from another cluster, or written by a controller, already is."""
    volume = {"name": "kube-api-access-7lq2m", "projected": {"sources": TOKEN_SOURCES, "defaultMode": 420}}
    web = {"name": "web", "image": "nginx", "volumeMounts": [token_mount("kube-api-access-7lq2m")]}
    status, created = await create(client, pod(containers=[web], volumes=[volume]))
    assert status == 201
    assert created["spec"]["volumes"] == [volume]
    assert created["spec"]["containers"][0]["volumeMounts"] == [token_mount("kube-api-access-7lq2m")]


@pytest.mark.parametrize(("pod_setting", "account_setting", "mounted"), [
    (False, None, False),
    (None, False, False),
    (True, False, True),  # the pod's word wins
    (None, True, True),
])
async def test_automount_follows_the_pod_then_its_account(client: Any, pod_setting: bool | None,
                                                          account_setting: bool | None, mounted: bool) -> None:
    account: dict[str, Any] = {"metadata": {"name": "robot"}}
    if account_setting is not None:
        account["automountServiceAccountToken"] = account_setting
    assert (await create(client, account, ACCOUNTS))[0] == 201
    fields: dict[str, Any] = {"serviceAccountName": "robot"}
    if pod_setting is not None:
        fields["automountServiceAccountToken"] = pod_setting
    status, created = await create(client, pod(**fields))
    assert status == 201
    assert ("volumes" in created["spec"]) is mounted
    assert ("volumeMounts" in created["spec"]["containers"][0]) is mounted


async def test_a_pod_naming_a_missing_account_is_forbidden(client: Any) -> None:
    status, body = await create(client, pod(serviceAccountName="robot"))
    assert status == 403
    assert body == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'pods "web" is forbidden: error looking up service account default/robot: '
                   'serviceaccount "robot" not found',
        "reason": "Forbidden", "details": {"name": "web", "kind": "pods"}, "code": 403}
    assert (await client.get(PODS + "/web")).status == 404


async def test_a_pod_without_pull_secrets_gets_its_accounts(client: Any) -> None:
    await create(client, {"metadata": {"name": "robot"}, "imagePullSecrets": [{"name": "registry"}]}, ACCOUNTS)
    _status, inherited = await create(client, pod("a", serviceAccountName="robot"))
    assert inherited["spec"]["imagePullSecrets"] == [{"name": "registry"}]
    _status, own = await create(client, pod("b", serviceAccountName="robot", imagePullSecrets=[{"name": "mine"}]))
    assert own["spec"]["imagePullSecrets"] == [{"name": "mine"}]


async def test_mirror_pods_are_left_alone_and_may_reference_no_account_or_secret(client: Any) -> None:
    mirror = {"kubernetes.io/config.mirror": "hash"}
    status, created = await create(client, pod("static", annotations=mirror, nodeName="node-1"))
    assert status == 201
    assert "serviceAccountName" not in created["spec"] and "volumes" not in created["spec"]
    status, body = await create(client, pod("named", annotations=mirror, serviceAccountName="default"))
    assert (status, body["message"]) == (
        403, 'pods "named" is forbidden: a mirror pod may not reference service accounts')
    secret_volume = [{"name": "s", "secret": {"secretName": "db"}}]
    status, body = await create(client, pod("secret", annotations=mirror, volumes=secret_volume))
    assert (status, body["message"]) == (403, 'pods "secret" is forbidden: a mirror pod may not reference secrets')


async def test_an_account_enforcing_mountable_secrets_limits_the_pods_secrets(client: Any) -> None:
    await create(client, {"metadata": {"name": "locked",
                                       "annotations": {"kubernetes.io/enforce-mountable-secrets": "true"}},
                          "secrets": [{"name": "allowed"}]}, ACCOUNTS)
    allowed = {"name": "web", "image": "nginx",
               "env": [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "allowed", "key": "t"}}}]}
    assert (await create(client, pod("a", serviceAccountName="locked", containers=[allowed])))[0] == 201
    refused = {"name": "web", "image": "nginx",
               "env": [{"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "p"}}}]}
    status, body = await create(client, pod("b", serviceAccountName="locked", containers=[refused]))
    assert (status, body["message"]) == (403, (
        'pods "b" is forbidden: container web with envVar PASSWORD referencing secret.secretName="db" is not '
        "allowed because service account locked does not reference that secret"))


async def test_the_volume_suffix_comes_from_the_servers_seed(aiohttp_client: Any) -> None:
    names = []
    for _server in range(2):
        client = await aiohttp_client(create_app(ServerConfig(seed=7)))
        _status, created = await create(client, pod())
        names.append(created["spec"]["volumes"][0]["name"])
    assert names[0] == names[1]


async def test_the_plugin_can_be_disabled(aiohttp_client: Any) -> None:
    client = await aiohttp_client(create_app(ServerConfig(disabled_admission_plugins=frozenset(("ServiceAccount",)))))
    status, created = await create(client, pod(serviceAccountName="nobody"))
    assert status == 201
    assert "volumes" not in created["spec"] and created["spec"]["serviceAccountName"] == "nobody"
