"""The race from kubernetes PR #127744: a kubelet that drops qosClass and a writer that keeps it."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

ROUNDS = 40


@pytest.fixture
def core(live_server: str) -> Any:
    configuration = k8s.Configuration()
    configuration.host = live_server
    with k8s.ApiClient(configuration) as api_client:
        yield k8s.CoreV1Api(api_client)


def writer(core: Any, send_qos: bool, errors: list[int], conflicts: list[int]) -> None:
    for round_number in range(ROUNDS):
        for _attempt in range(50):
            pod = core.read_namespaced_pod_status("web", "default")
            pod.status.message = f"{'keeper' if send_qos else 'kubelet'} {round_number}"
            if not send_qos:
                pod.status.qos_class = None  # what an old kubelet sent when rejecting a pod
            try:
                core.replace_namespaced_pod_status("web", "default", pod)
                break
            except ApiException as error:
                if error.status == 409:
                    conflicts.append(1)
                    continue
                errors.append(error.status)
                return


def test_concurrent_status_writers_never_see_422_and_the_class_never_changes(core: Any) -> None:
    core.create_namespaced_pod("default", k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="web"),
        spec=k8s.V1PodSpec(containers=[k8s.V1Container(
            name="web", image="nginx", resources=k8s.V1ResourceRequirements(limits={"cpu": "1", "memory": "1Gi"}))])))
    errors: list[int] = []
    conflicts: list[int] = []
    threads = [threading.Thread(target=writer, args=(core, send_qos, errors, conflicts)) for send_qos in (True, False)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert core.read_namespaced_pod("web", "default").status.qos_class == "Guaranteed"
