"""The python clients' discovery and review calls with their defaults: the official client and
kubernetes_asyncio ask the slash-ended paths of upstream's swagger (`/version/`, `/api/`, `/api/v1/`,
`/apis/`); DynamicClient reads every group version it finds; the reviews and pod eviction by model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import dynamic
from kubernetes.client.rest import ApiException
from lightkube import Client as LightkubeClient
from lightkube import KubeConfig
from lightkube.models.authorization_v1 import ResourceAttributes, SelfSubjectAccessReviewSpec
from lightkube.resources.authorization_v1 import SelfSubjectAccessReview
from lightkube.resources.core_v1 import Pod as LightkubePod

from fakeapi.kubeconfig import write_kubeconfig

TIMEOUT = (5, 5)


@pytest.fixture
def api_client(live_server: str) -> Iterator[Any]:
    configuration = k8s.Configuration()
    configuration.host = live_server
    with k8s.ApiClient(configuration) as client:
        yield client


def pod(name: str) -> k8s.V1Pod:
    return k8s.V1Pod(metadata=k8s.V1ObjectMeta(name=name),
                     spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="main", image="nginx:1.27")]))


def test_the_official_clients_discovery_calls(api_client: Any) -> None:
    assert k8s.VersionApi(api_client).get_code(_request_timeout=TIMEOUT).minor == "32"
    assert k8s.CoreApi(api_client).get_api_versions(_request_timeout=TIMEOUT).versions == ["v1"]
    groups = k8s.ApisApi(api_client).get_api_versions(_request_timeout=TIMEOUT).groups
    assert [group.name for group in groups] == [
        "admissionregistration.k8s.io", "apiextensions.k8s.io", "apps", "authentication.k8s.io",
        "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io", "coordination.k8s.io",
        "discovery.k8s.io", "events.k8s.io", "policy", "rbac.authorization.k8s.io"]
    resources = k8s.CoreV1Api(api_client).get_api_resources(_request_timeout=TIMEOUT).resources
    assert {"pods", "pods/eviction", "bindings"} <= {resource.name for resource in resources}
    authz = k8s.AuthorizationV1Api(api_client).get_api_resources(_request_timeout=TIMEOUT)
    assert [resource.name for resource in authz.resources] == [
        "localsubjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews"]


def test_the_official_clients_reviews(api_client: Any) -> None:
    authorization = k8s.AuthorizationV1Api(api_client)
    review = authorization.create_self_subject_access_review(k8s.V1SelfSubjectAccessReview(
        spec=k8s.V1SelfSubjectAccessReviewSpec(resource_attributes=k8s.V1ResourceAttributes(
            namespace="default", verb="create", resource="pods"))))
    assert review.status.allowed is True
    rules = authorization.create_self_subject_rules_review(k8s.V1SelfSubjectRulesReview(
        spec=k8s.V1SelfSubjectRulesReviewSpec(namespace="default")))
    assert rules.status.resource_rules[0].verbs == ["*"]
    me = k8s.AuthenticationV1Api(api_client).create_self_subject_review(k8s.V1SelfSubjectReview())
    assert (me.status.user_info.username, me.status.user_info.groups) == (
        "system:anonymous", ["system:unauthenticated"])


def test_the_official_clients_eviction_deletes_the_pod(api_client: Any) -> None:
    core = k8s.CoreV1Api(api_client)
    core.create_namespaced_pod("default", pod("web"))
    core.create_namespaced_pod_eviction("web", "default", k8s.V1Eviction(
        metadata=k8s.V1ObjectMeta(name="web", namespace="default"),
        delete_options=k8s.V1DeleteOptions(grace_period_seconds=0)))
    with pytest.raises(ApiException) as missing:
        core.read_namespaced_pod("web", "default")
    assert missing.value.status == 404


def test_dynamic_client_reads_every_group_version_and_creates_a_review(api_client: Any) -> None:
    client = dynamic.DynamicClient(api_client)
    reviews = client.resources.get(api_version="authorization.k8s.io/v1", kind="SelfSubjectAccessReview")
    answer = reviews.create(body={"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                                  "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}}})
    assert answer.status.allowed is True
    pods = client.resources.get(api_version="v1", kind="Pod")
    assert pods.namespaced and "create" in pods.verbs


async def test_kubernetes_asyncio_discovery_calls(live_server: str) -> None:
    from kubernetes_asyncio import client as aclient

    configuration = aclient.Configuration()
    configuration.host = live_server
    async with aclient.ApiClient(configuration) as api:
        assert (await aclient.VersionApi(api).get_code()).minor == "32"
        resources = (await aclient.CoreV1Api(api).get_api_resources()).resources
        assert "pods/status" in {resource.name for resource in resources}
        review = await aclient.AuthorizationV1Api(api).create_self_subject_access_review(
            aclient.V1SelfSubjectAccessReview(spec=aclient.V1SelfSubjectAccessReviewSpec(
                resource_attributes=aclient.V1ResourceAttributes(verb="list", resource="pods"))))
        assert review.status.allowed is True


def test_lightkube_creates_a_pod_and_a_review(live_server: str, tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    write_kubeconfig(kubeconfig, live_server)
    with LightkubeClient(KubeConfig.from_file(kubeconfig), namespace="default") as client:
        created = client.create(LightkubePod.from_dict({
            "metadata": {"name": "web"}, "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]}}))
        assert created.status is not None and created.status.phase == "Pending"
        review = client.create(SelfSubjectAccessReview(spec=SelfSubjectAccessReviewSpec(
            resourceAttributes=ResourceAttributes(namespace="default", verb="delete", resource="pods"))))
        assert review.status is not None and review.status.allowed is True
