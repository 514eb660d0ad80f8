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


def test_services_and_the_kubernetes_endpoints(api_client: Any) -> None:
    core = k8s.CoreV1Api(api_client)
    created = core.create_namespaced_service("default", k8s.V1Service(
        metadata=k8s.V1ObjectMeta(name="web"),
        spec=k8s.V1ServiceSpec(type="NodePort", selector={"app": "web"},
                               ports=[k8s.V1ServicePort(port=80, target_port=8080, node_port=30080)])))
    assert created.spec.cluster_ip == created.spec.cluster_ips[0]
    assert (created.spec.ports[0].node_port, created.spec.ip_families, created.spec.external_traffic_policy) == (
        30080, ["IPv4"], "Cluster")
    with pytest.raises(ApiException) as taken:
        core.create_namespaced_service("default", k8s.V1Service(
            metadata=k8s.V1ObjectMeta(name="dns"), spec=k8s.V1ServiceSpec(
                cluster_ip=created.spec.cluster_ip, ports=[k8s.V1ServicePort(port=53, protocol="UDP")])))
    assert taken.value.status == 422
    assert json.loads(taken.value.body)["details"]["causes"][0]["message"] == (
        f'Invalid value: []string{{"{created.spec.cluster_ip}"}}: failed to allocate IP {created.spec.cluster_ip}: '
        "provided IP is already allocated")
    endpoints = core.read_namespaced_endpoints("kubernetes", "default")
    assert [port.name for port in endpoints.subsets[0].ports] == ["https"]
    slices = k8s.DiscoveryV1Api(api_client).list_namespaced_endpoint_slice(
        "default", label_selector="kubernetes.io/service-name=kubernetes")
    assert [item.endpoints[0].addresses for item in slices.items] == [[endpoints.subsets[0].addresses[0].ip]]


def test_an_eviction_a_budget_refuses_then_allows(api_client: Any) -> None:
    core, policy = k8s.CoreV1Api(api_client), k8s.PolicyV1Api(api_client)
    core.create_namespaced_pod("default", k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="guarded", labels={"app": "web"}),
        spec=k8s.V1PodSpec(node_name="node-1", containers=[k8s.V1Container(name="web", image="nginx:1.27")])))
    core.patch_namespaced_pod_status("guarded", "default", {"status": {
        "phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
    policy.create_namespaced_pod_disruption_budget("default", k8s.V1PodDisruptionBudget(
        metadata=k8s.V1ObjectMeta(name="web"),
        spec=k8s.V1PodDisruptionBudgetSpec(min_available=1,
                                           selector=k8s.V1LabelSelector(match_labels={"app": "web"}))))
    status = {"observedGeneration": 1, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1,
              "disruptionsAllowed": 0}
    policy.patch_namespaced_pod_disruption_budget_status("web", "default", {"status": status})
    eviction = k8s.V1Eviction(metadata=k8s.V1ObjectMeta(name="guarded", namespace="default"))
    with pytest.raises(ApiException) as refused:
        core.create_namespaced_pod_eviction("guarded", "default", eviction)
    assert refused.value.status == 429
    assert json.loads(refused.value.body)["details"]["causes"] == [{
        "reason": "DisruptionBudget", "message": "The disruption budget web needs 1 healthy pods and has 1 currently"}]
    policy.patch_namespaced_pod_disruption_budget_status("web", "default", {"status": {
        "currentHealthy": 2, "expectedPods": 2, "disruptionsAllowed": 1}})
    core.create_namespaced_pod_eviction("guarded", "default", eviction)
    pod = core.read_namespaced_pod("guarded", "default")
    assert pod.metadata.deletion_timestamp is not None
    assert [(c.type, c.reason) for c in pod.status.conditions] == [
        ("Ready", None), ("DisruptionTarget", "EvictionByEvictionAPI")]
    budget = policy.read_namespaced_pod_disruption_budget("web", "default")
    assert (budget.status.disruptions_allowed, list(budget.status.disrupted_pods)) == (0, ["guarded"])


def test_an_autoscaler_written_as_v1_and_read_as_v2(api_client: Any) -> None:
    target = k8s.V1CrossVersionObjectReference(api_version="apps/v1", kind="Deployment", name="web")
    autoscalers = k8s.AutoscalingV1Api(api_client)
    autoscalers.create_namespaced_horizontal_pod_autoscaler("default", k8s.V1HorizontalPodAutoscaler(
        metadata=k8s.V1ObjectMeta(name="web"),
        spec=k8s.V1HorizontalPodAutoscalerSpec(scale_target_ref=target, max_replicas=4,
                                               target_cpu_utilization_percentage=50)))
    autoscaler = k8s.AutoscalingV2Api(api_client).read_namespaced_horizontal_pod_autoscaler("web", "default")
    assert (autoscaler.spec.min_replicas, autoscaler.spec.max_replicas) == (1, 4)
    assert autoscaler.spec.metrics[0].resource.target.average_utilization == 50
