"""Strategic merge patch: pod merge keys, directives, kubectl bodies, upstream's own cases, error Statuses."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.patch import PatchTree, apply_strategic_merge_patch

# A pod's tree as the schemas will hand it over (the Go patchStrategy/patchMergeKey tags).
_CONTAINER: dict[str, Any] = {
    "$mergeKey": "name", "$strategy": "merge",
    "env": {"$mergeKey": "name", "$strategy": "merge"},
    "ports": {"$mergeKey": "containerPort", "$strategy": "merge", "$listType": "map",
              "$listMapKeys": ["containerPort", "protocol"]},
    "volumeMounts": {"$mergeKey": "mountPath", "$strategy": "merge"},
}
POD_TREE: PatchTree = {
    "metadata": {
        "finalizers": {"$strategy": "merge", "$listType": "set"},
        "ownerReferences": {"$mergeKey": "uid", "$strategy": "merge"},
    },
    "spec": {
        "containers": _CONTAINER,
        "initContainers": _CONTAINER,
        "volumes": {"$mergeKey": "name", "$strategy": "merge,retainKeys"},
        "imagePullSecrets": {"$mergeKey": "name", "$strategy": "merge"},
    },
    "status": {"conditions": {"$mergeKey": "type", "$strategy": "merge"}},
}

_POD = yaml.safe_load("""
apiVersion: v1
kind: Pod
metadata:
  name: ap
  namespace: default
  labels: {app: ap, tier: web}
  annotations: {note: x}
  finalizers: [a/one, b/two]
  ownerReferences: [{uid: u1, kind: ReplicaSet, name: rs1}]
spec:
  containers:
  - name: ap
    image: nginx:1.25
    env: [{name: A, value: "1"}, {name: B, value: "2"}]
    ports: [{containerPort: 80, protocol: TCP}]
    volumeMounts: [{name: data, mountPath: /data}]
  - {name: sidecar, image: busybox}
  volumes: [{name: data, emptyDir: {}}]
  tolerations: [{key: k, operator: Exists}]
status:
  phase: Running
  conditions: [{type: Ready, status: "False"}, {type: PodScheduled, status: "True"}]
""")


def pod() -> dict[str, Any]:
    return copy.deepcopy(_POD)


def smp(patch: Any, doc: dict[str, Any] | None = None) -> dict[str, Any]:
    return apply_strategic_merge_patch(pod() if doc is None else doc, patch, POD_TREE)


def at(value: Any, path: list[Any]) -> Any:
    for step in path:
        value = value[step]
    return value


# ---- what kubectl sends


def test_kubectl_apply_body_changes_image_and_drops_a_removed_label() -> None:
    # §6.2: the changed-file PATCH of client-side apply
    patch = {"metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}\n"},
                          "labels": {"tier": None}},
             "spec": {"$setElementOrder/containers": [{"name": "ap"}, {"name": "sidecar"}],
                      "containers": [{"image": "nginx:1.26", "name": "ap"}]}}
    expected = pod()
    expected["metadata"]["labels"] = {"app": "ap"}
    expected["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = "{}\n"
    expected["spec"]["containers"][0]["image"] = "nginx:1.26"
    assert smp(patch) == expected


def test_kubectl_edit_body_changes_the_image_only() -> None:
    # §7: what `kubectl edit` sends after the image was changed
    doc = pod()
    doc["spec"]["containers"] = [{"name": "nginx", "image": "nginx:1.27"}]
    patch = {"spec": {"$setElementOrder/containers": [{"name": "nginx"}],
                      "containers": [{"image": "nginx:1.28", "name": "nginx"}]}}
    expected = copy.deepcopy(doc)
    expected["spec"]["containers"][0]["image"] = "nginx:1.28"
    assert smp(patch, doc) == expected


def test_kubectl_patch_of_a_new_container_puts_it_first() -> None:
    # the order upstream produces, as the kubectl patch docs show for `patch-demo-ctr-2`
    result = smp({"spec": {"containers": [{"name": "third", "image": "x"}]}})
    assert [c["name"] for c in result["spec"]["containers"]] == ["third", "ap", "sidecar"]


@pytest.mark.parametrize(("order", "expected"), [
    ([{"name": "sidecar"}, {"name": "ap"}], ["sidecar", "ap"]),
    ([{"name": "new"}, {"name": "ap"}], ["new", "ap", "sidecar"]),
    ([{"name": "ap"}, {"name": "new"}], ["ap", "new", "sidecar"]),
])
def test_set_element_order_orders_patch_items_and_keeps_server_only_ones(
        order: list[Any], expected: list[str]) -> None:
    patch: dict[str, Any] = {"$setElementOrder/containers": order}
    if any(item["name"] == "new" for item in order):
        patch["containers"] = [{"name": "new", "image": "x"}]
    assert [c["name"] for c in smp({"spec": patch})["spec"]["containers"]] == expected


# ---- merge keys at every level, null, directives: [id, patch, path into the result, expected value]

_POD_CASES = yaml.safe_load("""
- [containers by name, {spec: {containers: [{name: sidecar, image: alpine}]}},
   [spec, containers, 1], {name: sidecar, image: alpine}]
- [env by name, {spec: {containers: [{name: ap, env: [{name: B, value: "3"}]}]}},
   [spec, containers, 0, env], [{name: A, value: "1"}, {name: B, value: "3"}]]
- [a new env variable goes first, {spec: {containers: [{name: ap, env: [{name: C, value: c}]}]}},
   [spec, containers, 0, env], [{name: C, value: c}, {name: A, value: "1"}, {name: B, value: "2"}]]
- [ports by containerPort, {spec: {containers: [{name: ap, ports: [{containerPort: 80, name: http}]}]}},
   [spec, containers, 0, ports], [{containerPort: 80, protocol: TCP, name: http}]]
- [a new port goes first, {spec: {containers: [{name: ap, ports: [{containerPort: 443}]}]}},
   [spec, containers, 0, ports], [{containerPort: 443}, {containerPort: 80, protocol: TCP}]]
- [volumeMounts by mountPath,
   {spec: {containers: [{name: ap, volumeMounts: [{mountPath: /data, readOnly: true}]}]}},
   [spec, containers, 0, volumeMounts], [{name: data, mountPath: /data, readOnly: true}]]
- [conditions by type, {status: {conditions: [{type: Ready, status: "True"}]}},
   [status, conditions], [{type: Ready, status: "True"}, {type: PodScheduled, status: "True"}]]
- [ownerReferences by uid, {metadata: {ownerReferences: [{uid: u1, controller: true}]}},
   [metadata, ownerReferences], [{uid: u1, kind: ReplicaSet, name: rs1, controller: true}]]
- ["finalizers merge as a set: patch order first", {metadata: {finalizers: [c/three, a/one]}},
   [metadata, finalizers], [c/three, a/one, b/two]]
- [a present finalizer is not repeated, {metadata: {finalizers: [b/two]}}, [metadata, finalizers],
   [a/one, b/two]]
- [volumes by name, {spec: {volumes: [{name: data, emptyDir: {medium: Memory}}]}},
   [spec, volumes], [{name: data, emptyDir: {medium: Memory}}]]
- [a list without a merge key is replaced, {spec: {tolerations: [{key: other}]}}, [spec, tolerations],
   [{key: other}]]
- [maps merge key by key, {metadata: {labels: {new: "1"}}}, [metadata, labels],
   {app: ap, tier: web, new: "1"}]
- [a list becoming a map takes the map (the decoder rejects it later),
   {spec: {containers: {name: x}}},
   [spec, containers], {name: x}]
- [null deletes a key, {metadata: {labels: {tier: null}}}, [metadata, labels], {app: ap}]
- [null for a missing key changes nothing, {metadata: {labels: {absent: null}}}, [metadata, labels],
   {app: ap, tier: web}]
- [nulls inside a new map are dropped, {spec: {nodeSelector: {a: "1", b: null}}}, [spec, nodeSelector],
   {a: "1"}]
- [$patch replace on a map, {metadata: {labels: {$patch: replace, only: "1"}}}, [metadata, labels],
   {only: "1"}]
- [$patch delete on a map empties it, {metadata: {labels: {$patch: delete}}}, [metadata, labels], {}]
- [$patch delete on a list item, {spec: {containers: [{name: sidecar, $patch: delete}]}},
   [spec, containers, -1, name], ap]
- [$patch replace as a list item, {spec: {containers: [{name: only, image: x}, {$patch: replace}]}},
   [spec, containers], [{name: only, image: x}]]
- [$patch replace alone empties the list, {spec: {containers: [{name: ap, env: [{$patch: replace}]}]}},
   [spec, containers, 0, env], []]
- [$deleteFromPrimitiveList, {metadata: {$deleteFromPrimitiveList/finalizers: [a/one, zzz]}},
   [metadata, finalizers], [b/two]]
- [$deleteFromPrimitiveList with an addition,
   {metadata: {$deleteFromPrimitiveList/finalizers: [b/two], finalizers: [c/three]}},
   [metadata, finalizers], [c/three, a/one]]
- [$deleteFromPrimitiveList set to null drops the list,
   {metadata: {$deleteFromPrimitiveList/finalizers: null}},
   [metadata], {name: ap, namespace: default, labels: {app: ap, tier: web}, annotations: {note: x},
                ownerReferences: [{uid: u1, kind: ReplicaSet, name: rs1}]}]
- [$retainKeys in a list item,
   {spec: {volumes: [{name: data, $retainKeys: [name, hostPath], hostPath: {path: /x}}]}},
   [spec, volumes], [{name: data, hostPath: {path: /x}}]]
- [$retainKeys on a map, {metadata: {annotations: {$retainKeys: [new], new: "1"}}}, [metadata, annotations],
   {new: "1"}]
- [$setElementOrder nested in a list item,
   {spec: {containers: [{name: ap, $setElementOrder/env: [{name: B}, {name: A}]}]}},
   [spec, containers, 0, env], [{name: B, value: "2"}, {name: A, value: "1"}]]
- [$setElementOrder of a primitive list, {metadata: {$setElementOrder/finalizers: [b/two, a/one]}},
   [metadata, finalizers], [b/two, a/one]]
- [a new list loses its directive items,
   {spec: {initContainers: [{name: init, $patch: delete}, {name: setup, env: [{name: E, $patch: delete}]}]}},
   [spec, initContainers], [{name: setup, env: []}]]
""")


@pytest.mark.parametrize(("patch", "path", "expected"), [
    pytest.param(patch, path, expected, id=name) for name, patch, path, expected in _POD_CASES])
def test_merge_keys_nulls_and_directives(patch: Any, path: list[Any], expected: Any) -> None:
    assert at(smp(patch), path) == expected


@pytest.mark.parametrize("patch", [
    pytest.param({"spec": {"containers": [{"name": "ghost", "$patch": "delete"}]}}, id="delete missing"),
    pytest.param({"spec": {"nodeSelector": {"$patch": "replace", "a": "1"}}}, id="new map with a directive"),
    pytest.param({"metadata": {"labels": {"absent": None}}, "spec": {"dnsPolicy": None}}, id="nulls"),
    pytest.param(None, id="a null patch"),
])
def test_patches_that_change_nothing(patch: Any) -> None:
    assert smp(patch) == pod()


def test_patch_delete_at_the_root_empties_the_object() -> None:
    assert smp({"$patch": "delete"}) == {}


# ---- upstream's own cases (apimachinery strategicpatch/patch_test.go), on its MergeItem type

_MERGING: dict[str, Any] = {"$strategy": "merge", "$mergeKey": "name"}
_ITEM: dict[str, Any] = {
    "mergingList": _MERGING, "nonMergingList": {}, "mergingIntList": {"$strategy": "merge"},
    "nonMergingIntList": {}, "simpleMap": {}, "replacingItem": {"$strategy": "replace"},
    "retainKeysMap": {"$strategy": "retainKeys"},
    "retainKeysMergingList": {"$strategy": "merge,retainKeys", "$mergeKey": "name"},
}
_MERGING.update(_ITEM)  # the items of mergingList are MergeItems again
_ITEM_CASES = yaml.safe_load("""
- [unique scalars when merging lists, {mergingIntList: [1, 2]}, {mergingIntList: [2, 3]},
   {mergingIntList: [1, 2, 3]}]
- [delete all items from merging list, {mergingList: [{name: 1}, {name: 2}]},
   {mergingList: [{$patch: replace}]}, {mergingList: []}]
- [delete all keys from map, {name: 1, value: 1}, {$patch: replace}, {}]
- [add key and delete all keys from map, {name: 1, value: 1}, {other: a, $patch: replace}, {other: a}]
- [delete all duplicate entries in a merging list,
   {mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]},
   {mergingList: [{name: 1, $patch: delete}, {name: 3, $patch: delete}]},
   {mergingList: [{name: 2, value: a}]}]
- [preserve the order from the patch in a merging list,
   {mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]},
   {mergingList: [{name: 3, value: c}, {name: 1, value: a}]},
   {mergingList: [{name: 2, value: b}, {name: 3, value: c}, {name: 1, value: a}]}]
- [preserve the order from the patch in a merging int list, {mergingIntList: [1, 2, 3]},
   {mergingIntList: [3, 1]}, {mergingIntList: [2, 3, 1]}]
- [setElementOrder with an item missing from the list, {mergingList: [{name: 1}, {name: 3}]},
   {$setElementOrder/mergingList: [{name: 3}, {name: 2}, {name: 1}],
    mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]},
   {mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]}]
- [setElementOrder of ints with an item missing, {mergingIntList: [1, 3]},
   {$setElementOrder/mergingIntList: [3, 2, 1]}, {mergingIntList: [3, 1]}]
- [deleteFromPrimitiveList of a missing item adds nothing, {mergingIntList: [1, 2]},
   {$deleteFromPrimitiveList/mergingIntList: [3]}, {mergingIntList: [1, 2]}]
- [deleteFromPrimitiveList on a missing list adds no list, {foo: [bar]},
   {$deleteFromPrimitiveList/mergingIntList: [3]}, {foo: [bar]}]
- [deleteFromPrimitiveList works without the merge strategy, {nonMergingIntList: [1, 2, 3]},
   {$deleteFromPrimitiveList/nonMergingIntList: [2]}, {nonMergingIntList: [1, 3]}]
- [nested patch merge with empty list, {name: hi, mergingList: [{name: hello2}]},
   {$setElementOrder/mergingList: [{name: hello}, {name: doesntexist}],
    mergingList: [{name: hello}, {$patch: delete, name: doesntexist}]},
   {name: hi, mergingList: [{name: hello}, {name: hello2}]}]
- [add and delete items in lists of scalars, {mergingIntList: [1, 2, 3, 4]},
   {$setElementOrder/mergingIntList: [1, 2, 4], $deleteFromPrimitiveList/mergingIntList: [3]},
   {mergingIntList: [1, 2, 4]}]
- [merge lists of maps, {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]},
   {$setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}],
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]},
   {mergingList: [{name: 4, value: 4}, {name: 1, other: a}, {name: 2, value: 2, other: b},
                  {name: 3, value: 3}]}]
- [add field to map in merging list with conflict,
   {mergingList: [{name: 1, other: a}, {name: 3, value: 2, other: b}]},
   {$setElementOrder/mergingList: [{name: 1}, {name: 2}],
    mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]},
   {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2}, {name: 3, value: 2, other: b}]}]
- [add map and delete map from merging list,
   {mergingList: [{name: 1}, {name: 2, other: b}, {name: 4, other: c}]},
   {$setElementOrder/mergingList: [{name: 2}, {name: 3}],
    mergingList: [{name: 3}, {name: 1, $patch: delete}]},
   {mergingList: [{name: 2, other: b}, {name: 4, other: c}, {name: 3}]}]
- [add map and delete map with conflict, {mergingList: [{name: 1, other: a}, {name: 4, other: c}]},
   {$setElementOrder/mergingList: [{name: 2}, {name: 3}],
    mergingList: [{name: 2}, {name: 3}, {name: 1, $patch: delete}]},
   {mergingList: [{name: 4, other: c}, {name: 2}, {name: 3}]}]
- [delete missing map from merging list with conflict, {mergingList: [{name: 3, other: a}]},
   {$setElementOrder/mergingList: [{name: 2}], mergingList: [{name: 2}, {name: 1, $patch: delete}]},
   {mergingList: [{name: 2}, {name: 3, other: a}]}]
- [replace non merging list nested in merging list,
   {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1}, {name: 2, value: 2}]},
                  {name: 2, other: b}]},
   {$setElementOrder/mergingList: [{name: 1}, {name: 2}],
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]},
   {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1, value: 1}]}, {name: 2, other: b}]}]
- [replace strategy takes the patch map as it is, {replacingItem: {a: 1, b: 2}},
   {replacingItem: {b: null, c: 3}}, {replacingItem: {b: null, c: 3}}]
- [retainKeys list can delete a field, {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]},
   {retainKeysMergingList: [{name: foo, value: null}]}, {retainKeysMergingList: [{name: bar}, {name: foo}]}]
- [retainKeys directive clears other fields, {retainKeysMap: {name: foo, value: a, other: b}},
   {retainKeysMap: {$retainKeys: [name, value], value: c}}, {retainKeysMap: {name: foo, value: c}}]
""")


@pytest.mark.parametrize(("original", "patch", "expected"), [
    pytest.param(original, patch, expected, id=name) for name, original, patch, expected in _ITEM_CASES])
def test_upstream_cases(original: Any, patch: Any, expected: Any) -> None:
    assert apply_strategic_merge_patch(original, patch, _ITEM) == expected


# ---- errors, as whole Status bodies


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                              "message": message}
    if reason:
        status["reason"] = reason
    if details is not None:
        status["details"] = details
    status["code"] = code
    return status


def _bad_request(message: str) -> dict[str, Any]:
    return _status(400, "BadRequest", message)


def _go_error(message: str) -> dict[str, Any]:
    """strategicpatch's plain Go errors: upstream's message, answered as 400 (upstream: a reasonless 500)."""
    return _status(400, "BadRequest", message)


_UNMARSHAL = "json: cannot unmarshal {} into Go value of type map[string]interface {{}}"
_MIXED = (
    "list element types are not identical: [[map[env:[map[name:A value:1] map[name:B value:2]] "
    "image:nginx:1.25 name:ap ports:[map[containerPort:80 protocol:TCP]] volumeMounts:[map[mountPath:/data "
    "name:data]]] map[image:busybox name:sidecar]] [ap]]"
)


@pytest.mark.parametrize(("patch", "expected"), [
    pytest.param([{"op": "add"}], _bad_request(_UNMARSHAL.format("array")), id="patch is an array"),
    pytest.param("x", _bad_request(_UNMARSHAL.format("string")), id="patch is a string"),
    pytest.param({"metadata": {"labels": {"$patch": "merge"}}},
                 _go_error("unknown patch type: merge in map: map[$patch:merge]"), id="$patch merge on map"),
    pytest.param({"metadata": {"labels": {"$patch": "remove", "a": 1}}},
                 _go_error("unknown patch type: remove in map: map[$patch:remove a:1]"), id="unknown $patch"),
    pytest.param({"metadata": {"labels": {"$patch": 7}}},
                 _go_error("unknown patch type: %!s(int64=7) in map: map[$patch:7]"), id="$patch not text"),
    pytest.param({"spec": {"containers": [{"name": "ap", "$patch": "merge"}]}},
                 _go_error("merging lists cannot yet be specified in the patch"), id="$patch merge in list"),
    pytest.param({"spec": {"containers": [{"name": "ap", "$patch": "bogus"}]}},
                 _go_error("unknown patch type: bogus in map: map[$patch:bogus name:ap]"),
                 id="unknown $patch in a list"),
    pytest.param({"spec": {"containers": [{"image": "x"}]}},
                 _go_error("map: map[image:x] does not contain declared merge key: name"),
                 id="item without its merge key"),
    pytest.param({"spec": {"containers": [{"$patch": "delete"}]}},
                 _go_error("map: map[$patch:delete] does not contain declared merge key: name"),
                 id="delete without the merge key"),
    pytest.param({"spec": {"containers": ["ap"]}}, _go_error(_MIXED), id="mixed item types"),
    pytest.param({"metadata": {"finalizers": [{"a": 1}]}},
                 _go_error("list element types are not identical: [[a/one b/two] [map[a:1]]]"),
                 id="objects in a primitive set"),
    pytest.param({"metadata": {"$deleteFromPrimitiveList": ["a"]}},
                 _bad_request("invalid patch format of primitive list"), id="$deleteFromPrimitiveList alone"),
    pytest.param({"metadata": {"$setElementOrderX/finalizers": ["a"]}},
                 _bad_request("invalid patch format of setElementOrder list"), id="bad $setElementOrder"),
    pytest.param({"metadata": {"$setElementOrder/finalizers": "a"}},
                 _go_error("expected a []interface {}, but received a string"), id="order not a list"),
    pytest.param({"spec": {"$setElementOrder/containers": [{"name": "ap"}],
                           "containers": [{"name": "sidecar", "image": "x"}]}},
                 _go_error("The order in patch list:\n[map[image:x name:sidecar]]\n doesn't match "
                           "$setElementOrder list:\n[map[name:ap]]\n"), id="order missing an item"),
    pytest.param({"metadata": {"labels": {"$retainKeys": "app"}}},
                 _bad_request("invalid patch format of retainKeys"), id="$retainKeys not a list"),
    pytest.param({"metadata": {"labels": {"$retainKeys": ["app"], "tier": "db"}}},
                 _bad_request("invalid patch format of retainKeys"), id="key missing from $retainKeys"),
])
def test_bad_patches_get_upstream_statuses(patch: Any, expected: dict[str, Any]) -> None:
    doc = pod()
    with pytest.raises(StatusError) as caught:
        smp(patch, doc)
    assert caught.value.to_status() == expected
    assert doc == pod()


def test_a_list_of_lists_is_unprocessable() -> None:
    doc = pod()
    doc["metadata"]["finalizers"] = []
    with pytest.raises(StatusError) as caught:
        smp({"metadata": {"finalizers": [["a"]]}}, doc)
    assert caught.value.to_status() == _status(
        422, "Invalid", "the server rejected our request due to an error in our request", {})


def test_float_values_in_error_messages_print_like_go() -> None:
    with pytest.raises(StatusError) as caught:
        smp({"spec": {"containers": [{"image": 1e6, "n": 0.00001, "m": 2.5, "f": 100.0}]}})
    assert caught.value.message == (
        "map: map[f:100 image:1e+06 m:2.5 n:1e-05] does not contain declared merge key: name")


# ---- purity


@pytest.mark.parametrize("patch", [
    {"metadata": {"labels": {"tier": None}, "$deleteFromPrimitiveList/finalizers": ["a/one"]}},
    {"spec": {"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "ap"}],
              "containers": [{"name": "ap", "env": [{"name": "A", "$patch": "delete"}]}]}},
    {"spec": {"$setElementOrder/containers": [{"name": "ap"}],
              "containers": [{"name": "sidecar", "$patch": "delete"}, {"name": "ap", "image": "y"}]}},
    {"spec": {"volumes": [{"name": "data", "$retainKeys": ["name"]}], "nodeSelector": {"a": None}}},
    {"metadata": {"labels": {"$patch": "replace", "x": "1"}}},
    {"$patch": "replace", "kind": "Pod"},
])
def test_applying_never_changes_its_inputs(patch: dict[str, Any]) -> None:
    doc, patch_before = pod(), copy.deepcopy(patch)
    result = smp(patch, doc)
    assert doc == pod() and patch == patch_before
    for value in result.values():  # the result shares nothing with the inputs either
        if isinstance(value, dict):
            for inner in value.values():
                if isinstance(inner, (dict, list)):
                    inner.clear()
    assert doc == pod() and patch == patch_before
