"""The paths of the api/v1 OpenAPI documents: one operation per served endpoint, rendered for v3 and v2.

Operations are derived from the registries' ResourceInfo (verbs and subresources), so the documents
list exactly what the server routes. Names, actions and parameters follow upstream's api/v1 document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from fakeapi.machinery.types import JSON
from fakeapi.openapi.parameters import DELETE, DELETE_COLLECTION, LIST, LOG, PATCH, WRITE, query_v2, query_v3
from fakeapi.registry.generic import ResourceInfo, SubresourceInfo

JSON_TYPE = "application/json"
WATCH_TYPE = "application/json;stream=watch"
PATCH_TYPES = (
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
)
PATCH_COMPONENT = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
STATUS_COMPONENT = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
DELETE_OPTIONS_COMPONENT = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
TEXT = ""  # a response that is plain text, not a component


@dataclass(frozen=True)
class Operation:
    path: str
    method: str
    action: str  # x-kubernetes-action
    operation_id: str
    description: str
    kind: str  # the kind of x-kubernetes-group-version-kind
    query: tuple[str, ...] = ()
    request: str | None = None  # the component the body is, if any
    request_types: tuple[str, ...] = ("*/*",)
    responses: tuple[tuple[str, str, str], ...] = ()  # (code, description, component or TEXT)
    response_types: tuple[str, ...] = (JSON_TYPE,)


def component(kind: str) -> str:
    return f"io.k8s.api.core.v1.{kind}"


def operations(infos: Iterable[ResourceInfo]) -> list[Operation]:
    """Every operation the server answers for these resources."""
    ops: list[Operation] = []
    for info in sorted(infos, key=lambda info: info.resource):
        ops += _resource_operations(info)
    return ops


def _resource_operations(info: ResourceInfo) -> list[Operation]:
    kind, verbs = info.kind, set(info.verbs)
    scope = "Namespaced" if info.namespaced else ""
    collection = (
        f"/api/v1/namespaces/{{namespace}}/{info.resource}" if info.namespaced else f"/api/v1/{info.resource}"
    )
    item = collection + "/{name}"
    obj, listed = component(kind), component(kind + "List")
    ops: list[Operation] = []
    if "list" in verbs:
        ops.append(_list(collection, f"listCoreV1{scope}{kind}", kind, listed))
        if info.namespaced:
            ops.append(_list(f"/api/v1/{info.resource}", f"listCoreV1{kind}ForAllNamespaces", kind, listed))
    if "create" in verbs:
        ops.append(_create(collection, f"createCoreV1{scope}{kind}", f"create a {kind}", kind))
    if "deletecollection" in verbs:
        ops.append(
            Operation(
                collection,
                "delete",
                "deletecollection",
                f"deleteCoreV1Collection{scope}{kind}",
                f"delete collection of {kind}",
                kind,
                DELETE_COLLECTION,
                DELETE_OPTIONS_COMPONENT,
                responses=(("200", "OK", STATUS_COMPONENT),),
            )
        )
    if "get" in verbs:
        ops.append(
            Operation(
                item,
                "get",
                "get",
                f"readCoreV1{scope}{kind}",
                f"read the specified {kind}",
                kind,
                responses=(("200", "OK", obj),),
            )
        )
    if "update" in verbs:
        ops.append(_replace(item, f"replaceCoreV1{scope}{kind}", f"replace the specified {kind}", kind))
    if "patch" in verbs:
        ops.append(_patch(item, f"patchCoreV1{scope}{kind}", f"partially update the specified {kind}", kind))
    if "delete" in verbs:
        deleted = obj if info.returns_deleted_object else STATUS_COMPONENT
        ops.append(
            Operation(
                item,
                "delete",
                "delete",
                f"deleteCoreV1{scope}{kind}",
                f"delete a {kind}",
                kind,
                DELETE,
                DELETE_OPTIONS_COMPONENT,
                responses=(("200", "OK", deleted), ("202", "Accepted", deleted)),
            )
        )
    for sub in sorted(info.subresources, key=lambda sub: sub.name):
        ops += _subresource_operations(item, f"CoreV1{scope}{kind}{sub.name.capitalize()}", kind, sub)
    return ops


def _subresource_operations(item: str, suffix: str, parent: str, sub: SubresourceInfo) -> list[Operation]:
    path, kind, verbs, ops = f"{item}/{sub.name}", sub.kind, set(sub.verbs), []
    if sub.name == "log" and "get" in verbs:
        ops.append(
            Operation(
                path,
                "get",
                "get",
                "read" + suffix,
                f"read log of the specified {parent}",
                kind,
                LOG,
                responses=(("200", "OK", TEXT),),
                response_types=("text/plain",),
            )
        )
    elif "get" in verbs:
        ops.append(
            Operation(
                path,
                "get",
                "get",
                "read" + suffix,
                f"read {sub.name} of the specified {parent}",
                kind,
                responses=(("200", "OK", component(kind)),),
            )
        )
    if "update" in verbs:
        ops.append(_replace(path, "replace" + suffix, f"replace {sub.name} of the specified {parent}", kind))
    if "patch" in verbs:
        ops.append(
            _patch(path, "patch" + suffix, f"partially update {sub.name} of the specified {parent}", kind)
        )
    if "create" in verbs:
        ops.append(_create(path, "create" + suffix, f"create {sub.name} of a {parent}", kind))
    return ops


def _list(path: str, operation_id: str, kind: str, listed: str) -> Operation:
    return Operation(
        path,
        "get",
        "list",
        operation_id,
        f"list or watch objects of kind {kind}",
        kind,
        LIST,
        responses=(("200", "OK", listed),),
        response_types=(JSON_TYPE, WATCH_TYPE),
    )


def _create(path: str, operation_id: str, description: str, kind: str) -> Operation:
    obj = component(kind)
    return Operation(
        path,
        "post",
        "post",
        operation_id,
        description,
        kind,
        WRITE,
        obj,
        responses=(("200", "OK", obj), ("201", "Created", obj), ("202", "Accepted", obj)),
    )


def _replace(path: str, operation_id: str, description: str, kind: str) -> Operation:
    obj = component(kind)
    return Operation(
        path,
        "put",
        "put",
        operation_id,
        description,
        kind,
        WRITE,
        obj,
        responses=(("200", "OK", obj), ("201", "Created", obj)),
    )


def _patch(path: str, operation_id: str, description: str, kind: str) -> Operation:
    obj = component(kind)
    return Operation(
        path,
        "patch",
        "patch",
        operation_id,
        description,
        kind,
        PATCH,
        PATCH_COMPONENT,
        PATCH_TYPES,
        responses=(("200", "OK", obj), ("201", "Created", obj)),
    )


# ---- rendering


def _path_parameters(path: str, kind: str) -> list[tuple[str, str]]:
    params = []
    if "{name}" in path:
        params.append(("name", f"name of the {kind}"))
    if "{namespace}" in path:
        params.append(("namespace", "object name and auth scope, such as for teams and projects"))
    return params


def _gvk(kind: str) -> JSON:
    return {"group": "", "version": "v1", "kind": kind}


def _group_by_path(ops: list[Operation]) -> dict[str, list[Operation]]:
    by_path: dict[str, list[Operation]] = {}
    for op in ops:
        by_path.setdefault(op.path, []).append(op)
    return by_path


def paths_v3(ops: list[Operation], ref: Callable[[str], JSON]) -> JSON:
    """OpenAPI 3 path items; `ref(component)` makes a reference to a component schema."""
    paths: JSON = {}
    for path, path_ops in _group_by_path(ops).items():
        item: JSON = {
            "parameters": [
                {
                    "name": name,
                    "in": "path",
                    "description": text,
                    "required": True,
                    "schema": {"type": "string", "uniqueItems": True},
                }
                for name, text in _path_parameters(path, path_ops[0].kind)
            ]
            + [query_v3("pretty")]
        }
        for op in path_ops:
            body: JSON = {
                "tags": ["core_v1"],
                "description": op.description,
                "operationId": op.operation_id,
                "x-kubernetes-action": op.action,
                "x-kubernetes-group-version-kind": _gvk(op.kind),
                "responses": {
                    code: {
                        "description": text,
                        "content": {
                            media: {"schema": ref(schema) if schema else {"type": "string"}}
                            for media in op.response_types
                        },
                    }
                    for code, text, schema in op.responses
                },
            }
            if op.query:
                body["parameters"] = [query_v3(name) for name in op.query]
            if op.request:
                body["requestBody"] = {
                    "content": {media: {"schema": ref(op.request)} for media in op.request_types},
                    "required": op.method != "delete",
                }
            item[op.method] = body
        paths[path] = item
    return paths


def paths_v2(ops: list[Operation], ref: Callable[[str], JSON]) -> JSON:
    """Swagger 2.0 path items; `ref(component)` makes a reference to a definition."""
    paths: JSON = {}
    for path, path_ops in _group_by_path(ops).items():
        item: JSON = {
            "parameters": [
                {
                    "name": name,
                    "in": "path",
                    "description": text,
                    "required": True,
                    "type": "string",
                    "uniqueItems": True,
                }
                for name, text in _path_parameters(path, path_ops[0].kind)
            ]
            + [query_v2("pretty")]
        }
        for op in path_ops:
            parameters = [query_v2(name) for name in op.query]
            if op.request:
                parameters.insert(
                    0,
                    {
                        "name": "body",
                        "in": "body",
                        "required": op.method != "delete",
                        "schema": ref(op.request),
                    },
                )
            body: JSON = {
                "tags": ["core_v1"],
                "description": op.description,
                "operationId": op.operation_id,
                "consumes": list(op.request_types),
                "produces": list(op.response_types),
                "schemes": ["https"],
                "x-kubernetes-action": op.action,
                "x-kubernetes-group-version-kind": _gvk(op.kind),
                "responses": {
                    code: {"description": text, "schema": ref(schema) if schema else {"type": "string"}}
                    for code, text, schema in op.responses
                },
            }
            if parameters:
                body["parameters"] = parameters
            item[op.method] = body
        paths[path] = item
    return paths
