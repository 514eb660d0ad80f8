"""metadata.managedFields and the field sets under it: FieldsV1 encoding, set algebra, comparison, Update."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.machinery.clock import Clock
from fakeapi.machinery.managedfields.fieldpath import (
    LEAF,
    decode_fields,
    difference,
    encode_fields,
    intersection,
    path_string,
    paths,
    union,
    wire_difference,
    wire_union,
    without_subtrees,
)
from fakeapi.machinery.managedfields.fieldsets import STRIPPED, compare, fields_of
from fakeapi.machinery.managedfields.manager import (
    ApplyConflict,
    FieldManager,
    ManagerId,
    conflict_causes,
    conflict_message,
    decode_managers,
    describe_manager,
    encode_managers,
)
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.registry.options import manager_from_user_agent

POD = KUBERNETES_1_32.compiled("io.k8s.api.core.v1.Pod")
TREE = POD.patch_tree
CONTAINER = 'k:{"name":"web"}'


def pod(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "u",
                                                            "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}], **spec}}


def fields(wire: dict[str, Any]) -> dict[str, Any]:
    return decode_fields(wire)


def manager(subresource: str = "") -> FieldManager:
    """The field manager of pods, or of pods/status (whose strategy resets spec, as the registry says)."""
    clock = Clock()
    clock.freeze()
    return FieldManager(POD, clock, subresource, reset=("spec",) if subresource == "status" else ("status",))


# ---- field sets


def test_applied_fields_own_map_keys_and_list_items_not_their_parents() -> None:
    owned = difference(fields_of(pod(), TREE), STRIPPED)
    assert encode_fields(owned) == {
        "f:metadata": {"f:labels": {"f:app": {}}},
        "f:spec": {"f:containers": {CONTAINER: {".": {}, "f:image": {}, "f:name": {}}}},
    }


def test_list_items_are_keyed_by_their_sorted_keys_with_defaults() -> None:
    config = pod()
    ports = [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}]
    config["spec"]["containers"][0]["ports"] = ports
    owned = encode_fields(fields_of(config, TREE))
    assert list(owned["f:spec"]["f:containers"][CONTAINER]["f:ports"]) == [
        'k:{"containerPort":53,"protocol":"UDP"}', 'k:{"containerPort":80,"protocol":"TCP"}']


def test_set_lists_use_value_elements_and_atomic_lists_are_leaves() -> None:
    config = pod()
    config["metadata"]["finalizers"] = ["b.io/x", "a.io/y"]
    config["spec"]["containers"][0]["args"] = ["-v"]
    owned = encode_fields(fields_of(config, TREE))
    assert list(owned["f:metadata"]["f:finalizers"]) == ['v:"a.io/y"', 'v:"b.io/x"']
    assert owned["f:spec"]["f:containers"][CONTAINER]["f:args"] == {}


def test_encoding_puts_the_member_mark_first_and_fields_before_keys() -> None:
    node = union(fields({"f:x": {"f:b": {}, 'k:{"name":"a"}': {}}}), fields({"f:x": {".": {}, "f:a": {}}}))
    assert list(encode_fields(node)["f:x"]) == [".", "f:a", "f:b", 'k:{"name":"a"}']
    assert decode_fields(encode_fields(node)) == node


@pytest.mark.parametrize(("path", "text"), [
    (("f:spec", "f:containers", 'k:{"name":"ap"}', "f:image"), '.spec.containers[name="ap"].image'),
    (("f:spec", "f:containers", 'k:{"name":"a"}', "f:ports", 'k:{"containerPort":80,"protocol":"TCP"}'),
     '.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"]'),
    (("f:metadata", "f:finalizers", 'v:"x"'), '.metadata.finalizers[="x"]'),
    (("f:metadata", "f:labels", "f:app.kubernetes.io/name"), ".metadata.labels.app.kubernetes.io/name"),
])
def test_paths_print_as_upstream(path: tuple[str, ...], text: str) -> None:
    assert path_string(path) == text


# ---- trie algebra


A = {"f:a": {}, "f:b": {".": {}, "f:c": {}}}


@pytest.mark.parametrize(("left", "right", "op", "expected"), [
    (A, {"f:b": {}}, difference, {"f:a": {}, "f:b": {"f:c": {}}}),
    (A, {"f:b": {}}, without_subtrees, {"f:a": {}}),
    (A, {"f:b": {"f:c": {}}, "f:x": {}}, intersection, {"f:b": {"f:c": {}}}),
    (A, {"f:b": {"f:d": {}}}, union, {"f:a": {}, "f:b": {".": {}, "f:c": {}, "f:d": {}}}),
    (A, A, difference, {}),
])
def test_set_operations(left: dict[str, Any], right: dict[str, Any], op: Any,
                        expected: dict[str, Any]) -> None:
    assert encode_fields(op(fields(left), fields(right))) == expected


WIRE_CASES = [
    (A, {"f:b": {}}),
    (A, {"f:b": {"f:c": {}}}),
    (A, {"f:a": {}, "f:b": {".": {}, "f:c": {}}}),
    (A, {"f:b": {"f:d": {}}, "f:0": {"k:{\"name\":\"x\"}": {".": {}, "f:name": {}}}}),
    ({"f:s": {"f:x": {}}}, {"f:s": {}}),
    ({"f:s": {"f:x": {}, "f:y": {".": {}, "f:z": {}}}}, {"f:s": {"f:y": {"f:z": {}}}, "f:q": {}}),
    ({}, {"f:a": {}}),
]


@pytest.mark.parametrize(("left", "right"), WIRE_CASES)
def test_wire_operations_match_the_trie_ones_key_order_included(left: dict[str, Any],
                                                                right: dict[str, Any]) -> None:
    wire, trie = encode_fields(fields(left)), fields(right)
    assert list(paths(fields(wire_union(wire, trie)))) == list(paths(union(fields(wire), trie)))
    assert wire_union(wire, trie) == encode_fields(union(fields(wire), trie))
    assert list(wire_union(wire, trie)) == list(encode_fields(union(fields(wire), trie)))
    assert wire_difference(wire, trie) == encode_fields(difference(fields(wire), trie))


def test_wire_difference_returns_the_same_object_when_nothing_is_removed() -> None:
    wire = encode_fields(fields(A))
    assert wire_difference(wire, fields({"f:z": {}})) is wire


def test_wire_union_returns_the_same_object_when_nothing_is_added() -> None:
    """A manager re-writing fields it owns (most status writes) leaves its set as it was."""
    wire = encode_fields(fields(A))
    assert wire_union(wire, fields({"f:b": {"f:c": {}}})) is wire
    assert wire_union(wire, fields({"f:b": {}})) is wire


def test_paths_lists_members_in_order() -> None:
    assert list(paths(fields(A))) == [("f:a",), ("f:b",), ("f:b", "f:c")]


# ---- compare


def test_compare_reports_added_modified_and_removed_leaves() -> None:
    old, new = pod(), pod()
    new["spec"]["containers"][0]["image"] = "nginx:1.26"
    new["metadata"]["labels"] = {"tier": "web"}
    changes = compare(old, new, TREE)
    assert encode_fields(changes.changed) == {"f:metadata": {"f:labels": {"f:tier": {}}},
                                              "f:spec": {"f:containers": {CONTAINER: {"f:image": {}}}}}
    assert encode_fields(changes.removed) == {"f:metadata": {"f:labels": {"f:app": {}}}}


def test_compare_marks_new_maps_and_list_items_themselves_as_added() -> None:
    old = pod()
    del old["metadata"]["labels"]
    new = pod()
    new["spec"]["containers"].append({"name": "side", "image": "busybox"})
    added = encode_fields(compare(old, new, TREE).changed)
    assert added["f:metadata"] == {"f:labels": {".": {}, "f:app": {}}}
    assert added["f:spec"]["f:containers"] == {'k:{"name":"side"}': {".": {}, "f:image": {}, "f:name": {}}}


def test_compare_finds_the_same_added_fields_when_alike_values_come_again() -> None:
    # what a write adds is memoised on its JSON: a second pod with the same new labels gets the same
    # answer, and a different value never gets the first one's
    old = pod()
    del old["metadata"]["labels"]
    first = encode_fields(compare(old, pod(), TREE).changed)
    again = encode_fields(compare(old, pod(), TREE).changed)
    other = pod()
    other["metadata"]["labels"] = {"role": "db"}
    assert first == again == {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}
    assert encode_fields(compare(old, other, TREE).changed) == {"f:metadata": {"f:labels": {".": {}, "f:role": {}}}}


def test_compare_of_equal_objects_is_empty() -> None:
    assert compare(pod(), pod(), TREE) == ({}, {})


# ---- the Update operation


def test_create_records_every_field_the_manager_set_including_defaults() -> None:
    created = pod(restartPolicy="Always", securityContext={})
    created["status"] = {"phase": "Running"}  # reset on create: never owned
    manager().update(created, None, "kubectl-create")
    [entry] = created["metadata"]["managedFields"]
    assert {k: v for k, v in entry.items() if k not in ("time", "fieldsV1")} == {
        "manager": "kubectl-create", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1"}
    assert entry["fieldsV1"] == {
        "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
        "f:spec": {"f:containers": {CONTAINER: {".": {}, "f:image": {}, "f:name": {}}},
                   "f:restartPolicy": {}, "f:securityContext": {}},
    }


def test_a_no_op_update_keeps_managed_fields_exactly() -> None:
    tracker = manager()
    old = pod()
    tracker.update(old, None, "a")
    new = copy.deepcopy(old)
    del new["metadata"]["managedFields"]
    tracker.update(new, old, "b")
    assert new["metadata"]["managedFields"] is old["metadata"]["managedFields"]


def test_an_update_takes_changed_fields_from_other_managers() -> None:
    tracker = manager()
    old = pod()
    tracker.update(old, None, "creator")
    new = copy.deepcopy(old)
    new["spec"]["containers"][0]["image"] = "nginx:1.26"
    tracker.update(new, old, "kubectl-edit")
    entries = {e["manager"]: e["fieldsV1"] for e in new["metadata"]["managedFields"]}
    assert "f:image" not in entries["creator"]["f:spec"]["f:containers"][CONTAINER]
    assert entries["kubectl-edit"] == {"f:spec": {"f:containers": {CONTAINER: {"f:image": {}}}}}


def test_a_status_write_is_recorded_with_its_subresource_and_ignores_sent_managed_fields() -> None:
    old = pod()
    new = copy.deepcopy(old)
    new["status"] = {"phase": "Running"}
    new["metadata"]["managedFields"] = [{"manager": "forged", "operation": "Update", "apiVersion": "v1",
                                         "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]
    manager("status").update(new, old, "kubelet")
    [entry] = new["metadata"]["managedFields"]
    assert (entry["manager"], entry["subresource"]) == ("kubelet", "status")
    assert entry["fieldsV1"] == {"f:status": {".": {}, "f:phase": {}}}


def test_sending_an_empty_list_resets_managed_fields() -> None:
    tracker = manager()
    old = pod()
    tracker.update(old, None, "a")
    new = copy.deepcopy(old)
    new["metadata"]["managedFields"] = []
    tracker.update(new, old, "b")
    assert "managedFields" not in new["metadata"]


# ---- wire form and messages


def test_managers_round_trip_and_sort_apply_before_update() -> None:
    entries = [
        {"manager": "b", "operation": "Update", "apiVersion": "v1", "time": "2025-01-01T00:00:00Z",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:a": {}}}},
        {"manager": "a", "operation": "Apply", "apiVersion": "v1", "time": "2025-01-02T00:00:00Z",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:b": {}}}},
    ]
    managers = decode_managers(entries)
    assert managers is not None
    assert encode_managers(managers) == [entries[1], entries[0]]


@pytest.mark.parametrize("entries", [
    [{"manager": "a", "operation": "Patch", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {}}],
    [{"manager": "a", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": {}}],
    [{"manager": "a", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV2", "fieldsV1": {}}],
    [{"manager": "a", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
      "fieldsV1": {"x": {}}}],
    "not a list",
])
def test_unreadable_managed_fields_decode_to_none(entries: Any) -> None:
    assert decode_managers(entries) is None


@pytest.mark.parametrize(("ident", "text"), [
    (ManagerId("kubectl", "Apply", "", ""), '"kubectl"'),
    (ManagerId("kubectl-client-side-apply", "Update", "v1", ""), '"kubectl-client-side-apply" using v1'),
    (ManagerId("kubelet", "Update", "v1", "status"), '"kubelet" with subresource "status" using v1'),
])
def test_managers_are_named_as_upstream_names_them(ident: ManagerId, text: str) -> None:
    assert describe_manager(ident) == text


def test_conflict_messages() -> None:
    csa = ManagerId("kubectl-client-side-apply", "Update", "v1", "")
    one = [ApplyConflict(csa, '.spec.containers[name="ap"].image')]
    assert conflict_message(one) == (
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: '
        '.spec.containers[name="ap"].image')
    assert conflict_causes(one) == [{"reason": "FieldManagerConflict",
                                     "message": 'conflict with "kubectl-client-side-apply" using v1',
                                     "field": '.spec.containers[name="ap"].image'}]
    two = [*one, ApplyConflict(ManagerId("a", "Apply", "", ""), ".metadata.labels.x")]
    assert conflict_message(two) == (
        'Apply failed with 2 conflicts: conflicts with "a":\n- .metadata.labels.x\n'
        'conflicts with "kubectl-client-side-apply" using v1:\n- .spec.containers[name="ap"].image')


@pytest.mark.parametrize(("agent", "name"), [
    ("kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07", "kubectl"),
    ("OpenAPI-Generator/31.0.0/python", "OpenAPI-Generator"),
    ("", ""),
])
def test_manager_from_user_agent(agent: str, name: str) -> None:
    assert manager_from_user_agent(agent) == name


def test_a_leaf_member_is_an_empty_object_on_the_wire() -> None:
    assert encode_fields(LEAF) == {}
    assert decode_fields({"f:a": {}}) == {"f:a": LEAF}
    assert decode_fields({}) == {}  # a root: the empty set


# ---- apply's merge and prune


def containers(*names: str) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": name, "image": name} for name in names]}}


@pytest.mark.parametrize(("live", "applied", "merged"), [
    (("a", "b"), ("b", "c"), ["a", "b", "c"]),
    (("a", "b", "c"), ("c", "a"), ["b", "c", "a"]),
    (("a",), ("a",), ["a"]),
])
def test_merge_orders_keyed_items_as_upstream(live: tuple[str, ...], applied: tuple[str, ...],
                                              merged: list[str]) -> None:
    from fakeapi.registry.apply import merge

    result = merge(containers(*live), containers(*applied), TREE)
    assert [c["name"] for c in result["spec"]["containers"]] == merged


def test_prune_drops_what_nobody_keeps_and_empties() -> None:
    from fakeapi.registry.apply import prune

    obj = {"metadata": {"labels": {"a": "1"}, "annotations": {"n": "x"}}}
    remove = fields({"f:metadata": {"f:labels": {"f:a": {}}, "f:annotations": {"f:n": {}}}})
    keep = fields({"f:metadata": {"f:annotations": {"f:n": {}}}})
    assert prune(obj, difference(remove, keep), keep, TREE) == {"metadata": {"annotations": {"n": "x"}}}
