"""Operators of custom resources end to end: a kopf operator (create/update/delete handlers, its finalizer, status
patches) and lightkube's generic resources, against a live server with a CRD installed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from kopf.testing import KopfRunner
from kubernetes import client as k8s
from lightkube import ApiError, Client
from lightkube.config.kubeconfig import KubeConfig
from lightkube.generic_resource import create_namespaced_resource
from lightkube.types import PatchType

from fakeapi.testing import FakeAPIServer
from tests.crds import GROUP, crd, crontab

OPERATOR = '''
import kopf


@kopf.on.login()
def login(**kwargs):
    return kopf.login_with_kubeconfig(**kwargs)


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_):
    settings.watching.server_timeout = 5
    settings.persistence.finalizer = "stable.example.com/kopf-finalizer"


@kopf.on.create("stable.example.com", "v1", "crontabs")
def created(spec, patch, **_):
    patch.status["replicas"] = spec.get("replicas", 0)


@kopf.on.update("stable.example.com", "v1", "crontabs")
def updated(spec, patch, **_):
    patch.status["replicas"] = spec.get("replicas", 0)


@kopf.on.delete("stable.example.com", "v1", "crontabs")
def deleted(name, **_):
    pass
'''
DEADLINE = 20


def wait_for(check: Any) -> Any:
    deadline = time.monotonic() + DEADLINE
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def test_a_kopf_operator_reconciles_custom_resources(tmp_path: Path, monkeypatch: Any) -> None:
    operator = tmp_path / "operator.py"
    operator.write_text(OPERATOR)
    with FakeAPIServer() as server:
        monkeypatch.setenv("KUBECONFIG", server.kubeconfig)
        api = k8s.ApiextensionsV1Api(server.kubernetes_client())
        api.create_custom_resource_definition(crd())
        objects = k8s.CustomObjectsApi(server.kubernetes_client())
        with KopfRunner(["run", "-A", "--standalone", str(operator)], timeout=40) as runner:
            objects.create_namespaced_custom_object(GROUP, "v1", "default", "crontabs", crontab("a", replicas=2))

            def status() -> Any:
                return objects.get_namespaced_custom_object(GROUP, "v1", "default", "crontabs", "a").get("status")

            assert wait_for(lambda: (status() or {}).get("replicas") == 2)
            stored = objects.get_namespaced_custom_object(GROUP, "v1", "default", "crontabs", "a")
            assert "stable.example.com/kopf-finalizer" in stored["metadata"]["finalizers"]
            objects.patch_namespaced_custom_object(GROUP, "v1", "default", "crontabs", "a", {"spec": {"replicas": 3}})
            assert wait_for(lambda: (status() or {}).get("replicas") == 3)
            objects.delete_namespaced_custom_object(GROUP, "v1", "default", "crontabs", "a")

            def gone() -> bool:
                return not objects.list_namespaced_custom_object(GROUP, "v1", "default", "crontabs")["items"]

            assert wait_for(gone)
    assert (runner.exception, runner.exit_code) == (None, 0)
    assert "Handler 'created' succeeded." in runner.output and "Handler 'deleted' succeeded." in runner.output


def test_lightkube_generic_resources_and_the_schemas_errors(tmp_path: Path) -> None:
    with FakeAPIServer() as server:
        k8s.ApiextensionsV1Api(server.kubernetes_client()).create_custom_resource_definition(crd())
        CronTab = create_namespaced_resource(GROUP, "v1", "CronTab", "crontabs")  # noqa: N806 (a class)
        with Client(KubeConfig.from_file(server.kubeconfig), field_manager="tests") as kube:
            created = kube.create(CronTab(crontab("lk", replicas=2)))
            assert created.spec["replicas"] == 2 and created.spec["minReplicas"] == 0
            try:  # lightkube's default patch is a strategic merge patch, which custom resources refuse (415)
                kube.patch(CronTab.Status, "lk", {"status": {"replicas": 1}}, namespace="default")
            except ApiError as error:
                assert error.status.code == 415
            kube.patch(CronTab.Status, "lk", {"status": {"replicas": 1}}, namespace="default",
                       patch_type=PatchType.MERGE)
            assert kube.get(CronTab, "lk", namespace="default").status == {"replicas": 1}
            try:
                kube.create(CronTab(crontab("wrong", replicas=20)))
            except ApiError as error:
                assert error.status.code == 422
                assert error.status.message == (
                    'CronTab.stable.example.com "wrong" is invalid: spec.replicas: Invalid value: 20: '
                    "spec.replicas in body should be less than or equal to 10")
            else:
                raise AssertionError("an invalid custom resource was accepted")
            assert [item.metadata.name for item in kube.list(CronTab, namespace="default")] == ["lk"]
