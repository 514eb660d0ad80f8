"""The schemas: one per kind, upstream field order and patch metadata, custom fields, PatchTree, OpenAPI."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema, ValidationError, fields

from fakeapi.cluster import KINDS
from fakeapi.kinds.configmap.schema import ConfigMapSchema
from fakeapi.kinds.event.schema import EventSchema
from fakeapi.kinds.lease.schema import LeaseSchema, LeaseSpecSchema
from fakeapi.kinds.namespace.schema import NamespaceSchema
from fakeapi.kinds.node.schema import NodeSchema, NodeSpecSchema, NodeStatusSchema, NodeSystemInfoSchema
from fakeapi.kinds.pod.schema.binding import BindingSchema
from fakeapi.kinds.pod.schema.container import ContainerSchema, EphemeralContainerSchema
from fakeapi.kinds.pod.schema.pod import PodSchema, PodSpecSchema
from fakeapi.kinds.pod.schema.status import PodStatusSchema
from fakeapi.kinds.secret.schema import SecretSchema
from fakeapi.kinds.serviceaccount.schema import ServiceAccountSchema
from fakeapi.machinery.schemas.base import K8sSchema
from fakeapi.machinery.schemas.meta import DeleteOptionsSchema, ObjectMetaSchema, StatusSchema
from fakeapi.machinery.schemas.patchtree import patch_tree

TOP_LEVEL: dict[str, type[Schema]] = {
    "Pod": PodSchema, "Namespace": NamespaceSchema, "Event": EventSchema, "Node": NodeSchema, "Lease": LeaseSchema,
    "Binding": BindingSchema, "DeleteOptions": DeleteOptionsSchema, "Status": StatusSchema,
    "ConfigMap": ConfigMapSchema, "Secret": SecretSchema, "ServiceAccount": ServiceAccountSchema,
}


def reachable_schemas() -> Iterator[type[Schema]]:
    seen: set[type[Schema]] = set()
    pending: list[type[Schema]] = [*TOP_LEVEL.values()]
    while pending:
        schema_class = pending.pop()
        if schema_class in seen:
            continue
        seen.add(schema_class)
        yield schema_class
        for declared in schema_class._declared_fields.values():
            target = declared.inner if isinstance(declared, fields.List) else declared
            if isinstance(target, fields.Nested):
                pending.append(type(target.schema))


def test_each_stored_kind_brings_its_schema() -> None:
    assert {kind.info.kind: type(kind.schema) for kind in KINDS} == {
        "Pod": PodSchema, "Namespace": NamespaceSchema, "Event": EventSchema, "Node": NodeSchema,
        "Lease": LeaseSchema, "ConfigMap": ConfigMapSchema, "Secret": SecretSchema,
        "ServiceAccount": ServiceAccountSchema}


@pytest.mark.parametrize(
    ("schema_class", "first_fields"),
    [
        (PodSchema, ["kind", "apiVersion", "metadata", "spec", "status"]),
        (ObjectMetaSchema, ["name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
                            "generation", "creationTimestamp", "deletionTimestamp"]),
        (PodSpecSchema, ["volumes", "initContainers", "containers", "ephemeralContainers", "restartPolicy",
                         "terminationGracePeriodSeconds", "activeDeadlineSeconds", "dnsPolicy"]),
        (ContainerSchema, ["name", "image", "command", "args", "workingDir", "ports", "envFrom", "env"]),
        (PodStatusSchema, ["observedGeneration", "phase", "conditions", "message", "reason",
                           "nominatedNodeName", "hostIP", "hostIPs", "podIP", "podIPs", "startTime"]),
        (NodeSpecSchema, ["podCIDR", "podCIDRs", "providerID", "unschedulable", "taints", "configSource",
                          "externalID"]),
        (NodeStatusSchema, ["capacity", "allocatable", "phase", "conditions", "addresses", "daemonEndpoints",
                            "nodeInfo", "images", "volumesInUse", "volumesAttached", "config", "runtimeHandlers",
                            "features"]),
        (NodeSystemInfoSchema, ["machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
                                "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion", "operatingSystem",
                                "architecture"]),
        (LeaseSpecSchema, ["holderIdentity", "leaseDurationSeconds", "acquireTime", "renewTime", "leaseTransitions",
                           "strategy", "preferredHolder"]),
        (ConfigMapSchema, ["kind", "apiVersion", "metadata", "immutable", "data", "binaryData"]),
        (SecretSchema, ["kind", "apiVersion", "metadata", "immutable", "data", "stringData", "type"]),
        (ServiceAccountSchema, ["kind", "apiVersion", "metadata", "secrets", "imagePullSecrets",
                                "automountServiceAccountToken"]),
    ],
)
def test_fields_are_declared_in_upstream_go_struct_order(
    schema_class: type[Schema], first_fields: list[str]
) -> None:
    assert list(schema_class._declared_fields)[: len(first_fields)] == first_fields


def test_ephemeral_container_has_every_container_field_plus_its_target() -> None:
    assert list(EphemeralContainerSchema._declared_fields) == [*ContainerSchema._declared_fields,
                                                                "targetContainerName"]


def test_every_reachable_schema_is_named_after_its_upstream_definition() -> None:
    names = {schema_class: getattr(schema_class, "openapi_name", "") for schema_class in reachable_schemas()}
    assert all(name.startswith(("io.k8s.api.core.v1.", "io.k8s.api.coordination.v1.",
                                "io.k8s.apimachinery.pkg.apis.meta.v1.")) and
               name.endswith("." + schema_class.__name__.removesuffix("Schema"))
               for schema_class, name in names.items())
    assert len(set(names.values())) == len(names)
    assert len(names) > 90


def test_every_field_has_a_description() -> None:
    missing = [f"{schema_class.__name__}.{name}" for schema_class in reachable_schemas()
               for name, declared in schema_class._declared_fields.items()
               if len(declared.metadata.get("description", "")) < 5]
    assert missing == []


RESERVED = {"$mergeKey", "$strategy", "$listType", "$listMapKeys"}
ATOMIC = {"$listType": "atomic"}


def merged_map(key: str, *map_keys: str, strategy: str = "merge") -> dict[str, Any]:
    """Patch metadata of a list merged by `key` (upstream: patchMergeKey + listType=map)."""
    keys = list(map_keys) or [key]
    return {"$mergeKey": key, "$strategy": strategy, "$listType": "map", "$listMapKeys": keys}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (("spec", "containers"), merged_map("name")),
        (("spec", "initContainers"), merged_map("name")),
        (("spec", "ephemeralContainers"), merged_map("name")),
        (("spec", "containers", "env"), merged_map("name")),
        (("spec", "containers", "ports"), merged_map("containerPort", "containerPort", "protocol")),
        (("spec", "ephemeralContainers", "ports"), merged_map("containerPort", "containerPort", "protocol")),
        (("spec", "initContainers", "volumeMounts"), merged_map("mountPath")),
        (("spec", "containers", "volumeDevices"), merged_map("devicePath")),
        (("spec", "containers", "command"), ATOMIC),
        (("spec", "volumes"), merged_map("name", strategy="merge,retainKeys")),
        (("spec", "imagePullSecrets"), merged_map("name")),
        (("spec", "hostAliases"), merged_map("ip")),
        (("spec", "tolerations"), ATOMIC),
        (("spec", "readinessGates"), ATOMIC),
        (("spec", "topologySpreadConstraints"),
         merged_map("topologyKey", "topologyKey", "whenUnsatisfiable")),
        (("spec", "schedulingGates"), merged_map("name")),
        (("spec", "resourceClaims"), merged_map("name", strategy="merge,retainKeys")),
        (("status", "conditions"), merged_map("type")),
        (("status", "podIPs"), merged_map("ip")),
        (("status", "hostIPs"), {"$mergeKey": "ip", "$strategy": "merge", "$listType": "atomic"}),
        (("status", "containerStatuses"), ATOMIC),
        (("status", "resourceClaimStatuses"), merged_map("name", strategy="merge,retainKeys")),
        (("metadata", "ownerReferences"), merged_map("uid")),
        (("metadata", "finalizers"), {"$strategy": "merge", "$listType": "set"}),
        (("spec", "containers", "resources"), {}),
        (("spec", "affinity", "nodeAffinity"), {}),
    ],
)
def test_pod_patch_tree_carries_upstream_patch_metadata(
    path: tuple[str, ...], expected: dict[str, Any]
) -> None:
    node = patch_tree(PodSchema)
    for name in path:
        node = node[name]
    assert {key: value for key, value in node.items() if key in RESERVED} == expected


def test_patch_tree_nests_object_fields_and_skips_scalars_and_free_maps() -> None:
    tree = patch_tree(PodSchema)
    assert set(tree) == {"metadata", "spec", "status"}
    assert "nodeName" not in tree["spec"] and "labels" not in tree["metadata"]
    assert "livenessProbe" in tree["spec"]["containers"]
    assert tree["spec"]["containers"]["livenessProbe"]["httpGet"]["httpHeaders"] == {"$listType": "atomic"}
    assert tree["spec"]["volumes"]["projected"]["sources"]["$listType"] == "atomic"


def test_service_account_patch_tree_merges_secrets_by_name_and_pull_secrets_atomically() -> None:
    tree = patch_tree(ServiceAccountSchema)
    assert {key: value for key, value in tree["secrets"].items() if key in RESERVED} == merged_map("name")
    assert tree["imagePullSecrets"] == ATOMIC


def test_patch_tree_of_a_schema_class_and_of_its_instance_agree() -> None:
    assert patch_tree(PodSchema) == patch_tree(PodSchema())
    assert patch_tree(NamespaceSchema)["status"]["conditions"]["$mergeKey"] == "type"


@pytest.mark.parametrize(
    ("field", "value", "loaded"),
    [
        ("containerPort", 8080, 8080),
        ("hostPort", None, "error"),
        ("containerPort", 2**31, "error"),
        ("containerPort", True, "error"),
        ("containerPort", 1.5, "error"),
    ],
)
def test_int32_fields_load_like_go(field: str, value: Any, loaded: Any) -> None:
    schema = ContainerSchema()
    port = {field: value} if field == "containerPort" else {"containerPort": 1, field: value}
    try:
        result = schema.load({"name": "a", "ports": [port]})["ports"][0][field]
    except ValidationError:
        result = "error"
    assert result == loaded


def test_custom_fields_load_and_normalise() -> None:
    loaded = PodSchema().load({
        "metadata": {"creationTimestamp": "2024-05-01T12:00:00+02:00", "labels": {"a": "b"}},
        "spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": 1}},
                                 "readinessProbe": {"httpGet": {"port": "http"}}}]},
    })
    assert loaded["metadata"]["creationTimestamp"] == "2024-05-01T10:00:00Z"
    assert loaded["spec"]["containers"][0]["resources"]["limits"] == {"cpu": "1"}
    assert loaded["spec"]["containers"][0]["readinessProbe"]["httpGet"]["port"] == "http"


@pytest.mark.parametrize(
    "pod",
    [
        {"metadata": {"creationTimestamp": "soon"}},
        {"spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "lots"}}}]}},
        {"spec": {"containers": [{"name": "a", "readinessProbe": {"tcpSocket": {"port": False}}}]}},
        {"metadata": {"labels": {"a": 1}}},
    ],
)
def test_custom_fields_reject_what_upstream_rejects(pod: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        PodSchema().load(pod)


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    spec = APISpec(title="fakeapi", version="v1.32", openapi_version="3.0.2", plugins=[MarshmallowPlugin()])
    for kind, schema in TOP_LEVEL.items():
        spec.components.schema(kind, schema=schema)
    components: dict[str, Any] = spec.to_dict()["components"]["schemas"]
    return components


def test_openapi_carries_descriptions_formats_and_extensions(openapi: dict[str, Any]) -> None:
    port = openapi["ContainerPort"]
    assert port["required"] == ["containerPort"]
    assert port["properties"]["containerPort"]["format"] == "int32"
    ports = openapi["Container"]["properties"]["ports"]
    assert ports["x-kubernetes-patch-merge-key"] == "containerPort"
    assert ports["x-kubernetes-list-map-keys"] == ["containerPort", "protocol"]
    assert ports["items"] == {"$ref": "#/components/schemas/ContainerPort"}
    assert openapi["HTTPGetAction"]["properties"]["port"]["x-kubernetes-int-or-string"] is True
    assert openapi["ObjectMeta"]["properties"]["creationTimestamp"]["format"] == "date-time"
    assert "continue" in openapi["ListMeta"]["properties"]
    assert openapi["PodSpec"]["properties"]["nodeName"]["description"].startswith("NodeName indicates")
    assert "additionalProperties" not in openapi["PodSpec"]


def test_every_schema_is_a_k8s_schema() -> None:
    assert all(issubclass(schema_class, K8sSchema) for schema_class in reachable_schemas())
