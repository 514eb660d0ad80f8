"""What a container sees of its files and environment: the kubelet's files, mounted ConfigMaps, Secrets,
downward API and token, writable layers and emptyDir volumes, and the environment the kubelet builds."""

from __future__ import annotations

import base64
import io
import tarfile
from typing import Any

import pytest

from fakeapi.processes.downward import Unresolved
from fakeapi.processes.environment import container_environment
from fakeapi.processes.files import FileError, Tree
from fakeapi.processes.volumes import container_files, mount_problems
from tests.processes.test_shell import run, run_bytes

OBJECTS: dict[tuple[str, str, str], dict[str, Any]] = {
    ("configmaps", "default", "app"): {"data": {"mode": "fast", "app.conf": "level=3\n"}},
    ("secrets", "default", "db"): {"data": {"password": base64.b64encode(b"s3cr3t").decode()}},
    ("configmaps", "default", "kube-root-ca.crt"): {"data": {"ca.crt": "CERT\n"}},
}


def lookup(resource: str, namespace: str, name: str) -> dict[str, Any] | None:
    return OBJECTS.get((resource, namespace, name))


def token_for(pod: dict[str, Any], source: dict[str, Any]) -> str:
    """What the token manager hands out (tested over HTTP in tests/processes/test_pod_tokens.py)."""
    return f"token-of-{pod['metadata']['name']}-for-{source['expirationSeconds']}s"


def pod(**container: Any) -> dict[str, Any]:
    spec = {"name": "web", "image": "nginx", **container}
    return {
        "metadata": {"name": "web-1", "namespace": "default", "uid": "6a2e", "labels": {"app": "web"},
                     "creationTimestamp": "2030-01-01T00:00:00Z"},
        "spec": {"nodeName": "node-1", "serviceAccountName": "builder", "containers": [spec], "volumes": [
            {"name": "config", "configMap": {"name": "app"}},
            {"name": "items", "configMap": {"name": "app", "items": [{"key": "mode", "path": "conf/mode"}]}},
            {"name": "creds", "secret": {"secretName": "db", "defaultMode": 0o400}},
            {"name": "info", "downwardAPI": {"items": [{"path": "labels",
                                                         "fieldRef": {"fieldPath": "metadata.labels"}}]}},
            {"name": "scratch", "emptyDir": {}},
            {"name": "token", "projected": {"sources": [
                {"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}]}},
        ]},
        "status": {"podIP": "10.244.0.5", "hostIP": "172.18.0.2"},
    }


MOUNTS = [{"name": "config", "mountPath": "/etc/config"}, {"name": "items", "mountPath": "/etc/items"},
          {"name": "creds", "mountPath": "/etc/creds"}, {"name": "info", "mountPath": "/etc/podinfo"},
          {"name": "scratch", "mountPath": "/scratch"}, {"name": "token", "mountPath": "/var/run/token"}]


def test_a_container_sees_its_volumes_and_the_kubelets_files() -> None:
    made = pod(volumeMounts=MOUNTS)
    fs = container_files(made, made["spec"]["containers"][0], lookup, {}, 0.0, token_for)
    assert fs.read("/etc/config/mode") == b"fast"
    assert fs.read("/etc/items/conf/mode") == b"fast" and not fs.exists("/etc/items/app.conf")
    assert fs.read("/etc/creds/password") == b"s3cr3t" and fs.stat("/etc/creds/password").mode == 0o400
    assert fs.read("/etc/podinfo/labels") == b'app="web"'
    assert fs.read("/etc/hostname") == b"web-1\n"
    assert fs.read("/etc/hosts").endswith(b"10.244.0.5\tweb-1\n")
    assert b"search default.svc.cluster.local" in fs.read("/etc/resolv.conf")
    assert [name for name, _entry in fs.list("/etc")][:3] == ["config", "creds", "group"]
    assert fs.read("/var/run/token/token") == b"token-of-web-1-for-3607s"
    assert fs.read("/var/run/token/ca.crt") == b"CERT\n"


def test_mounts_are_read_only_and_writes_are_bounded() -> None:
    made = pod(volumeMounts=MOUNTS)
    shared: dict[str, Tree] = {}
    fs = container_files(made, made["spec"]["containers"][0], lookup, shared, 0.0, token_for)
    with pytest.raises(FileError) as refused:
        fs.write("/etc/config/new", b"x", 0.0)
    assert refused.value.code == "EROFS"
    fs.write("/scratch/shared", b"kept", 0.0)
    again = container_files(made, made["spec"]["containers"][0], lookup, shared, 1.0, token_for)
    assert again.read("/scratch/shared") == b"kept"  # emptyDir outlives a container instance
    fs.write("/tmp/own", b"gone", 0.0)
    assert not again.exists("/tmp/own")  # a new instance starts from the image again
    fs.root.limit = 10
    with pytest.raises(FileError) as full:
        fs.write("/tmp/big", b"x" * 11, 0.0)
    assert full.value.code == "ENOSPC"


def test_missing_sources_are_reported_as_the_volume_plugins_word_them() -> None:
    made = pod(volumeMounts=MOUNTS)
    made["spec"]["volumes"] += [{"name": "gone", "configMap": {"name": "nope"}},
                                {"name": "maybe", "secret": {"secretName": "nope", "optional": True}},
                                {"name": "key", "configMap": {"name": "app", "items": [{"key": "nope", "path": "x"}]}}]
    made["spec"]["containers"][0]["volumeMounts"] += [{"name": "gone", "mountPath": "/a"},
                                                      {"name": "maybe", "mountPath": "/b"},
                                                      {"name": "key", "mountPath": "/c"}]
    assert mount_problems(made, lookup) == [("gone", 'configmap "nope" not found'),
                                            ("key", "configmap references non-existent config key: nope")]


def test_the_environment_is_the_kubelets() -> None:
    made = pod(env=[{"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "app", "key": "mode"}}},
                    {"name": "URL", "value": "http://$(HOST):80/$(MODE)$$"},
                    {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
                    {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                    {"name": "MISSING", "valueFrom": {"configMapKeyRef": {"name": "x", "key": "y", "optional": True}}}],
               envFrom=[{"configMapRef": {"name": "app"}, "prefix": "APP_"}])
    environment = container_environment(made, made["spec"]["containers"][0], lookup)
    assert list(environment)[:2] == ["PATH", "HOSTNAME"]
    assert (environment["MODE"], environment["URL"]) == ("fast", "http://$(HOST):80/fast$")
    assert (environment["PASSWORD"], environment["POD_IP"], environment["APP_mode"]) == ("s3cr3t", "10.244.0.5", "fast")
    assert "MISSING" not in environment and environment["KUBERNETES_SERVICE_HOST"] == "10.96.0.1"


@pytest.mark.parametrize(("reference", "message"), [
    ({"configMapKeyRef": {"name": "nope", "key": "a"}}, 'configmap "nope" not found'),
    ({"configMapKeyRef": {"name": "app", "key": "nope"}}, "couldn't find key nope in ConfigMap default/app"),
    ({"secretKeyRef": {"name": "nope", "key": "a"}}, 'secret "nope" not found'),
    ({"secretKeyRef": {"name": "db", "key": "nope"}}, "couldn't find key nope in Secret default/db"),
])
def test_a_reference_that_cannot_be_resolved_is_the_kubelets_error(reference: dict[str, Any], message: str) -> None:
    made = pod(env=[{"name": "X", "valueFrom": reference}])
    with pytest.raises(Unresolved) as unresolved:
        container_environment(made, made["spec"]["containers"][0], lookup)
    assert str(unresolved.value) == message


def test_tar_copies_into_and_out_of_a_container() -> None:
    made = pod(volumeMounts=MOUNTS)
    fs = container_files(made, made["spec"]["containers"][0], lookup, {}, 0.0, token_for)
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tarball:
        for name, data in (("dir/a.txt", b"alpha"), ("dir/sub/b.txt", b"beta")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tarball.addfile(info, io.BytesIO(data))
    assert run("tar", "-xmf", "-", "-C", "/tmp", stdin=archive.getvalue(), fs=fs) == (0, "", "")
    assert fs.read("/tmp/dir/sub/b.txt") == b"beta"
    code, out, err = run_bytes("tar", "cf", "-", "/tmp/dir", fs=fs)
    assert (code, err) == (0, b"tar: Removing leading `/' from member names\n")
    with tarfile.open(fileobj=io.BytesIO(out), mode="r:") as back:
        assert sorted((member.name, member.isdir()) for member in back.getmembers()) == [
            ("tmp/dir", True), ("tmp/dir/a.txt", False), ("tmp/dir/sub", True), ("tmp/dir/sub/b.txt", False)]
        assert back.extractfile("tmp/dir/a.txt").read() == b"alpha"  # type: ignore[union-attr]
    assert run("tar", "xf", "-", "-C", "/tmp", stdin=b"not a tar archive" * 40, fs=fs)[0] == 2
