"""The paths of the OpenAPI documents: one operation per served endpoint, rendered for v3 and v2.

Operations are derived from the registries' ResourceInfo (verbs and subresources), so the documents
list exactly what the server routes. Names, actions and parameters follow upstream's api/v1 document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial

from fakeapi.kinds.kind import ResourceInfo, SubresourceInfo
from fakeapi.machinery.types import JSON
from fakeapi.openapi.parameters import (
    CONNECT,
    DELETE,
    DELETE_COLLECTION,
    LIST,
    LOG,
    PARAMETERS,
    PATCH,
    WRITE,
    query_v2,
    query_v3,
)

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
    group: str
    version: str
    query: tuple[str, ...] = ()
    request: str | None = None  # the component the body is, if any
    request_types: tuple[str, ...] = ("*/*",)
    responses: tuple[tuple[str, str, str], ...] = ()  # (code, description, component or TEXT)
    response_types: tuple[str, ...] = (JSON_TYPE,)
    documented: dict[str, tuple[str, str]] = field(default_factory=lambda: PARAMETERS)  # its query parameters


OperationFactory = partial[Operation]
"""An Operation with its kind, group and version already given."""


def subresource_component(info: ResourceInfo, sub: SubresourceInfo) -> str:
    """The definition a subresource takes and answers with: its own kind's, or the resource's."""
    return sub.definition or info.definition


def group_title(info: ResourceInfo) -> str:
    """The group version as operation ids spell it: CoreV1, CoordinationV1, RbacAuthorizationV1."""
    name = info.group.removesuffix(".k8s.io") if info.group else "core"
    return "".join(part.capitalize() for part in name.split(".")) + info.version.capitalize()


def tag(group: str, version: str) -> str:
    """Upstream's tag: core_v1, coordination_v1, rbacAuthorization_v1."""
    name = group.removesuffix(".k8s.io") if group else "core"
    parts = name.split(".")
    return parts[0] + "".join(part.capitalize() for part in parts[1:]) + "_" + version


def group_prefix(info: ResourceInfo) -> str:
    return f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"


def operations(infos: Iterable[ResourceInfo]) -> list[Operation]:
    """Every operation the server answers for these resources."""
    ops: list[Operation] = []
    for info in sorted(infos, key=lambda info: info.resource):
        ops += _resource_operations(info)
    return ops


def _resource_operations(info: ResourceInfo) -> list[Operation]:
    kind, verbs = info.kind, set(info.verbs)
    scope = "Namespaced" if info.namespaced else ""
    prefix, title = group_prefix(info), group_title(info)
    scoped = f"{prefix}/namespaces/{{namespace}}" if info.namespaced else prefix
    collection = f"{scoped}/{info.resource}"
    item = collection + "/{name}"
    obj, listed = info.definition, info.list_definition
    op = partial(Operation, kind=kind, group=info.group, version=info.version)
    ops: list[Operation] = []
    if "list" in verbs:
        ops.append(_list(op, collection, f"list{title}{scope}{kind}", listed))
        if info.namespaced:
            ops.append(_list(op, f"{prefix}/{info.resource}", f"list{title}{kind}ForAllNamespaces", listed))
    if "create" in verbs:
        ops.append(_create(op, collection, f"create{title}{scope}{kind}", f"create a {kind}", obj))
    if "deletecollection" in verbs:
        ops.append(
            op(
                collection,
                "delete",
                "deletecollection",
                f"delete{title}Collection{scope}{kind}",
                f"delete collection of {kind}",
                query=DELETE_COLLECTION,
                request=DELETE_OPTIONS_COMPONENT,
                responses=(("200", "OK", STATUS_COMPONENT),),
            )
        )
    if "get" in verbs:
        ops.append(
            op(
                item,
                "get",
                "get",
                f"read{title}{scope}{kind}",
                f"read the specified {kind}",
                responses=(("200", "OK", obj),),
            )
        )
    if "update" in verbs:
        ops.append(_replace(op, item, f"replace{title}{scope}{kind}", f"replace the specified {kind}", obj))
    if "patch" in verbs:
        ops.append(_patch(op, item, f"patch{title}{scope}{kind}", f"partially update the specified {kind}", obj))
    if "delete" in verbs:
        deleted = obj if info.returns_deleted_object else STATUS_COMPONENT
        ops.append(
            op(
                item,
                "delete",
                "delete",
                f"delete{title}{scope}{kind}",
                f"delete a {kind}",
                query=DELETE,
                request=DELETE_OPTIONS_COMPONENT,
                responses=(("200", "OK", deleted), ("202", "Accepted", deleted)),
            )
        )
    for sub in sorted(info.subresources, key=lambda sub: sub.name):
        sub_op = partial(Operation, kind=sub.kind, group=info.group if sub.group is None else sub.group,
                         version=sub.version or info.version)
        ops += _subresource_operations(sub_op, info, item, f"{title}{scope}{kind}{sub.name.capitalize()}", sub)
    return ops


def _subresource_operations(op: OperationFactory, info: ResourceInfo, item: str, suffix: str,
                            sub: SubresourceInfo) -> list[Operation]:
    path, parent, verbs, ops = f"{item}/{sub.name}", info.kind, set(sub.verbs), []
    obj = subresource_component(info, sub)
    if sub.name in CONNECT:  # upstream's connect operations: connectCoreV1GetNamespacedPodExec
        title = group_title(info)
        for method, verb in (("get", "Get"), ("post", "Post")):
            ops.append(op(path, method, "connect", f"connect{title}{verb}{suffix[len(title):]}",
                          f"connect {method.upper()} requests to {sub.name} of {parent}",
                          query=tuple(CONNECT[sub.name]), responses=(("200", "OK", TEXT),),
                          request_types=("*/*",), response_types=("*/*",), documented=CONNECT[sub.name]))
        return ops
    if sub.name == "log" and "get" in verbs:
        ops.append(
            op(
                path,
                "get",
                "get",
                "read" + suffix,
                f"read log of the specified {parent}",
                query=LOG,
                responses=(("200", "OK", TEXT),),
                response_types=("text/plain",),
            )
        )
    elif "get" in verbs:
        ops.append(
            op(
                path,
                "get",
                "get",
                "read" + suffix,
                f"read {sub.name} of the specified {parent}",
                responses=(("200", "OK", obj),),
            )
        )
    if "update" in verbs:
        ops.append(_replace(op, path, "replace" + suffix, f"replace {sub.name} of the specified {parent}", obj))
    if "patch" in verbs:
        ops.append(_patch(op, path, "patch" + suffix, f"partially update {sub.name} of the specified {parent}", obj))
    if "create" in verbs:
        ops.append(_create(op, path, "create" + suffix, f"create {sub.name} of a {parent}", obj))
    return ops


def _list(op: OperationFactory, path: str, operation_id: str, listed: str) -> Operation:
    return op(
        path,
        "get",
        "list",
        operation_id,
        f"list or watch objects of kind {op.keywords['kind']}",
        query=LIST,
        responses=(("200", "OK", listed),),
        response_types=(JSON_TYPE, WATCH_TYPE),
    )


def _create(op: OperationFactory, path: str, operation_id: str, description: str, obj: str) -> Operation:
    return op(
        path,
        "post",
        "post",
        operation_id,
        description,
        query=WRITE,
        request=obj,
        responses=(("200", "OK", obj), ("201", "Created", obj), ("202", "Accepted", obj)),
    )


def _replace(op: OperationFactory, path: str, operation_id: str, description: str, obj: str) -> Operation:
    return op(
        path,
        "put",
        "put",
        operation_id,
        description,
        query=WRITE,
        request=obj,
        responses=(("200", "OK", obj), ("201", "Created", obj)),
    )


def _patch(op: OperationFactory, path: str, operation_id: str, description: str, obj: str) -> Operation:
    return op(
        path,
        "patch",
        "patch",
        operation_id,
        description,
        query=PATCH,
        request=PATCH_COMPONENT,
        request_types=PATCH_TYPES,
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


def _gvk(op: Operation) -> JSON:
    return {"group": op.group, "version": op.version, "kind": op.kind}


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
                "tags": [tag(op.group, op.version)],
                "description": op.description,
                "operationId": op.operation_id,
                "x-kubernetes-action": op.action,
                "x-kubernetes-group-version-kind": _gvk(op),
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
                body["parameters"] = [query_v3(name, op.documented) for name in op.query]
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
            parameters = [query_v2(name, op.documented) for name in op.query]
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
                "tags": [tag(op.group, op.version)],
                "description": op.description,
                "operationId": op.operation_id,
                "consumes": list(op.request_types),
                "produces": list(op.response_types),
                "schemes": ["https"],
                "x-kubernetes-action": op.action,
                "x-kubernetes-group-version-kind": _gvk(op),
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
