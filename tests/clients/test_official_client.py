"""The official `kubernetes` client against a server on a real port, as a controller would use it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException


@pytest.fixture
def core(live_server: str) -> Any:
    configuration = k8s.Configuration()
    configuration.host = live_server
    with k8s.ApiClient(configuration) as api_client:
        yield k8s.CoreV1Api(api_client)


def guaranteed_pod(name: str) -> k8s.V1Pod:
    return k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name=name, labels={"app": "web"}),
        spec=k8s.V1PodSpec(containers=[k8s.V1Container(
            name="web", image="nginx:1.27",
            resources=k8s.V1ResourceRequirements(limits={"cpu": "500m", "memory": "128Mi"}))]),
    )


def test_create_read_replace_patch_status_and_delete(core: Any) -> None:
    created = core.create_namespaced_pod("default", guaranteed_pod("web"))
    assert created.status.qos_class == "Guaranteed"
    assert created.spec.containers[0].resources.requests == {"cpu": "500m", "memory": "128Mi"}

    read = core.read_namespaced_pod("web", "default")
    read.metadata.labels["tier"] = "front"
    replaced = core.replace_namespaced_pod("web", "default", read)
    assert replaced.metadata.labels == {"app": "web", "tier": "front"}

    # the client sends a dict body as a strategic merge patch
    patched = core.patch_namespaced_pod("web", "default", {"spec": {"containers": [
        {"name": "web", "image": "nginx:1.28"}]}})
    assert patched.spec.containers[0].image == "nginx:1.28"
    assert patched.spec.containers[0].resources.limits == {"cpu": "500m", "memory": "128Mi"}
    assert patched.metadata.generation == 2

    # status without qosClass keeps the class; the same class is fine
    status_write = core.read_namespaced_pod_status("web", "default")
    status_write.status = k8s.V1PodStatus(phase="Running")
    assert core.replace_namespaced_pod_status("web", "default", status_write).status.qos_class == "Guaranteed"
    status_write = core.read_namespaced_pod_status("web", "default")
    status_write.status.qos_class = "Guaranteed"
    assert core.replace_namespaced_pod_status("web", "default", status_write).status.phase == "Running"

    # another class is rejected with 422
    status_write = core.read_namespaced_pod_status("web", "default")
    status_write.status.qos_class = "BestEffort"
    with pytest.raises(ApiException) as raised:
        core.replace_namespaced_pod_status("web", "default", status_write)
    assert raised.value.status == 422
    assert json.loads(raised.value.body)["message"] == (
        'Pod "web" is invalid: status.qosClass: Invalid value: "BestEffort": field is immutable')

    core.delete_namespaced_pod("web", "default")
    with pytest.raises(ApiException) as missing:
        core.read_namespaced_pod("web", "default")
    assert missing.value.status == 404


def test_stale_replace_raises_409(core: Any) -> None:
    created = core.create_namespaced_pod("default", guaranteed_pod("web"))
    core.patch_namespaced_pod("web", "default", {"metadata": {"labels": {"x": "1"}}})
    created.metadata.labels["x"] = "2"
    with pytest.raises(ApiException) as raised:
        core.replace_namespaced_pod("web", "default", created)
    assert raised.value.status == 409
