"""The endpoints and endpointslice controllers, one upstream behaviour per test, on a frozen clock."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads


@pytest.fixture
def apps(api: Any) -> Any:
    return k8s.AppsV1Api(api)


def run_pods(cluster: FakeAPIServer, apps: Any, replicas: int = 2, **template: Any) -> None:
    pod_template = workloads.template(**template)
    pod_template["spec"]["containers"][0]["ports"] = [{"name": "http", "containerPort": 8080}]
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=replicas, template=pod_template))
    cluster.clock.advance(2)


def service(core: Any, name: str = "web", target: Any = "http", **spec: Any) -> Any:
    return core.create_namespaced_service("default", {
        "metadata": {"name": name, "labels": {"tier": "front"}},
        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": target}], **spec}})


def slices(cluster: FakeAPIServer, name: str = "web") -> list[dict[str, Any]]:
    return [s for s in cluster.list("endpointslices")
            if (s["metadata"].get("labels") or {}).get("kubernetes.io/service-name") == name]


def pod_ips(core: Any) -> list[str]:
    return sorted(pod.status.pod_ip for pod in core.list_namespaced_pod("default").items)


def test_endpoints_list_the_ready_pods_of_the_service(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    run_pods(cluster, apps)
    service(core)
    endpoints = core.read_namespaced_endpoints("web", "default")
    assert endpoints.metadata.labels == {"tier": "front"}
    assert "endpoints.kubernetes.io/last-change-trigger-time" in endpoints.metadata.annotations
    [subset] = endpoints.subsets
    assert [(p.name, p.port, p.protocol) for p in subset.ports] == [("http", 8080, "TCP")]  # the named port
    assert [a.ip for a in subset.addresses] == pod_ips(core)
    assert {(a.node_name, a.target_ref.kind) for a in subset.addresses} == {("node-1", "Pod")}
    assert subset.not_ready_addresses is None


def test_a_pod_not_ready_is_listed_as_not_ready(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    run_pods(cluster, apps, replicas=1)
    service(core)
    [pod] = core.list_namespaced_pod("default").items
    core.patch_namespaced_pod_status(pod.metadata.name, "default", {"status": {"conditions": [
        {"type": "Ready", "status": "False"}]}})
    [subset] = core.read_namespaced_endpoints("web", "default").subsets
    assert subset.addresses is None and [a.ip for a in subset.not_ready_addresses] == [pod.status.pod_ip]
    [endpoint_slice] = slices(cluster)
    assert endpoint_slice["endpoints"][0]["conditions"] == {"ready": False, "serving": False, "terminating": False}


def test_a_terminating_pod_leaves_the_endpoints_and_is_terminating_in_its_slice(cluster: FakeAPIServer, apps: Any,
                                                                               core: Any) -> None:
    run_pods(cluster, apps, replicas=1)
    service(core)
    [pod] = core.list_namespaced_pod("default").items
    core.delete_namespaced_pod(pod.metadata.name, "default")
    listed = [a.target_ref.name for subset in core.read_namespaced_endpoints("web", "default").subsets or []
              for a in (subset.addresses or []) + (subset.not_ready_addresses or [])]
    assert pod.metadata.name not in listed and len(listed) == 1  # (its replacement)
    conditions = {e["targetRef"]["name"]: e["conditions"] for s in slices(cluster) for e in s["endpoints"]}
    # the kubelet stops its containers: not ready, so not serving either
    assert conditions[pod.metadata.name] == {"ready": False, "serving": False, "terminating": True}


def test_publish_not_ready_addresses_lists_every_pod_as_ready(cluster: FakeAPIServer, apps: Any,
                                                              core: Any) -> None:
    template = workloads.template()
    template["metadata"]["annotations"] = {"fakeapi.dev/never-ready": "true"}
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=1, template=template))
    cluster.clock.advance(2)
    service(core, target=80, publishNotReadyAddresses=True)
    [subset] = core.read_namespaced_endpoints("web", "default").subsets
    assert [a.ip for a in subset.addresses] == pod_ips(core) and subset.ports[0].port == 80


def test_a_headless_service_is_labelled_headless(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    run_pods(cluster, apps, replicas=1)
    service(core, clusterIP="None")
    labels = core.read_namespaced_endpoints("web", "default").metadata.labels
    assert labels == {"tier": "front", "service.kubernetes.io/headless": ""}
    assert slices(cluster)[0]["metadata"]["labels"]["service.kubernetes.io/headless"] == ""


def test_a_service_without_a_selector_keeps_the_endpoints_its_user_writes(cluster: FakeAPIServer,
                                                                          core: Any) -> None:
    core.create_namespaced_service("default", {"metadata": {"name": "external"},
                                               "spec": {"ports": [{"port": 5432}]}})
    core.create_namespaced_endpoints("default", {"metadata": {"name": "external"}, "subsets": [
        {"addresses": [{"ip": "192.0.2.10"}], "ports": [{"port": 5432}]}]})
    cluster.clock.advance(1)
    assert core.read_namespaced_endpoints("external", "default").subsets[0].addresses[0].ip == "192.0.2.10"
    assert slices(cluster, "external") == []


def test_deleting_a_service_deletes_its_endpoints_and_slices(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    run_pods(cluster, apps, replicas=1)
    service(core)
    core.delete_namespaced_service("web", "default")
    assert [e.metadata.name for e in core.list_namespaced_endpoints("default").items] == ["kubernetes"]
    assert slices(cluster) == []


def test_endpoint_slices_are_named_after_the_service_owned_by_it_and_labelled(cluster: FakeAPIServer, apps: Any,
                                                                            core: Any) -> None:
    run_pods(cluster, apps)
    svc = service(core)
    [endpoint_slice] = slices(cluster)
    meta = endpoint_slice["metadata"]
    assert meta["name"].startswith("web-") and len(meta["name"]) == len("web-") + 5
    assert meta["labels"] == {"tier": "front", "kubernetes.io/service-name": "web",
                              "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}
    assert [(r["kind"], r["uid"], r["controller"]) for r in meta["ownerReferences"]] == [
        ("Service", svc.metadata.uid, True)]
    assert endpoint_slice["addressType"] == "IPv4"
    assert endpoint_slice["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    assert sorted(e["addresses"][0] for e in endpoint_slice["endpoints"]) == pod_ips(core)


def test_a_slice_holds_at_most_a_hundred_endpoints(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    run_pods(cluster, apps, replicas=105)
    service(core)
    assert sorted(len(s["endpoints"]) for s in slices(cluster)) == [5, 100]
    assert len(core.read_namespaced_endpoints("web", "default").subsets[0].addresses) == 105


def test_a_service_matching_no_pod_has_one_empty_slice(cluster: FakeAPIServer, core: Any) -> None:
    service(core)
    [endpoint_slice] = slices(cluster)
    assert not endpoint_slice.get("endpoints")
    assert core.read_namespaced_endpoints("web", "default").subsets is None


def test_new_pods_fill_the_existing_slice(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    run_pods(cluster, apps, replicas=1)
    service(core)
    [before] = slices(cluster)
    apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 3}})
    cluster.clock.advance(2)
    [after] = slices(cluster)
    assert after["metadata"]["name"] == before["metadata"]["name"] and len(after["endpoints"]) == 3
