"""The workload kinds through the official `kubernetes` client, as a controller drives them: typed objects in,
typed objects out, the status and scale subresources, and upstream's errors as ApiExceptions."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException


@pytest.fixture
def api_client(live_server: str) -> Any:
    configuration = k8s.Configuration()
    configuration.host = live_server
    with k8s.ApiClient(configuration) as api_client:
        yield api_client


def pod_template(restart_policy: str | None = None) -> k8s.V1PodTemplateSpec:
    return k8s.V1PodTemplateSpec(
        metadata=k8s.V1ObjectMeta(labels={"app": "web"}),
        spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="web", image="nginx:1.27")],
                           restart_policy=restart_policy))


def test_a_deployment_through_its_lifecycle(api_client: Any) -> None:
    apps = k8s.AppsV1Api(api_client)
    created = apps.create_namespaced_deployment("default", k8s.V1Deployment(
        metadata=k8s.V1ObjectMeta(name="web"),
        spec=k8s.V1DeploymentSpec(selector=k8s.V1LabelSelector(match_labels={"app": "web"}),
                                  template=pod_template())))
    assert (created.metadata.generation, created.spec.replicas, created.spec.revision_history_limit) == (1, 1, 10)
    assert created.spec.strategy.rolling_update.max_surge == "25%"
    apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 3}})
    deployment = apps.read_namespaced_deployment("web", "default")
    assert (deployment.spec.replicas, deployment.metadata.generation) == (3, 2)
    deployment.status = k8s.V1DeploymentStatus(observed_generation=2, replicas=3, ready_replicas=3,
                                               available_replicas=3, updated_replicas=3)
    written = apps.replace_namespaced_deployment_status("web", "default", deployment)
    assert (written.status.ready_replicas, written.metadata.generation) == (3, 2)
    deployment = apps.read_namespaced_deployment("web", "default")
    deployment.spec.selector.match_labels = {"app": "other"}
    with pytest.raises(ApiException) as invalid:
        apps.replace_namespaced_deployment("web", "default", deployment)
    assert invalid.value.status == 422
    causes = json.loads(invalid.value.body)["details"]["causes"]
    assert [cause["field"] for cause in causes] == ["spec.template.metadata.labels", "spec.selector"]


def test_a_stateful_set_and_a_replication_controller(api_client: Any) -> None:
    apps, core = k8s.AppsV1Api(api_client), k8s.CoreV1Api(api_client)
    created = apps.create_namespaced_stateful_set("default", k8s.V1StatefulSet(
        metadata=k8s.V1ObjectMeta(name="db"),
        spec=k8s.V1StatefulSetSpec(service_name="db", selector=k8s.V1LabelSelector(match_labels={"app": "web"}),
                                   template=pod_template())))
    assert (created.spec.pod_management_policy, created.spec.update_strategy.rolling_update.partition) == (
        "OrderedReady", 0)
    assert apps.read_namespaced_stateful_set_scale("db", "default").status.selector == "app=web"
    controller = core.create_namespaced_replication_controller("default", k8s.V1ReplicationController(
        metadata=k8s.V1ObjectMeta(name="rc"), spec=k8s.V1ReplicationControllerSpec(template=pod_template())))
    assert controller.spec.selector == {"app": "web"}
    with pytest.raises(ApiException) as invalid:
        core.create_namespaced_replication_controller("default", k8s.V1ReplicationController(
            metadata=k8s.V1ObjectMeta(name="rc2"),
            spec=k8s.V1ReplicationControllerSpec(template=pod_template("Never"))))
    assert json.loads(invalid.value.body)["message"] == (
        'ReplicationController "rc2" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": '
        'supported values: "Always"')


def test_a_job_and_a_cron_job(api_client: Any) -> None:
    batch = k8s.BatchV1Api(api_client)
    created = batch.create_namespaced_job("default", k8s.V1Job(
        metadata=k8s.V1ObjectMeta(name="pi"),
        spec=k8s.V1JobSpec(template=pod_template("Never"), backoff_limit=2, completion_mode="Indexed",
                           completions=3, parallelism=3)))
    uid = created.metadata.uid
    assert created.spec.selector.match_labels == {"batch.kubernetes.io/controller-uid": uid}
    assert (created.spec.backoff_limit, created.spec.manual_selector, created.spec.suspend) == (2, False, False)
    assert batch.list_namespaced_job("default", field_selector="status.successful=0").items[0].metadata.name == "pi"
    cron = batch.create_namespaced_cron_job("default", k8s.V1CronJob(
        metadata=k8s.V1ObjectMeta(name="nightly"),
        spec=k8s.V1CronJobSpec(schedule="@daily", time_zone="Etc/UTC", job_template=k8s.V1JobTemplateSpec(
            spec=k8s.V1JobSpec(template=pod_template("OnFailure"))))))
    assert (cron.spec.concurrency_policy, cron.spec.failed_jobs_history_limit) == ("Allow", 1)
