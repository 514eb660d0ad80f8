"""Decode-time defaulting of pods and namespaces (pkg/apis/core/v1/defaults.go and conversion)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.kinds.namespace.defaults import default_namespace
from fakeapi.kinds.pod.defaults import default_pod, image_pull_policy
from fakeapi.kinds.pod.qos import GUARANTEED, qos_class
from fakeapi.machinery.types import JSON

DIGEST = "sha256:" + "a" * 64


def make_pod(**spec: Any) -> JSON:
    base: JSON = {"containers": [{"name": "c", "image": "nginx:1.25"}]}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}, "spec": base}


def with_container(**fields: Any) -> JSON:
    return make_pod(containers=[{"name": "c", "image": "nginx:1.25", **fields}])


def defaulted(pod: JSON) -> JSON:
    default_pod(pod)
    return pod


def at(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    return obj


SPEC_DEFAULTS = [
    ("spec.dnsPolicy", "ClusterFirst"),
    ("spec.restartPolicy", "Always"),
    ("spec.securityContext", {}),
    ("spec.terminationGracePeriodSeconds", 30),
    ("spec.schedulerName", "default-scheduler"),
    ("spec.enableServiceLinks", True),
    ("spec.containers.0.imagePullPolicy", "IfNotPresent"),
    ("spec.containers.0.terminationMessagePath", "/dev/termination-log"),
    ("spec.containers.0.terminationMessagePolicy", "File"),
]


@pytest.mark.parametrize(("path", "value"), SPEC_DEFAULTS)
def test_minimal_pod_gets_spec_and_container_defaults(path: str, value: Any) -> None:
    assert at(defaulted(make_pod()), path) == value


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("dnsPolicy", "Default"),
        ("restartPolicy", "Never"),
        ("securityContext", {"runAsUser": 1000}),
        ("terminationGracePeriodSeconds", 0),
        ("terminationGracePeriodSeconds", -5),
        ("schedulerName", "mine"),
        ("enableServiceLinks", False),
    ],
)
def test_explicit_spec_values_are_kept(field: str, value: Any) -> None:
    assert defaulted(make_pod(**{field: value}))["spec"][field] == value


def test_a_pod_without_spec_gets_a_defaulted_spec() -> None:
    pod: JSON = {"metadata": {"name": "p"}}
    default_pod(pod)
    assert pod["spec"]["restartPolicy"] == "Always"
    assert "containers" not in pod["spec"]


# (what the container sets, path inside the defaulted container, expected value)
CONTAINER_DEFAULTS = [
    ({"ports": [{"containerPort": 80}]}, "ports.0.protocol", "TCP"),
    ({"ports": [{"containerPort": 80, "protocol": "UDP"}]}, "ports.0.protocol", "UDP"),
    (
        {"env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]},
        "env.0.valueFrom.fieldRef.apiVersion",
        "v1",
    ),
    (
        {
            "env": [
                {
                    "name": "N",
                    "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1000m"}},
                }
            ]
        },
        "env.0.valueFrom.resourceFieldRef.divisor",
        "1",
    ),
    ({"livenessProbe": {"exec": {"command": ["true"]}}}, "livenessProbe.timeoutSeconds", 1),
    ({"livenessProbe": {"exec": {"command": ["true"]}}}, "livenessProbe.periodSeconds", 10),
    ({"livenessProbe": {"exec": {"command": ["true"]}}}, "livenessProbe.successThreshold", 1),
    ({"livenessProbe": {"exec": {"command": ["true"]}}}, "livenessProbe.failureThreshold", 3),
    ({"readinessProbe": {"httpGet": {"port": 80}}}, "readinessProbe.httpGet.path", "/"),
    ({"readinessProbe": {"httpGet": {"port": 80}}}, "readinessProbe.httpGet.scheme", "HTTP"),
    ({"startupProbe": {"grpc": {"port": 9000}}}, "startupProbe.grpc.service", ""),
    ({"startupProbe": {"tcpSocket": {"port": 80}, "periodSeconds": 7}}, "startupProbe.periodSeconds", 7),
    ({"lifecycle": {"preStop": {"httpGet": {"port": 80}}}}, "lifecycle.preStop.httpGet.path", "/"),
    ({"lifecycle": {"postStart": {"httpGet": {"port": 80}}}}, "lifecycle.postStart.httpGet.scheme", "HTTP"),
    ({"imagePullPolicy": "Never"}, "imagePullPolicy", "Never"),
    (
        {"terminationMessagePolicy": "FallbackToLogsOnError"},
        "terminationMessagePolicy",
        "FallbackToLogsOnError",
    ),
    ({"resources": {"limits": {"cpu": "1n"}}}, "resources.limits.cpu", "1m"),  # TestSetMinimumScalePod
    ({"resources": {"requests": {"memory": "1024Mi"}}}, "resources.requests.memory", "1Gi"),
    ({"resources": {"requests": {"cpu": "0.1"}}}, "resources.requests.cpu", "100m"),
    ({"resources": {"requests": {"cpu": 2}}}, "resources.requests.cpu", "2"),
    ({"resources": {"requests": {"cpu": None}}}, "resources.requests.cpu", "0"),
    ({"resources": {"requests": {"cpu": "lots"}}}, "resources.requests.cpu", "lots"),  # left for validation
    ({"resources": {"requests": {"cpu": True}}}, "resources.requests.cpu", True),
    ({"resources": {"limits": {"cpu": "1000m"}}}, "resources.limits.cpu", "1"),
]


@pytest.mark.parametrize(("fields", "path", "value"), CONTAINER_DEFAULTS)
@pytest.mark.parametrize("kind", ["containers", "initContainers", "ephemeralContainers"])
def test_container_defaults_apply_to_every_kind_of_container(
    kind: str, fields: JSON, path: str, value: Any
) -> None:
    pod = make_pod(**{kind: [{"name": "x", "image": "busybox:1.36", **fields}]})
    assert at(defaulted(pod)["spec"][kind][0], path) == value


@pytest.mark.parametrize(
    ("resources", "requests"),
    [
        ({"limits": {"cpu": "500m", "memory": "1Gi"}}, {"cpu": "500m", "memory": "1Gi"}),
        # TestSetDefaultRequestsPod: an explicit "0" request is kept
        ({"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "0"}}, {"cpu": "0", "memory": "1Gi"}),
        ({"limits": {"cpu": "1000m"}, "requests": None}, {"cpu": "1"}),
        (
            {"limits": {"example.com/gpu": "1"}, "requests": {"cpu": "1"}},
            {"cpu": "1", "example.com/gpu": "1"},
        ),
    ],
)
@pytest.mark.parametrize("kind", ["containers", "initContainers"])
def test_requests_are_copied_from_limits(kind: str, resources: JSON, requests: JSON) -> None:
    pod = make_pod(**{kind: [{"name": "x", "image": "busybox:1.36", "resources": resources}]})
    assert defaulted(pod)["spec"][kind][0]["resources"]["requests"] == requests


def test_ephemeral_containers_do_not_get_requests_from_limits() -> None:
    pod = make_pod(
        ephemeralContainers=[{"name": "e", "image": "busybox", "resources": {"limits": {"cpu": "1"}}}]
    )
    assert "requests" not in defaulted(pod)["spec"]["ephemeralContainers"][0]["resources"]


def test_limits_only_container_becomes_guaranteed_after_defaulting() -> None:
    pod = with_container(resources={"limits": {"cpu": "500m", "memory": "128Mi"}})
    assert qos_class(defaulted(pod)) == GUARANTEED


def test_empty_limits_add_no_requests() -> None:
    pod = with_container(resources={"limits": {}})
    assert defaulted(pod)["spec"]["containers"][0]["resources"] == {"limits": {}}


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("docker.io/library/nginx", "Always"),
        ("registry.example.com:5000/team/app", "Always"),
        ("localhost/app:latest", "Always"),
        (f"nginx:latest@{DIGEST}", "Always"),
        ("nginx:1.25", "IfNotPresent"),
        (f"nginx@{DIGEST}", "IfNotPresent"),
        (f"nginx:1.25@{DIGEST}", "IfNotPresent"),
        ("registry.example.com:5000/app:v2", "IfNotPresent"),
        ("nginx:Latest", "IfNotPresent"),  # tags are case-sensitive
        ("", "IfNotPresent"),  # unparseable
        (" nginx", "IfNotPresent"),
        ("Nginx", "IfNotPresent"),  # repository names must be lowercase
        ("a" * 64, "IfNotPresent"),  # a bare 64-hex id is refused
        ("nginx@sha256:abc", "IfNotPresent"),  # a digest too short
        (f"nginx@md5:{'a' * 32}", "IfNotPresent"),  # an unsupported digest algorithm
        ("-nginx", "IfNotPresent"),
        (None, "IfNotPresent"),
    ],
)
def test_image_pull_policy_follows_the_tag_rule(image: Any, policy: str) -> None:
    assert image_pull_policy(image) == policy
    assert defaulted(with_container(image=image))["spec"]["containers"][0]["imagePullPolicy"] == policy


def test_host_network_copies_container_ports_to_host_ports() -> None:
    ports = [{"containerPort": 80}, {"containerPort": 443, "hostPort": 8443}, {"name": "no-port"}]
    pod = make_pod(
        hostNetwork=True,
        containers=[{"name": "c", "image": "i", "ports": copy.deepcopy(ports)}],
        initContainers=[{"name": "i", "image": "i", "ports": [{"containerPort": 81}]}],
    )
    spec = defaulted(pod)["spec"]
    assert [p.get("hostPort") for p in spec["containers"][0]["ports"]] == [80, 8443, None]
    assert spec["initContainers"][0]["ports"][0]["hostPort"] == 81


def test_without_host_network_host_ports_stay_unset() -> None:
    pod = with_container(ports=[{"containerPort": 80}])
    assert "hostPort" not in defaulted(pod)["spec"]["containers"][0]["ports"][0]


VOLUME_DEFAULTS = [
    ({"name": "v"}, "emptyDir", {}),
    ({"name": "v", "hostPath": None}, "emptyDir", {}),
    ({"name": "v", "secret": {"secretName": "s"}}, "secret.defaultMode", 420),
    ({"name": "v", "secret": {"secretName": "s", "defaultMode": 256}}, "secret.defaultMode", 256),
    ({"name": "v", "configMap": {"name": "c"}}, "configMap.defaultMode", 420),
    (
        {"name": "v", "downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
        "downwardAPI.defaultMode",
        420,
    ),
    (
        {"name": "v", "downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
        "downwardAPI.items.0.fieldRef.apiVersion",
        "v1",
    ),
    (
        {"name": "v", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
        "projected.defaultMode",
        420,
    ),
    (
        {"name": "v", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
        "projected.sources.0.serviceAccountToken.expirationSeconds",
        3600,
    ),
    (
        {
            "name": "v",
            "projected": {"sources": [{"downwardAPI": {"items": [{"path": "n", "fieldRef": {}}]}}]},
        },
        "projected.sources.0.downwardAPI.items.0.fieldRef.apiVersion",
        "v1",
    ),
    ({"name": "v", "hostPath": {"path": "/data"}}, "hostPath.type", ""),
    ({"name": "v", "hostPath": {"path": "/data", "type": "Directory"}}, "hostPath.type", "Directory"),
    ({"name": "v", "emptyDir": {"sizeLimit": "1024Mi"}}, "emptyDir.sizeLimit", "1Gi"),
    ({"name": "v", "iscsi": {"targetPortal": "t", "iqn": "i", "lun": 0}}, "iscsi.iscsiInterface", "default"),
    ({"name": "v", "rbd": {"monitors": ["m"], "image": "i"}}, "rbd.keyring", "/etc/ceph/keyring"),
    ({"name": "v", "azureDisk": {"diskName": "d", "diskURI": "u"}}, "azureDisk.cachingMode", "ReadWrite"),
    ({"name": "v", "azureDisk": {"diskName": "d", "diskURI": "u"}}, "azureDisk.readOnly", False),
    (
        {"name": "v", "scaleIO": {"gateway": "g", "system": "s", "secretRef": {}}},
        "scaleIO.storageMode",
        "ThinProvisioned",
    ),
    (
        {
            "name": "v",
            "ephemeral": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "1.5Gi"}}}}},
        },
        "ephemeral.volumeClaimTemplate.spec.resources.requests.storage",
        "1536Mi",
    ),
    (
        {"name": "v", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
        "ephemeral.volumeClaimTemplate.spec.volumeMode",
        "Filesystem",
    ),
]


@pytest.mark.parametrize(("volume", "path", "value"), VOLUME_DEFAULTS)
def test_volume_defaults(volume: JSON, path: str, value: Any) -> None:
    pod = make_pod(volumes=[copy.deepcopy(volume)])
    assert at(defaulted(pod)["spec"]["volumes"][0], path) == value


def test_a_volume_with_a_source_gets_no_empty_dir() -> None:
    pod = make_pod(volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}])
    assert "emptyDir" not in defaulted(pod)["spec"]["volumes"][0]


@pytest.mark.parametrize(
    ("spec", "account"),
    [
        ({"serviceAccountName": "sa"}, "sa"),
        ({"serviceAccount": "old"}, "old"),
        ({"serviceAccountName": "new", "serviceAccount": "old"}, "new"),
    ],
)
def test_service_account_fields_mirror_each_other(spec: JSON, account: str) -> None:
    pod_spec = defaulted(make_pod(**spec))["spec"]
    assert (pod_spec["serviceAccountName"], pod_spec["serviceAccount"]) == (account, account)


def test_no_service_account_stays_absent() -> None:
    pod_spec = defaulted(make_pod())["spec"]
    assert "serviceAccount" not in pod_spec and "serviceAccountName" not in pod_spec


def test_overhead_quantities_are_rounded() -> None:
    assert defaulted(make_pod(overhead={"cpu": "1n"}))["spec"]["overhead"] == {"cpu": "1m"}


def test_pod_level_requests_default_from_container_requests_then_pod_limits() -> None:
    pod = make_pod(
        containers=[
            {"name": "a", "image": "i", "resources": {"requests": {"cpu": "100m"}}},
            {"name": "b", "image": "i", "resources": {"requests": {"cpu": "200m"}}},
        ],
        resources={"limits": {"cpu": "1", "memory": "1Gi"}},
    )
    assert defaulted(pod)["spec"]["resources"]["requests"] == {"cpu": "300m", "memory": "1Gi"}


def test_pod_level_limits_default_from_containers_when_all_have_one() -> None:
    pod = make_pod(
        containers=[
            {"name": "a", "image": "i", "resources": {"limits": {"memory": "100Mi", "cpu": "1"}}},
            {"name": "b", "image": "i", "resources": {"limits": {"memory": "100Mi"}}},
        ],
        resources={"requests": {"memory": "150Mi"}},
    )
    assert defaulted(pod)["spec"]["resources"] == {
        "requests": {"memory": "150Mi"},
        "limits": {"memory": "200Mi"},
    }


def test_pod_level_requests_take_the_larger_of_init_and_regular_containers() -> None:
    pod = make_pod(
        containers=[{"name": "a", "image": "i", "resources": {"requests": {"cpu": "100m"}}}],
        initContainers=[
            {
                "name": "sidecar",
                "image": "i",
                "restartPolicy": "Always",
                "resources": {"requests": {"cpu": "50m"}},
            },
            {"name": "init", "image": "i", "resources": {"requests": {"cpu": "500m"}}},
        ],
        resources={"limits": {"cpu": "1"}},
    )
    assert defaulted(pod)["spec"]["resources"]["requests"] == {"cpu": "550m"}


def test_container_status_quantities_are_rounded_and_pod_ips_mirrored() -> None:
    pod = make_pod()
    pod["status"] = {
        "podIP": "10.0.0.1",
        "containerStatuses": [
            {"name": "c", "allocatedResources": {"cpu": "1n"}, "resources": {"limits": {"memory": "1024Ki"}}}
        ],
    }
    status = defaulted(pod)["status"]
    assert status["containerStatuses"][0]["allocatedResources"] == {"cpu": "1m"}
    assert status["containerStatuses"][0]["resources"]["limits"] == {"memory": "1Mi"}
    assert status["podIPs"] == [{"ip": "10.0.0.1"}]


@pytest.mark.parametrize(
    ("status", "pod_ip", "pod_ips"),
    [
        (
            {"podIPs": [{"ip": "10.0.0.2"}, {"ip": "fd00::2"}]},
            "10.0.0.2",
            [{"ip": "10.0.0.2"}, {"ip": "fd00::2"}],
        ),
        ({"podIP": "10.0.0.3", "podIPs": [{"ip": "10.0.0.2"}]}, "10.0.0.3", [{"ip": "10.0.0.3"}]),
        (
            {"podIP": "10.0.0.2", "podIPs": [{"ip": "10.0.0.2"}, {"ip": "fd00::2"}]},
            "10.0.0.2",
            [{"ip": "10.0.0.2"}, {"ip": "fd00::2"}],
        ),
    ],
)
def test_pod_ip_and_pod_ips_agree(status: JSON, pod_ip: str, pod_ips: list[JSON]) -> None:
    pod = make_pod()
    pod["status"] = status
    assert (defaulted(pod)["status"]["podIP"], pod["status"]["podIPs"]) == (pod_ip, pod_ips)


def test_legacy_init_container_annotations_are_dropped() -> None:
    pod = make_pod()
    pod["metadata"]["annotations"] = {"pod.beta.kubernetes.io/init-containers": "[]", "keep": "me"}
    assert defaulted(pod)["metadata"]["annotations"] == {"keep": "me"}


def test_annotations_left_empty_by_the_legacy_drop_are_left_out() -> None:
    pod = make_pod()
    pod["metadata"]["annotations"] = {"pod.alpha.kubernetes.io/init-container-statuses": "[]"}
    assert "annotations" not in defaulted(pod)["metadata"]


def test_defaulting_is_idempotent() -> None:
    pod = with_container(
        resources={"limits": {"cpu": "0.5", "memory": "1024Mi"}},
        livenessProbe={"httpGet": {"port": 80}},
        ports=[{"containerPort": 80}],
    )
    once = copy.deepcopy(defaulted(pod))
    assert defaulted(pod) == once


@pytest.mark.parametrize(
    "spec",
    [
        {"containers": "nope"},
        {"containers": [None, 3, "x", {"name": "ok", "resources": {"limits": "x", "requests": []}}]},
        {"containers": [{"name": "c", "resources": {"limits": {"cpu": "1"}, "requests": "bad"}}]},
        {
            "containers": [
                {"name": "c", "ports": "80", "env": {"a": 1}, "livenessProbe": [], "lifecycle": "x"}
            ]
        },
        {"volumes": ["v", {"name": "v", "secret": "s", "projected": {"sources": "x"}}]},
        {"hostNetwork": True, "containers": [{"name": "c", "ports": [None, {"containerPort": "80"}]}]},
        {"resources": {"limits": "x"}},
        {"resources": {"limits": {"cpu": "many"}}, "containers": [{"resources": {"requests": {"cpu": {}}}}]},
        {"securityContext": None, "terminationGracePeriodSeconds": None},
    ],
)
def test_malformed_shapes_are_skipped_without_crashing(spec: JSON) -> None:
    pod = {"metadata": {"name": "p"}, "spec": spec, "status": {"containerStatuses": "x", "podIPs": "y"}}
    default_pod(pod)
    assert pod["spec"]["restartPolicy"] == "Always"


def test_a_spec_that_is_not_an_object_is_left_alone() -> None:
    pod: JSON = {"spec": ["x"]}
    default_pod(pod)
    assert pod == {"spec": ["x"]}


@pytest.mark.parametrize(
    ("metadata", "labels"),
    [
        ({"name": "team-a"}, {"kubernetes.io/metadata.name": "team-a"}),
        ({"name": "team-a", "labels": {"x": "y"}}, {"x": "y", "kubernetes.io/metadata.name": "team-a"}),
        (
            {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "other"}},
            {"kubernetes.io/metadata.name": "team-a"},
        ),
    ],
)
def test_namespace_gets_its_name_label(metadata: JSON, labels: JSON) -> None:
    namespace: JSON = {"metadata": metadata}
    default_namespace(namespace)
    assert namespace["metadata"]["labels"] == labels


def test_nameless_namespace_gets_no_label() -> None:
    namespace: JSON = {"metadata": {"generateName": "ns-"}}
    default_namespace(namespace)
    assert "labels" not in namespace["metadata"]


@pytest.mark.parametrize(
    ("spec", "finalizers"),
    [
        (None, ["kubernetes"]),
        ({"finalizers": []}, ["kubernetes"]),
        ({"finalizers": ["example.com/x"]}, ["example.com/x", "kubernetes"]),
        ({"finalizers": ["kubernetes"]}, ["kubernetes"]),
    ],
)
def test_namespace_create_adds_the_kubernetes_finalizer(spec: JSON | None, finalizers: list[str]) -> None:
    namespace: JSON = {"metadata": {"name": "n"}}
    if spec is not None:
        namespace["spec"] = spec
    default_namespace(namespace, creating=True)
    assert namespace["spec"]["finalizers"] == finalizers


def test_namespace_update_does_not_readd_the_finalizer() -> None:
    namespace: JSON = {"metadata": {"name": "n"}, "spec": {"finalizers": []}}
    default_namespace(namespace)
    assert namespace["spec"]["finalizers"] == []
