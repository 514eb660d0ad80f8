"""The in-process server hands a test clients and kubeconfigs that act as a ServiceAccount, through a token
of its TokenRequest subresource (the official client, kubernetes_asyncio, kubectl)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from fakeapi.testing import FakeAPIServer

SA_GROUPS = ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"]


def whoami(api_client: object) -> client.V1UserInfo:
    review = client.AuthenticationV1Api(api_client).create_self_subject_review(
        client.V1SelfSubjectReview(api_version="authentication.k8s.io/v1", kind="SelfSubjectReview"))
    user: client.V1UserInfo = review.status.user_info
    return user


def test_the_official_client_acts_as_a_service_account_made_for_it() -> None:
    with FakeAPIServer() as server:
        server.seed({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
        user = whoami(server.kubernetes_client(service_account=("team", "builder")))
        assert (user.username, user.groups) == ("system:serviceaccount:team:builder", SA_GROUPS)
        assert user.uid == server.get("serviceaccounts", "builder", namespace="team")["metadata"]["uid"]
        assert whoami(server.kubernetes_client()).username == "system:anonymous"  # the server's own client


def test_a_token_bound_to_a_pod_stops_working_with_the_pod() -> None:
    with FakeAPIServer() as server:
        server.seed({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
                     "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
        token = server.service_account_token("default", "default", bound_pod="web", audiences=["vault"])
        core = client.CoreV1Api(server.kubernetes_client())
        review = client.AuthenticationV1Api(server.kubernetes_client()).create_token_review(
            client.V1TokenReview(spec=client.V1TokenReviewSpec(token=token, audiences=["vault"])))
        assert (review.status.authenticated, review.status.user.extra["authentication.kubernetes.io/pod-name"]) == (
            True, ["web"])
        core.delete_namespaced_pod("web", "default", grace_period_seconds=0)
        review = client.AuthenticationV1Api(server.kubernetes_client()).create_token_review(
            client.V1TokenReview(spec=client.V1TokenReviewSpec(token=token, audiences=["vault"])))
        assert (review.status.authenticated, review.status.error) == (None, "service account token has been "
                                                                            "invalidated")


def test_an_unknown_token_is_refused_with_401() -> None:
    with FakeAPIServer() as server:
        api_client = server.kubernetes_client()
        api_client.configuration.api_key = {"BearerToken": "Bearer made-up"}
        with pytest.raises(ApiException) as raised:
            client.CoreV1Api(api_client).list_namespaced_pod("default")
        assert (raised.value.status, json.loads(raised.value.body)["message"]) == (401, "Unauthorized")


async def test_kubernetes_asyncio_acts_as_the_service_account(async_fakeapi: FakeAPIServer) -> None:
    from kubernetes_asyncio import client as aclient

    api = aclient.AuthenticationV1Api(async_fakeapi.kubernetes_asyncio_client(service_account=("default", "bot")))
    review = await api.create_self_subject_review(aclient.V1SelfSubjectReview())
    assert review.status.user_info.username == "system:serviceaccount:default:bot"


def test_kubectl_uses_the_service_accounts_kubeconfig_over_https() -> None:
    with FakeAPIServer(tls=True) as server:
        kubeconfig = server.kubeconfig_for_service_account("default", "deployer")
        done = subprocess.run([os.environ.get("KUBECTL", "kubectl"), "--kubeconfig", kubeconfig, "auth", "whoami",
                               "-o", "json"], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["status"]["userInfo"]["username"] == "system:serviceaccount:default:deployer"
