"""kubectl with ConfigMaps, Secrets and ServiceAccounts: the create generators, get and describe, what every
namespace holds, and pods admitted with their service account."""

from __future__ import annotations

import base64
import json
import re
import urllib.request

from tests.kubectl.conftest import Kubectl

# a throwaway self-signed certificate and its key, made for this test only
TEST_CERTIFICATE = """\
-----BEGIN CERTIFICATE-----
MIIBnjCCAUOgAwIBAgIUGX5ifd+Z/TEvTS8I9F4OEGjrhEcwCgYIKoZIzj0EAwIw
IzEhMB8GA1UEAwwYZmFrZWFwaSB0ZXN0IGNlcnRpZmljYXRlMCAXDTI2MTIwMzA5
NTE1OVoYDzIxMjYxMTA5MDk1MTU5WjAjMSEwHwYDVQQDDBhmYWtlYXBpIHRlc3Qg
Y2VydGlmaWNhdGUwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARKiwSCIkjV7mvS
xNAYF2+25ytp7SxT7N3mBcT5pbzmRXAVBhkabs5N+eXiET+XI3UsDtRpKhwQZgxy
u7Z+PEx/o1MwUTAdBgNVHQ4EFgQUf8J5REj6sxZDdI33d38yf6OOuqswHwYDVR0j
BBgwFoAUf8J5REj6sxZDdI33d38yf6OOuqswDwYDVR0TAQH/BAUwAwEB/zAKBggq
hkjOPQQDAgNJADBGAiEA1YqbUa8Xr44tuWycuQ1eAY2UKKx1BRkczC9H/NF6KJMC
IQD0FSzKziTjs+w61eL9Hx0TqrWP1VPVXH++xit54vOdOA==
-----END CERTIFICATE-----
"""
TEST_KEY = """\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg1ktb1TV7tqCrQx3Z
Rw/K1gMJ1Rq2Nl+R/j61mVH3TXGhRANCAARKiwSCIkjV7mvSxNAYF2+25ytp7SxT
7N3mBcT5pbzmRXAVBhkabs5N+eXiET+XI3UsDtRpKhwQZgxyu7Z+PEx/
-----END PRIVATE KEY-----
"""


def rows(output: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in output.strip().splitlines()]


def test_a_new_namespace_shows_its_default_service_account_and_root_ca(kubectl: Kubectl) -> None:
    assert kubectl.ok("create", "namespace", "fresh") == "namespace/fresh created\n"
    out = kubectl.ok("get", "sa,cm,secret", "-n", "fresh")
    tables = [rows(block) for block in out.strip().split("\n\n")]
    assert [[row[:2] for row in table] for table in tables] == [
        [["NAME", "SECRETS"], ["serviceaccount/default", "0"]],
        [["NAME", "DATA"], ["configmap/kube-root-ca.crt", "1"]],
    ]
    ca = kubectl.ok("get", "cm", "kube-root-ca.crt", "-n", "fresh", "-o", "jsonpath={.data.ca\\.crt}")
    assert ca.startswith("-----BEGIN CERTIFICATE-----\n")


def test_create_get_and_describe_a_config_map(kubectl: Kubectl) -> None:
    created = kubectl.ok("create", "configmap", "app-config", "--from-literal=mode=fast", "--from-literal=level=3")
    assert created == "configmap/app-config created\n"
    assert rows(kubectl.ok("get", "cm", "app-config"))[1][:2] == ["app-config", "2"]
    described = kubectl.ok("describe", "configmap", "app-config")
    assert re.search(r"^Name:\s+app-config$", described, re.MULTILINE)
    assert "\nmode:\n----\nfast\n" in described and "\nlevel:\n----\n3\n" in described
    refused = kubectl("create", "configmap", "app-config", "--from-literal=a=b")
    assert refused.rc == 1
    assert refused.err == 'error: failed to create configmap: configmaps "app-config" already exists\n'


def test_create_get_and_describe_a_generic_secret(kubectl: Kubectl) -> None:
    assert kubectl.ok("create", "secret", "generic", "db", "--from-literal=password=s3cr3t") == "secret/db created\n"
    assert rows(kubectl.ok("get", "secret", "db"))[1][:3] == ["db", "Opaque", "1"]
    password = kubectl.ok("get", "secret", "db", "-o", "jsonpath={.data.password}")
    assert base64.b64decode(password) == b"s3cr3t"
    described = kubectl.ok("describe", "secret", "db")
    assert re.search(r"^Type:\s+Opaque$", described, re.MULTILINE)
    assert re.search(r"^password:\s+6 bytes$", described, re.MULTILINE)


def test_applying_a_secret_leaves_its_values_out_of_the_request_log(kubectl: Kubectl) -> None:
    """kubectl apply sends the manifest twice: as the object and inside its last-applied annotation."""
    manifest = ("apiVersion: v1\nkind: Secret\nmetadata: {name: applied}\n"
                "stringData: {password: hunter2-first}\n")
    assert kubectl.ok("apply", "-f", kubectl.write("secret.yaml", manifest)) == "secret/applied created\n"
    changed = manifest.replace("hunter2-first", "hunter2-second")
    assert kubectl.ok("apply", "-f", kubectl.write("secret.yaml", changed)) == "secret/applied configured\n"
    annotation = kubectl.ok("get", "secret", "applied", "-o",
                            "jsonpath={.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration}")
    assert "hunter2-second" in annotation  # the object keeps it, as upstream's does
    request = urllib.request.Request(kubectl.server.url + "/fakeapi/v1/requests?resource=secrets",
                                     headers={"X-Fakeapi-Control": "1"})
    with urllib.request.urlopen(request, timeout=10) as response:
        logged = response.read()
    writes = [entry for entry in json.loads(logged)["items"] if entry["body"]]
    assert [entry["method"] for entry in writes][-2:] == ["POST", "PATCH"]
    assert b"hunter2" not in logged and base64.b64encode(b"hunter2").rstrip(b"=") not in logged
    patch = json.loads(writes[-1]["body"])
    applied = json.loads(patch["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    assert applied["stringData"] == {"password": "<redacted>"} and patch["stringData"] == {"password": "<redacted>"}


def test_create_a_docker_registry_secret(kubectl: Kubectl) -> None:
    created = kubectl.ok("create", "secret", "docker-registry", "regcred", "--docker-server=registry.example.com",
                         "--docker-username=me", "--docker-password=pw")
    assert created == "secret/regcred created\n"
    assert rows(kubectl.ok("get", "secret", "regcred"))[1][:3] == [
        "regcred", "kubernetes.io/dockerconfigjson", "1"]
    config = kubectl.ok("get", "secret", "regcred", "-o", "jsonpath={.data.\\.dockerconfigjson}")
    assert json.loads(base64.b64decode(config))["auths"]["registry.example.com"]["username"] == "me"


def test_create_a_tls_secret(kubectl: Kubectl) -> None:
    cert, key = kubectl.write("tls.crt", TEST_CERTIFICATE), kubectl.write("tls.key", TEST_KEY)
    result = kubectl("create", "secret", "tls", "web-tls", f"--cert={cert}", f"--key={key}")
    assert (result.rc, result.out, result.err) == (0, "secret/web-tls created\n", "")  # no warning: a real pair
    assert rows(kubectl.ok("get", "secret", "web-tls"))[1][:3] == ["web-tls", "kubernetes.io/tls", "2"]


def test_create_get_and_describe_a_service_account(kubectl: Kubectl) -> None:
    assert kubectl.ok("create", "serviceaccount", "robot") == "serviceaccount/robot created\n"
    assert rows(kubectl.ok("get", "sa", "robot"))[1][:2] == ["robot", "0"]
    described = kubectl.ok("describe", "sa", "robot")
    for label, value in (("Name", "robot"), ("Namespace", "default"), ("Image pull secrets", "<none>"),
                         ("Mountable secrets", "<none>"), ("Tokens", "<none>")):
        assert re.search(rf"^{label}:\s+{value}$", described, re.MULTILINE), described


def test_a_pod_runs_as_its_namespaces_default_account(kubectl: Kubectl) -> None:
    assert kubectl.ok("run", "sa-web", "--image=nginx:1.27") == "pod/sa-web created\n"
    spec = json.loads(kubectl.ok("get", "pod", "sa-web", "-o", "json"))["spec"]
    assert spec["serviceAccountName"] == "default"
    [volume] = spec["volumes"]
    assert volume["name"].startswith("kube-api-access-")
    assert spec["containers"][0]["volumeMounts"] == [
        {"name": volume["name"], "readOnly": True, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]
    refused = kubectl("run", "sa-ghost", "--image=nginx:1.27", "--overrides",
                      '{"spec": {"serviceAccountName": "ghost"}}')
    assert refused.rc == 1
    assert refused.err == ('Error from server (Forbidden): pods "sa-ghost" is forbidden: error looking up service '
                           'account default/ghost: serviceaccount "ghost" not found\n')


def test_create_get_and_describe_a_persistent_volume_claim(kubectl: Kubectl) -> None:
    claim = ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\n"
             "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n")
    assert kubectl.ok("apply", "-f", "-", stdin=claim) == "persistentvolumeclaim/data created\n"
    listed = kubectl.ok("get", "pvc")
    assert listed.splitlines()[0].split() == ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS", "MODES",
                                              "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"]
    assert listed.splitlines()[1].split()[:3] == ["data", "Pending", "<unset>"]
    assert rows(kubectl.ok("get", "pvc", "-o", "wide"))[1][-1] == "Filesystem"
    described = kubectl.ok("describe", "pvc", "data")
    assert re.search(r"^Status:\s+Pending$", described, re.MULTILINE)
    assert re.search(r"^VolumeMode:\s+Filesystem$", described, re.MULTILINE)
    refused = kubectl("create", "-f", "-", stdin=claim.replace("name: data", "name: bad").replace(
        "resources: {requests: {storage: 1Gi}}", "resources: {}"))
    assert refused.rc == 1 and refused.err == (
        'The PersistentVolumeClaim "bad" is invalid: spec.resources[storage]: Required value\n')
