"""The protobuf envelope decoder: kubectl's real `create namespace/configmap/secret/serviceaccount` bodies,
hand-built bodies, and 415s."""

from __future__ import annotations

import base64

import pytest

from fakeapi.http.protobuf import MAGIC, decode_k8s_protobuf
from fakeapi.machinery.errors import UnsupportedMediaType

# Captured from kubectl v1.32.5 `create namespace foo` against a logging server.
KUBECTL_CREATE_NS_FOO = bytes.fromhex(
    "6b3873000a0f0a02763112094e616d657370616365121b0a130a03666f6f12001a0022002a00320038004200"
    "12001a020a001a002200"
)
# Same, `create configmap cm1 --from-literal=a=b -n default`: a typed-client body of another kind.
KUBECTL_CREATE_CONFIGMAP = bytes.fromhex(
    "6b3873000a0f0a0276311209436f6e6669674d617012240a1a0a03636d3112001a0764656661756c7422002a00"
    "32003800420012060a01611201621a002200"
)
# Captured from kubectl v1.32 `create secret generic s1 --from-literal=a=b` (type left empty).
KUBECTL_CREATE_SECRET = bytes.fromhex(
    "6b3873000a0c0a0276311206536563726574121e0a120a02733112001a0022002a0032003800420012060a016112"
    "01621a001a002200"
)
# `create secret docker-registry r1 --docker-server=x.io --docker-username=u --docker-password=p`
KUBECTL_CREATE_DOCKER_SECRET = bytes.fromhex(
    "6b3873000a0c0a0276311206536563726574128b010a120a02723112001a0022002a0032003800420012550a112e"
    "646f636b6572636f6e6669676a736f6e12407b226175746873223a7b22782e696f223a7b22757365726e616d6522"
    "3a2275222c2270617373776f7264223a2270222c2261757468223a2264547077227d7d7d1a1e6b756265726e6574"
    "65732e696f2f646f636b6572636f6e6669676a736f6e1a002200"
)
# `create serviceaccount sa1`
KUBECTL_CREATE_SERVICE_ACCOUNT = bytes.fromhex(
    "6b3873000a140a027631120e536572766963654163636f756e7412150a130a0373613112001a0022002a00320038"
    "0042001a002200"
)

UNSUPPORTED = (
    "the body of the request was in an unknown format - accepted media types include: "
    "application/json, application/yaml, application/vnd.kubernetes.protobuf"
)


# --- a tiny encoder, just enough to build bodies by hand -------------------------------------------
def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def message(number: int, payload: bytes) -> bytes:
    return key(number, 2) + varint(len(payload)) + payload


def string(number: int, text: str) -> bytes:
    return message(number, text.encode())


def integer(number: int, value: int) -> bytes:
    return key(number, 0) + varint(value)


def map_entry(number: int, name: str, value: str) -> bytes:
    return message(number, string(1, name) + string(2, value))


def envelope(raw: bytes, kind: str = "Namespace", api_version: str = "v1", encoding: str = "") -> bytes:
    """`k8s\\x00` + runtime.Unknown{1: TypeMeta{1: apiVersion, 2: kind}, 2: raw, 3: encoding, 4: ""}."""
    type_meta = string(1, api_version) + string(2, kind)
    return MAGIC + message(1, type_meta) + message(2, raw) + string(3, encoding) + string(4, "")


def namespace(meta: bytes, spec: bytes = b"") -> bytes:
    return message(1, meta) + message(2, spec) + message(3, string(1, ""))


# --- tests ------------------------------------------------------------------------------------------
def test_kubectl_create_namespace_body_decodes_to_its_name_and_empty_spec() -> None:
    # the spec and status messages are there, empty (Go's value structs); so is a zero creationTimestamp,
    # which is left out as Go's null
    assert decode_k8s_protobuf(KUBECTL_CREATE_NS_FOO) == {
        "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "foo"}, "spec": {}, "status": {},
    }


def test_hand_built_envelope_matches_what_kubectl_sends() -> None:
    meta = (string(1, "foo") + string(2, "") + string(3, "") + string(4, "") + string(5, "")
            + string(6, "") + integer(7, 0) + message(8, b""))
    assert envelope(namespace(meta)) == KUBECTL_CREATE_NS_FOO


def test_kubectls_config_map_secret_and_service_account_bodies_decode() -> None:
    assert decode_k8s_protobuf(KUBECTL_CREATE_CONFIGMAP) == {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm1", "namespace": "default"},
        "data": {"a": "b"}}
    assert decode_k8s_protobuf(KUBECTL_CREATE_SECRET) == {
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s1"}, "data": {"a": "Yg=="}}
    docker = decode_k8s_protobuf(KUBECTL_CREATE_DOCKER_SECRET)
    assert docker["type"] == "kubernetes.io/dockerconfigjson"
    assert base64.b64decode(docker["data"][".dockerconfigjson"]) == (
        b'{"auths":{"x.io":{"username":"u","password":"p","auth":"dTpw"}}}')
    assert decode_k8s_protobuf(KUBECTL_CREATE_SERVICE_ACCOUNT) == {
        "apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa1"}}


def test_every_field_a_client_sets_on_the_three_kinds_is_decoded() -> None:
    meta = message(1, string(1, "x"))
    binary = message(3, string(1, "bin") + message(2, b"\x00\xff"))
    assert decode_k8s_protobuf(envelope(meta + map_entry(2, "k", "v") + binary + integer(4, 1),
                                        kind="ConfigMap")) == {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"k": "v"},
        "binaryData": {"bin": "AP8="}, "immutable": True}
    assert decode_k8s_protobuf(envelope(meta + map_entry(4, "plain", "text") + string(3, "Opaque")
                                        + integer(5, 0), kind="Secret")) == {
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}, "stringData": {"plain": "text"},
        "type": "Opaque", "immutable": False}
    reference = message(2, string(1, "Secret") + string(2, "") + string(3, "token") + string(4, ""))
    assert decode_k8s_protobuf(envelope(meta + reference + message(3, string(1, "pull")) + integer(4, 0),
                                        kind="ServiceAccount")) == {
        "apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "x"},
        "secrets": [{"kind": "Secret", "name": "token"}], "imagePullSecrets": [{"name": "pull"}],
        "automountServiceAccountToken": False}


def test_metadata_strings_maps_and_finalizers_are_decoded() -> None:
    meta = (string(1, "team-a") + string(2, "team-") + string(3, "ignored-ns") + string(5, "u-1")
            + string(6, "7") + map_entry(11, "app", "web") + map_entry(11, "tier", "front")
            + map_entry(12, "note", "héllo") + string(14, "example.com/hold"))
    spec = string(1, "kubernetes") + string(1, "example.com/cleanup")
    assert decode_k8s_protobuf(envelope(namespace(meta, spec))) == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": "team-a", "generateName": "team-", "namespace": "ignored-ns", "uid": "u-1",
            "resourceVersion": "7", "labels": {"app": "web", "tier": "front"},
            "annotations": {"note": "héllo"}, "finalizers": ["example.com/hold"],
        },
        "spec": {"finalizers": ["kubernetes", "example.com/cleanup"]},
        "status": {},
    }


def test_empty_map_values_and_later_duplicate_keys_behave_like_go_maps() -> None:
    meta = string(1, "ns") + map_entry(11, "a", "1") + map_entry(11, "a", "2") + map_entry(12, "empty", "")
    decoded = decode_k8s_protobuf(envelope(namespace(meta)))
    assert decoded["metadata"] == {"name": "ns", "labels": {"a": "2"}, "annotations": {"empty": ""}}


def test_fields_of_every_wire_type_it_does_not_know_are_skipped() -> None:
    owner_reference = message(13, string(1, "v1") + string(2, "Thing") + string(3, "owner"))
    managed_fields = message(17, string(1, "kubectl"))  # field 17: a two-byte key
    meta = (string(1, "ns") + integer(10, 30) + owner_reference + managed_fields
            + key(20, 1) + b"\x00" * 8 + key(21, 5) + b"\x01\x02\x03\x04" + integer(22, 2**63))
    # fields 10, 13 and 17 are ObjectMeta's own (deletionGracePeriodSeconds, ownerReferences, managedFields)
    assert decode_k8s_protobuf(envelope(namespace(meta)))["metadata"] == {
        "name": "ns", "deletionGracePeriodSeconds": 30, "ownerReferences": [{"kind": "v1", "name": "owner"}],
        "managedFields": [{"manager": "kubectl"}]}


def test_empty_namespace_payload_gives_empty_metadata() -> None:
    assert decode_k8s_protobuf(envelope(b"")) == {"apiVersion": "v1", "kind": "Namespace", "metadata": {}}


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(envelope(namespace(string(1, "p")), kind="Widget"), id="unknown-kind"),
        pytest.param(envelope(namespace(string(1, "n")), api_version="v2"), id="other-version"),
        pytest.param(envelope(namespace(string(1, "n")), encoding="gzip"), id="content-encoding"),
        pytest.param(b'{"apiVersion":"v1","kind":"Namespace"}', id="json-not-protobuf"),
        pytest.param(b"", id="empty"),
        pytest.param(MAGIC, id="magic-only"),
        pytest.param(MAGIC + message(1, string(1, "v1"))[:-1], id="truncated-length"),
        pytest.param(MAGIC + b"\x0a\xff\xff", id="unterminated-varint"),
        pytest.param(MAGIC + b"\x08" + b"\xff" * 11, id="varint-too-long"),
        pytest.param(MAGIC + key(1, 3), id="group-wire-type"),
        pytest.param(MAGIC + b"\x00\x00", id="field-number-zero"),
        pytest.param(MAGIC + integer(1, 5), id="type-meta-as-varint"),
        pytest.param(envelope(namespace(message(1, b"\xff\xfe"))), id="invalid-utf8-name"),
        pytest.param(envelope(message(1, integer(1, 3))), id="name-as-varint"),
    ],
)
def test_other_kinds_and_malformed_bodies_are_unsupported_media_type(body: bytes) -> None:
    with pytest.raises(UnsupportedMediaType) as caught:
        decode_k8s_protobuf(body)
    status = caught.value.to_status()
    assert (status["code"], status["reason"], status["message"]) == (415, "UnsupportedMediaType", UNSUPPORTED)
    assert "details" not in status
