"""Protobuf messages walked by their kind's compiled schema: bodies hand-encoded here, field by field, with
the numbers of upstream's generated.proto, and the JSON a Go client would send for them."""

from __future__ import annotations

import struct

import pytest

from fakeapi.http.protobuf import decode_k8s_protobuf
from fakeapi.machinery.protobuf.message import decode_message
from fakeapi.machinery.protobuf.wire import Malformed
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON
from tests.unit.test_protobuf import envelope, integer, key, map_entry, message, string, varint


# --- the rest of a tiny encoder (varints, keys, messages and strings come from test_protobuf) -----------
def signed(number: int, value: int) -> bytes:
    """An intN field: a negative number is sent as its 64-bit two's complement (ten bytes)."""
    return integer(number, value & (1 << 64) - 1)


def packed(number: int, values: list[int]) -> bytes:
    return message(number, b"".join(varint(value & (1 << 64) - 1) for value in values))


def double(number: int, value: float) -> bytes:
    return key(number, 1) + struct.pack("<d", value)


def quantity(number: int, text: str) -> bytes:
    return message(number, string(1, text))


def quantities(number: int, **values: str) -> bytes:
    """A map<string, Quantity> (a ResourceList)."""
    return b"".join(message(number, string(1, name) + quantity(2, text)) for name, text in values.items())


def int_or_string(number: int, value: int | str) -> bytes:
    if isinstance(value, str):
        return message(number, integer(1, 1) + integer(2, 0) + string(3, value))
    return message(number, integer(1, 0) + integer(2, value) + string(3, ""))


def timestamp(number: int, seconds: int, nanos: int = 0) -> bytes:
    return message(number, signed(1, seconds) + signed(2, nanos))


def decode(definition: str, payload: bytes) -> JSON:
    return decode_message(memoryview(payload), KUBERNETES_1_32.schema(f"io.k8s.api.{definition}"))


# --- a Pod, as a typed client sends it ------------------------------------------------------------------
POD_META = (string(1, "web") + string(2, "") + string(3, "default") + integer(7, 0) + timestamp(8, 1700000000, 999)
            + map_entry(11, "app", "web") + map_entry(11, "tier", "front"))
CONTAINER = (
    string(1, "web") + string(2, "nginx:1.27") + string(3, "nginx") + string(3, "-g") + string(4, "")
    + message(6, string(1, "http") + integer(2, 0) + integer(3, 80) + string(4, "TCP"))
    + message(7, string(1, "MODE") + string(2, "prod"))
    + message(7, string(1, "POD_NAME") + message(3, message(1, string(1, "v1") + string(2, "metadata.name"))))
    + message(8, quantities(1, cpu="500m", memory="128Mi") + quantities(2, cpu="250m"))
    + message(9, string(1, "data") + integer(2, 1) + string(3, "/data"))
    # Probe{1: ProbeHandler{2: httpGet}, 2: initialDelaySeconds}: the handler is inlined in JSON
    + message(10, message(1, message(2, string(1, "/healthz") + int_or_string(2, "http") + string(4, "HTTP")))
              + integer(2, 3) + integer(3, 1))
    + message(11, message(1, message(3, int_or_string(1, 80))))
    + string(13, "/dev/termination-log") + string(14, "IfNotPresent") + message(15, b"")
    + integer(16, 0) + integer(17, 0) + integer(18, 0) + string(20, "File")
)
# Volume{1: name, 2: VolumeSource{...}}: the source is inlined in JSON
VOLUMES = (
    message(1, string(1, "data") + message(2, message(2, string(1, "") + quantity(2, "1Gi"))))
    + message(1, string(1, "cfg") + message(2, message(19, message(1, string(1, "settings"))
                                                          + message(2, string(1, "k") + string(2, "k.yaml"))
                                                          + integer(3, 0o644) + integer(4, 0))))
    + message(1, string(1, "root") + message(2, message(1, string(1, "/") + string(2, ""))))
)
POD_SPEC = (
    VOLUMES + message(2, CONTAINER) + string(3, "Always") + integer(4, 30) + string(6, "ClusterFirst")
    + map_entry(7, "disk", "ssd") + integer(11, 0) + message(14, packed(4, [1000, 2000]) + signed(2, -1))
    + message(22, string(2, "Exists") + string(4, "NoExecute") + integer(5, 300))
    # EphemeralContainer{1: EphemeralContainerCommon{...}, 2: targetContainerName}
    + message(34, message(1, string(1, "debug") + string(2, "busybox") + integer(16, 1)) + string(2, "web"))
)
POD_STATUS = string(1, "Pending") + timestamp(7, 1700000100) + string(9, "Burstable")


def test_a_pod_with_containers_probes_volumes_and_quantities_decodes_to_its_json() -> None:
    body = envelope(message(1, POD_META) + message(2, POD_SPEC) + message(3, POD_STATUS), kind="Pod")
    assert decode_k8s_protobuf(body) == {
        "apiVersion": "v1",
        "kind": "Pod",
        # a Time keeps whole seconds; generation 0 and the empty strings are Go's zero values
        "metadata": {"name": "web", "namespace": "default", "creationTimestamp": "2023-11-14T22:13:20Z",
                     "labels": {"app": "web", "tier": "front"}},
        "spec": {
            "volumes": [
                {"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
                {"name": "cfg", "configMap": {"name": "settings", "items": [{"key": "k", "path": "k.yaml"}],
                                              "defaultMode": 420, "optional": False}},
                {"name": "root", "hostPath": {"path": "/", "type": ""}},  # a *string is kept
            ],
            "containers": [{
                "name": "web", "image": "nginx:1.27", "command": ["nginx", "-g"], "args": [""],
                "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}],
                "env": [{"name": "MODE", "value": "prod"},
                        {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                                        "fieldPath": "metadata.name"}}}],
                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "250m"}},
                "volumeMounts": [{"name": "data", "readOnly": True, "mountPath": "/data"}],
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
                                  "initialDelaySeconds": 3, "timeoutSeconds": 1},
                "readinessProbe": {"tcpSocket": {"port": 80}},
                "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent",
                "securityContext": {},  # a pointer to an empty struct is kept
                "terminationMessagePolicy": "File",
            }],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
            "nodeSelector": {"disk": "ssd"},
            "securityContext": {"supplementalGroups": [1000, 2000], "runAsUser": -1},
            "tolerations": [{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
            "ephemeralContainers": [{"name": "debug", "image": "busybox", "stdin": True,
                                     "targetContainerName": "web"}],
        },
        "status": {"phase": "Pending", "startTime": "2023-11-14T22:15:00Z", "qosClass": "Burstable"},
    }


def test_repeated_numbers_come_packed_or_one_by_one_and_negatives_in_ten_bytes() -> None:
    context = packed(4, [1, 2]) + signed(4, -3) + packed(4, [1 << 40]) + signed(5, -2) + signed(6, -(1 << 40))
    assert decode("core.v1.PodSecurityContext", context) == {
        "supplementalGroups": [1, 2, -3, 1 << 40], "fsGroup": -2, "runAsGroup": -(1 << 40)}
    # an int32 keeps the low 32 bits of what was sent, as Go's decoder does
    assert decode("core.v1.ContainerPort", signed(3, -80) + integer(2, (1 << 32) + 8080)) == {
        "containerPort": -80, "hostPort": 8080}


def test_times_micro_times_and_zero_times() -> None:
    spec = string(1, "holder") + timestamp(3, 1700000000, 123456789) + timestamp(4, 1700000001, -1500)
    # MicroTime keeps microseconds (truncated toward zero); seconds 0 is the epoch, not the zero time
    assert decode("coordination.v1.LeaseSpec", spec) == {
        "holderIdentity": "holder", "acquireTime": "2023-11-14T22:13:20.123456Z",
        "renewTime": "2023-11-14T22:13:20.999999Z"}
    assert decode("coordination.v1.LeaseSpec", timestamp(4, 0)) == {"renewTime": "1970-01-01T00:00:00.000000Z"}
    # an empty Timestamp, or one at 0001-01-01, is Go's zero time, written as null: left out
    assert decode("core.v1.PodStatus", message(7, b"") + string(1, "Running")) == {"phase": "Running"}
    assert decode("core.v1.PodStatus", timestamp(7, -62135596800)) == {}
    with pytest.raises(Malformed):  # past the year 9999 Go's encoder writes
        decode("core.v1.PodStatus", timestamp(7, 1 << 40))


def test_int_or_string_quantity_and_raw_json_types() -> None:
    strategy = message(2, int_or_string(1, 0) + int_or_string(2, "25%"))
    assert decode("apps.v1.DeploymentStrategy", string(1, "RollingUpdate") + strategy) == {
        "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"}}
    with pytest.raises(Malformed):  # neither Int (0) nor String (1)
        decode("apps.v1.RollingUpdateDeployment", message(1, integer(1, 2)))
    # a Quantity message without its string is the zero Quantity
    assert decode("core.v1.EmptyDirVolumeSource", message(2, b"")) == {"sizeLimit": "0"}
    entry = (string(1, "kubectl") + string(2, "Update") + timestamp(4, 1700000000) + string(6, "FieldsV1")
             + message(7, message(1, b'{"f:data":{"f:a":{}}}')))
    assert decode_message(memoryview(message(17, entry)),
                          KUBERNETES_1_32.schema("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")) == {
        "managedFields": [{"manager": "kubectl", "operation": "Update", "time": "2023-11-14T22:13:20Z",
                           "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}]}
    assert decode("apps.v1.ControllerRevision", message(2, message(1, b'{"spec": [1, "x"]}')) + integer(3, 2)) == {
        "data": {"spec": [1, "x"]}, "revision": 2}
    with pytest.raises(Malformed):
        decode("apps.v1.ControllerRevision", message(2, message(1, b"{not json")))


def test_maps_of_bytes_of_lists_and_absent_map_values() -> None:
    assert decode("core.v1.ConfigMap", message(3, string(1, "bin") + message(2, b"\x00\xff"))
                  + message(3, string(1, "none")) + message(2, string(1, "novalue"))) == {
        "binaryData": {"bin": "AP8=", "none": ""}, "data": {"novalue": ""}}
    # a list in a map travels in a message of its own (ExtraValue{1: items})
    extra = message(5, string(1, "scopes") + message(2, string(1, "a") + string(1, "b"))) + message(5, string(1, "e"))
    assert decode("authorization.v1.SubjectAccessReviewSpec", string(3, "alice") + extra) == {
        "user": "alice", "extra": {"scopes": ["a", "b"], "e": []}}
    assert decode("core.v1.ResourceRequirements", message(1, string(1, "cpu"))) == {"limits": {"cpu": "0"}}


def test_go_zero_values_pointers_and_doubles() -> None:
    # value scalars at zero are left out, pointers are kept whatever their value
    assert decode("core.v1.Container", integer(16, 0) + string(14, "") + integer(18, 1)) == {"tty": True}
    assert decode("core.v1.SecretVolumeSource", integer(4, 0) + integer(3, 0)) == {"optional": False, "defaultMode": 0}
    props = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"
    assert decode_message(memoryview(double(9, 2.5) + double(11, 0.0) + integer(18, 0)),
                          KUBERNETES_1_32.schema(props)) == {"maximum": 2.5, "minimum": 0.0}


def test_the_unions_of_a_crds_schema_become_their_json_forms() -> None:
    def entry(name: str, props: bytes) -> bytes:  # map<string, JSONSchemaProps>
        return message(29, string(1, name) + message(2, props))

    tuple_items = message(24, message(2, string(5, "string")) + message(2, string(5, "integer")))
    schema = (
        string(5, "object") + string(23, "size")
        + entry("size", string(5, "integer") + double(9, 10.0) + message(8, message(1, b"3")))
        + entry("tags", string(5, "array") + message(24, message(1, string(5, "string"))))
        + entry("pair", string(5, "array") + tuple_items)
        + entry("labels", string(5, "object") + message(30, message(2, string(5, "string"))))
        + message(30, integer(1, 0)) + message(32, string(1, "a") + message(2, string(2, "b") + string(2, "c")))
        + message(20, message(1, b'"x"')) + message(20, message(1, b"")) + integer(38, 1)
    )
    props = KUBERNETES_1_32.schema("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")
    assert decode_message(memoryview(schema), props) == {
        "type": "object", "required": ["size"],
        "properties": {
            "size": {"type": "integer", "maximum": 10.0, "default": 3},
            "tags": {"type": "array", "items": {"type": "string"}},  # OrArray: its schema
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},  # ... or its schemas
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},  # OrBool: its schema
        },
        "additionalProperties": False,  # ... or its bool
        "dependencies": {"a": ["b", "c"]},  # OrStringArray: its strings
        "enum": ["x", None],  # a JSON without raw bytes is null
        "x-kubernetes-preserve-unknown-fields": True,
    }


def test_a_message_sent_twice_merges_and_a_scalar_sent_twice_keeps_the_last() -> None:
    twice = message(1, string(1, "a") + map_entry(11, "x", "1")) + message(1, string(1, "b") + map_entry(11, "y", "2"))
    assert decode("core.v1.ConfigMap", twice) == {"metadata": {"name": "b", "labels": {"x": "1", "y": "2"}}}
    volume = message(2, message(2, string(1, "Memory"))) + message(2, message(2, quantity(2, "1Gi")))
    assert decode("core.v1.Volume", volume) == {"emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}}


@pytest.mark.parametrize(
    "definition, payload",
    [
        pytest.param("core.v1.Container", integer(1, 5), id="string-as-varint"),
        pytest.param("core.v1.Container", message(16, b"\x01"), id="bool-as-bytes"),
        pytest.param("core.v1.Container", message(6, b"") + integer(6, 1), id="message-as-varint"),
        pytest.param("core.v1.Container", key(1, 1) + b"\x00" * 8, id="string-as-fixed64"),
        pytest.param("core.v1.Container", message(8, message(1, integer(1, 1))), id="map-key-as-varint"),
        pytest.param("core.v1.Volume", message(2, integer(1, 0)), id="inline-as-varint"),
        pytest.param("core.v1.Volume", message(2, message(2, message(2, b"\x0a\x05ab"))), id="truncated-quantity"),
        pytest.param("core.v1.ConfigMap", message(2, message(1, b"\x0a\xff")), id="map-key-not-utf8"),
    ],
)
def test_a_field_of_the_wrong_wire_type_or_a_truncated_one_is_malformed(definition: str, payload: bytes) -> None:
    with pytest.raises(Malformed):
        decode(definition, payload)


def test_a_message_nested_past_the_depth_limit_is_malformed_not_a_crash() -> None:
    props = KUBERNETES_1_32.schema("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")
    nested = string(5, "object")
    for _ in range(20):
        nested = message(28, nested)  # not: JSONSchemaProps
    assert decode_message(memoryview(nested), props)["not"]["not"]["not"]
    for _ in range(200):
        nested = message(28, nested)
    with pytest.raises(Malformed):
        decode_message(memoryview(nested), props)


def test_a_deployment_with_a_pod_template_decodes_from_the_data_alone() -> None:
    # Deployments are not served: nothing but upstream's definition says how their message reads
    container = string(1, "web") + string(2, "nginx:1.27")
    template = message(1, map_entry(11, "app", "web")) + message(2, message(2, container) + string(3, "Always"))
    spec = (integer(1, 3) + message(2, map_entry(1, "app", "web")) + message(3, template)
            + message(4, string(1, "RollingUpdate") + message(2, int_or_string(1, 1) + int_or_string(2, "25%")))
            + integer(5, 0) + integer(6, 10) + integer(7, 0) + integer(9, 600))
    deployment = message(1, string(1, "web") + string(3, "default")) + message(2, spec) + message(3, b"")
    assert decode("apps.v1.Deployment", deployment) == {
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}], "restartPolicy": "Always"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        },
        "status": {},
    }
    assert decode_k8s_protobuf(envelope(deployment, kind="Deployment", api_version="apps/v1"))["spec"]["replicas"] == 3
