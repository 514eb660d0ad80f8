"""The disruption controller, one upstream behaviour per test, on a frozen clock; and evictions, which read the
status it writes."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import events_of


@pytest.fixture
def policy(api: Any) -> Any:
    return k8s.PolicyV1Api(api)


def budget(policy: Any, **spec: Any) -> None:
    policy.create_namespaced_pod_disruption_budget("default", {
        "metadata": {"name": "web"}, "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}})


def status(policy: Any) -> Any:
    return policy.read_namespaced_pod_disruption_budget("web", "default").status


def run(cluster: FakeAPIServer, replicas: int) -> None:
    """A Deployment whose pods are ready 3 s after they start."""
    template = workloads.template()
    template["spec"]["containers"][0]["readinessProbe"] = {"httpGet": {"port": 80}, "initialDelaySeconds": 3}
    k8s.AppsV1Api(cluster.kubernetes_client()).create_namespaced_deployment(
        "default", workloads.deployment(replicas=replicas, template=template))
    cluster.clock.advance(5)


def evict(core: Any, name: str) -> None:
    core.create_namespaced_pod_eviction(name, "default", {"apiVersion": "policy/v1", "kind": "Eviction",
                                                          "metadata": {"name": name, "namespace": "default"}})


def test_min_available_counts_the_healthy_pods(cluster: FakeAPIServer, policy: Any) -> None:
    run(cluster, 3)
    budget(policy, minAvailable=2)
    done = status(policy)
    assert (done.expected_pods, done.current_healthy, done.desired_healthy, done.disruptions_allowed,
            done.observed_generation) == (3, 3, 2, 1, 1)
    [condition] = done.conditions
    assert (condition.type, condition.status, condition.reason, condition.message, condition.observed_generation) == (
        "DisruptionAllowed", "True", "SufficientPods", "", 1)


def test_max_unavailable_in_percent_counts_the_controllers_replicas(cluster: FakeAPIServer, policy: Any) -> None:
    run(cluster, 4)
    budget(policy, maxUnavailable="25%")
    done = status(policy)
    assert (done.expected_pods, done.desired_healthy, done.disruptions_allowed) == (4, 3, 1)


def test_too_few_healthy_pods_allow_no_disruption(cluster: FakeAPIServer, policy: Any) -> None:
    run(cluster, 2)
    budget(policy, minAvailable=2)
    done = status(policy)
    assert done.disruptions_allowed == 0
    assert [(c.status, c.reason) for c in done.conditions] == [("False", "InsufficientPods")]


def test_an_eviction_within_the_budget_goes_and_the_next_is_refused(cluster: FakeAPIServer, policy: Any,
                                                                    core: Any) -> None:
    run(cluster, 2)
    budget(policy, minAvailable=1)
    first, second = sorted(pod.metadata.name for pod in core.list_namespaced_pod("default").items)
    evict(core, first)
    assert core.read_namespaced_pod(first, "default").metadata.deletion_timestamp is not None
    assert status(policy).disruptions_allowed == 0
    with pytest.raises(ApiException) as refused:
        evict(core, second)
    assert refused.value.status == 429
    assert "Cannot evict pod as it would violate the pod's disruption budget." in refused.value.body
    cluster.clock.advance(5)  # the evicted pod is gone, its replacement ready: one disruption allowed again
    assert status(policy).disruptions_allowed == 1
    evict(core, second)


def test_a_budget_matching_no_pod_says_so(cluster: FakeAPIServer, policy: Any, core: Any) -> None:
    budget(policy, minAvailable=1)
    assert events_of(core, "web") == [("Normal", "NoPods", "No matching pods found")]
    assert (status(policy).expected_pods, status(policy).disruptions_allowed) == (0, 0)


def test_pods_without_a_controller_are_unmanaged_for_a_percentage(cluster: FakeAPIServer, policy: Any,
                                                                  core: Any) -> None:
    core.create_namespaced_pod("default", {"metadata": {"name": "bare", "labels": {"app": "web"}},
                                           "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}})
    budget(policy, maxUnavailable="50%")
    (kind, reason, message), = events_of(core, "web")
    assert (kind, reason) == ("Warning", "UnmanagedPods")
    assert message.startswith("Pods selected by this PodDisruptionBudget (selector: &LabelSelector{")
    assert status(policy).expected_pods == 0
