"""Name formats, ObjectMeta create/update and Namespace validation: exact upstream messages."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.kinds.namespace.validation import validate_namespace, validate_namespace_update
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import (
    validate_common_update,
    validate_object_meta,
    validate_object_meta_update,
)
from tests.validation_messages import LABEL_MSG, LABEL_VALUE_MSG, NAME_PART_MSG, SUBDOMAIN_MSG


def meta(**fields: Any) -> dict[str, Any]:
    return {"name": "web", "namespace": "default", **fields}


def strs(errors: list[fe.FieldError]) -> list[str]:
    return [str(e) for e in errors]


# --- name formats -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("my-name", []),
        ("a" * 63, []),
        ("a" * 64, ["must be no more than 63 characters"]),
        ("My-Name", [LABEL_MSG]),
        ("a.b", ["must not contain dots"]),  # a valid subdomain: the dots are what is wrong
        ("-a", [LABEL_MSG]),
        ("", [LABEL_MSG]),
    ],
)
def test_dns1123_label(value: str, expected: list[str]) -> None:
    assert names.is_dns1123_label(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("example.com", []),
        ("a" * 253, []),
        ("a" * 254, ["must be no more than 253 characters"]),
        ("Example.com", [SUBDOMAIN_MSG]),
        ("a..b", [SUBDOMAIN_MSG]),
    ],
)
def test_dns1123_subdomain(value: str, expected: list[str]) -> None:
    assert names.is_dns1123_subdomain(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("app", []),
        ("example.com/My_Name.1", []),
        ("/name", ["prefix part must be non-empty"]),
        ("Example.com/name", ["prefix part " + SUBDOMAIN_MSG]),
        ("example.com/", ["name part must be non-empty", NAME_PART_MSG]),
        ("a" * 64, ["name part must be no more than 63 characters"]),
        ("-bad", [NAME_PART_MSG]),
    ],
)
def test_qualified_name(value: str, expected: list[str]) -> None:
    assert names.is_qualified_name(value) == expected


def test_qualified_name_with_two_slashes_gets_the_whole_format_message() -> None:
    [message] = names.is_qualified_name("a/b/c")
    assert message.startswith("a qualified name must consist of alphanumeric characters")
    assert message.endswith("with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", []),
        ("v1.2_x", []),
        ("a" * 64, ["must be no more than 63 characters"]),
        ("x y", [LABEL_VALUE_MSG]),
    ],
)
def test_label_value(value: str, expected: list[str]) -> None:
    assert names.is_valid_label_value(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("http", []),
        ("web-80", []),
        ("a" * 16, ["must be no more than 15 characters"]),
        (
            "HTTP",
            [
                "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                "must contain at least one letter (a-z)",
            ],
        ),
        ("80", ["must contain at least one letter (a-z)"]),
        ("a--b", ["must not contain consecutive hyphens"]),
        ("-ab", ["must not begin or end with a hyphen"]),
    ],
)
def test_iana_service_name(value: str, expected: list[str]) -> None:
    assert names.is_valid_port_name(value) == expected


@pytest.mark.parametrize(
    ("value", "valid"),
    [("my_var", True), ("_x1", True), ("1abc", False), ("a-b", False), ("", False)],
)
def test_c_identifier(value: str, valid: bool) -> None:
    assert (names.is_c_identifier(value) == []) is valid


def test_relaxed_env_var_names_accept_printable_ascii_but_not_equals() -> None:
    assert names.is_relaxed_env_var_name("ev!1") == []
    expected = [
        "a valid environment variable name must consist only of printable ASCII characters other than '='"
    ]
    assert names.is_relaxed_env_var_name("A=B") == expected
    assert names.is_relaxed_env_var_name("é") == expected
    assert names.is_relaxed_env_var_name("") == ["environment variable name must be non-empty"]


def test_strict_env_var_names_and_config_map_keys() -> None:
    assert names.is_env_var_name("MY_ENV.NAME") == []
    assert names.is_env_var_name("..x")[-1] == "must not start with '..'"
    assert names.is_config_map_key("key.name") == []
    assert names.is_config_map_key("..") == ["must not be '..'"]


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("10.0.0.1", True),
        ("010.0.0.1", True),
        ("2001:db8::1", True),
        ("1.2.3", False),
        ("fe80::1%eth0", False),
    ],
)
def test_ip_addresses_are_parsed_sloppily_like_go(value: str, valid: bool) -> None:
    assert (names.is_valid_ip(value) == []) is valid


def test_generate_name_prefix_masks_a_trailing_dash() -> None:
    assert names.name_is_dns_subdomain("web-", True) == []
    assert names.name_is_dns_subdomain("web-", False) == [SUBDOMAIN_MSG]


def test_path_segment_names() -> None:
    assert names.path_segment_name("..", False) == ["may not be '..'"]
    assert names.path_segment_name("a/b%c", False) == ["may not contain '/'", "may not contain '%'"]
    assert names.path_segment_name("ok.name", False) == []


# --- ObjectMeta on create ---------------------------------------------------------------------


def test_valid_meta_has_no_errors() -> None:
    assert (
        validate_object_meta(meta(labels={"app": "web"}, annotations={"Example.com/Note": "x"}), True) == []
    )


def test_name_or_generate_name_is_required() -> None:
    errors = validate_object_meta({"namespace": "default"}, True)
    assert strs(errors) == ["metadata.name: Required value: name or generateName is required"]
    assert errors[0].reason == fe.REQUIRED


def test_name_must_be_a_subdomain() -> None:
    errors = validate_object_meta(meta(name="Web"), True)
    assert strs(errors) == [f'metadata.name: Invalid value: "Web": {SUBDOMAIN_MSG}']
    assert errors[0].reason == fe.INVALID


def test_generate_name_is_checked_as_a_prefix() -> None:
    assert validate_object_meta(meta(generateName="web-"), True) == []
    assert strs(validate_object_meta(meta(generateName="Web-"), True)) == [
        f'metadata.generateName: Invalid value: "Web-": {SUBDOMAIN_MSG}'
    ]


def test_namespace_is_required_and_a_dns_label_for_namespaced_objects() -> None:
    assert strs(validate_object_meta({"name": "web"}, True)) == ["metadata.namespace: Required value"]
    assert strs(validate_object_meta(meta(namespace="a.b"), True)) == [
        'metadata.namespace: Invalid value: "a.b": must not contain dots'
    ]
    assert strs(validate_object_meta(meta(), False)) == [
        "metadata.namespace: Forbidden: not allowed on this type"
    ]


def test_generation_may_not_be_negative() -> None:
    assert strs(validate_object_meta(meta(generation=-1), True)) == [
        "metadata.generation: Invalid value: -1: must be greater than or equal to 0"
    ]


def test_label_errors_are_reported_at_the_unkeyed_labels_path() -> None:
    errors = validate_object_meta(meta(labels={"-bad": "x y"}), True)
    assert strs(errors) == [
        f'metadata.labels: Invalid value: "-bad": {NAME_PART_MSG}',
        f'metadata.labels: Invalid value: "x y": {LABEL_VALUE_MSG}',
    ]


def test_annotation_keys_are_case_insensitive_qualified_names_and_size_is_limited() -> None:
    assert strs(validate_object_meta(meta(annotations={"-x": ""}), True)) == [
        f'metadata.annotations: Invalid value: "-x": {NAME_PART_MSG}'
    ]
    big = {"a": "x" * (256 * 1024)}
    errors = validate_object_meta(meta(annotations=big), True)
    assert strs(errors) == ["metadata.annotations: Too long: may not be more than 262144 bytes"]
    assert errors[0].reason == fe.TOO_LONG
    assert validate_object_meta(meta(annotations={"a": "x" * (256 * 1024 - 1)}), True) == []


def test_owner_references_need_their_fields_and_one_controller() -> None:
    assert strs(validate_object_meta(meta(ownerReferences=[{}]), True)) == [
        'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    ]
    ref = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "uid": "u1", "controller": True}
    refs = [{**ref, "name": "a"}, {**ref, "name": "b"}]
    [error] = validate_object_meta(meta(ownerReferences=refs), True)
    assert error.field == "metadata.ownerReferences"
    assert error.detail == (
        'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and '
        "ReplicaSet/b"
    )


def test_finalizers_are_qualified_and_unqualified_ones_must_be_standard() -> None:
    assert validate_object_meta(meta(finalizers=["kubernetes", "example.com/cleanup"]), True) == []
    assert strs(validate_object_meta(meta(finalizers=["mine"]), True)) == [
        'metadata.finalizers[0]: Invalid value: "mine": name is neither a standard finalizer name nor is '
        "it fully qualified"
    ]
    assert strs(validate_object_meta(meta(finalizers=["mine"]), True, kube_finalizers=False)) == []
    assert strs(validate_object_meta(meta(finalizers=["orphan", "foregroundDeletion"]), True)) == [
        'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: '
        "finalizer orphan and foregroundDeletion cannot be both set"
    ]


# --- ObjectMeta on update ---------------------------------------------------------------------

OLD = meta(uid="u1", resourceVersion="5", generation=2, creationTimestamp="2024-01-02T03:04:05Z")


def test_unchanged_meta_update_is_valid() -> None:
    assert validate_object_meta_update(dict(OLD), OLD) == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"name": "other"}, 'metadata.name: Invalid value: "other": field is immutable'),
        ({"namespace": "other"}, 'metadata.namespace: Invalid value: "other": field is immutable'),
        ({"uid": "u2"}, 'metadata.uid: Invalid value: "u2": field is immutable'),
        (
            {"creationTimestamp": "2025-01-01T00:00:00Z"},
            "metadata.creationTimestamp: Invalid value: 2025-01-01 00:00:00 +0000 UTC: field is immutable",
        ),
        (
            {"deletionTimestamp": "2025-01-01T00:00:00Z"},
            "metadata.deletionTimestamp: Invalid value: 2025-01-01 00:00:00 +0000 UTC: field is immutable",
        ),
        (
            {"deletionGracePeriodSeconds": 0},
            "metadata.deletionGracePeriodSeconds: Invalid value: 0: field is immutable",
        ),
        ({"generation": 1}, "metadata.generation: Invalid value: 1: must not be decremented"),
        (
            {"resourceVersion": ""},
            'metadata.resourceVersion: Invalid value: "": must be specified for an update',
        ),
    ],
)
def test_meta_update_rules(changes: dict[str, Any], expected: str) -> None:
    errors = validate_object_meta_update({**OLD, **changes}, OLD)
    assert strs(errors) == [expected]
    assert errors[0].reason == fe.INVALID


def test_no_new_finalizers_while_deleting() -> None:
    old = {**OLD, "deletionTimestamp": "2024-01-02T03:04:05Z", "finalizers": ["a.io/x"]}
    assert validate_object_meta_update({**old, "finalizers": []}, old) == []
    errors = validate_object_meta_update({**old, "finalizers": ["a.io/x", "b.io/z", "b.io/y"]}, old)
    assert strs(errors) == [
        "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, "
        'found new finalizers []string{"b.io/y", "b.io/z"}'
    ]
    assert validate_object_meta_update({**OLD, "finalizers": ["b.io/z"]}, OLD) == []


def test_generic_update_pass_uses_path_segment_names() -> None:
    old = {"metadata": OLD}
    assert validate_common_update({"metadata": {**OLD, "labels": {"a": "b"}}}, old) == []
    assert strs(validate_common_update({"metadata": {**OLD, "name": "a%b"}}, old)) == [
        "metadata.name: Invalid value: \"a%b\": may not contain '%'",
        'metadata.name: Invalid value: "a%b": field is immutable',
    ]


# --- Namespace --------------------------------------------------------------------------------


def test_namespace_name_is_a_dns_label() -> None:
    assert validate_namespace({"metadata": {"name": "team-a"}, "spec": {"finalizers": ["kubernetes"]}}) == []
    assert strs(validate_namespace({"metadata": {"name": "team.a"}})) == [
        'metadata.name: Invalid value: "team.a": must not contain dots'
    ]


def test_namespace_spec_finalizers_are_checked_at_the_unindexed_path() -> None:
    assert strs(validate_namespace({"metadata": {"name": "a"}, "spec": {"finalizers": ["bad"]}})) == [
        'spec.finalizers: Invalid value: "bad": name is neither a standard finalizer name nor is it fully '
        "qualified"
    ]


def test_namespace_update_keeps_the_name() -> None:
    old = {"metadata": {"name": "a", "resourceVersion": "1", "uid": "u"}}
    assert validate_namespace_update({"metadata": {**old["metadata"], "labels": {"x": "y"}}}, old) == []
    assert strs(validate_namespace_update({"metadata": {**old["metadata"], "name": "b"}}, old)) == [
        'metadata.name: Invalid value: "b": field is immutable'
    ]
