"""The OpenAPI documents: committed == generated, what kubectl reads from them, and how they are served."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from fakeapi.app import create_app
from fakeapi.cli import main
from fakeapi.http.keys import api_key
from fakeapi.http.openapi import go_rfc1123, openapi_key, served_documents
from fakeapi.kinds.lease import LEASE
from fakeapi.openapi import DOCUMENTS_DIR, V2_DOCUMENT, v3_document
from fakeapi.openapi.build import render, stale_documents

V3_DOCUMENT = v3_document("api/v1")
V3 = json.loads((DOCUMENTS_DIR / V3_DOCUMENT).read_text())
COORDINATION = json.loads((DOCUMENTS_DIR / v3_document("apis/coordination.k8s.io/v1")).read_text())
EVENTS = json.loads((DOCUMENTS_DIR / v3_document("apis/events.k8s.io/v1")).read_text())
APIEXTENSIONS = json.loads((DOCUMENTS_DIR / v3_document("apis/apiextensions.k8s.io/v1")).read_text())
V2 = json.loads((DOCUMENTS_DIR / V2_DOCUMENT).read_text())
SCHEMAS = V3["components"]["schemas"]
KINDS = ("Pod", "Namespace", "Event", "Node", "Binding")


def test_committed_documents_are_what_the_schemas_generate() -> None:
    stale = stale_documents(served_documents(create_app()), DOCUMENTS_DIR)
    assert stale == [], f"run `fakeapi openapi` to regenerate {stale}"


def test_openapi_check_command_fails_when_a_committed_file_differs(tmp_path: Path) -> None:
    assert main(["openapi", "--output-dir", str(tmp_path)]) == 0
    assert main(["openapi", "--output-dir", str(tmp_path), "--check"]) == 0
    written = tmp_path / V3_DOCUMENT
    assert written.read_text() == render(served_documents(create_app())[V3_DOCUMENT])
    written.write_text(written.read_text().replace("Pod", "Pdo", 1))
    assert main(["openapi", "--output-dir", str(tmp_path), "--check"]) == 1
    (tmp_path / V2_DOCUMENT).unlink()
    assert main(["openapi", "--output-dir", str(tmp_path), "--check"]) == 1


def test_documents_are_rendered_with_sorted_keys() -> None:
    text = (DOCUMENTS_DIR / V3_DOCUMENT).read_text()
    assert text == json.dumps(V3, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def patch_operations(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for item in document["paths"].values():
        if "patch" in item:
            yield item["patch"]


@pytest.mark.parametrize(
    ("document", "group", "kind"),
    [(document, "", kind) for document in (V3, V2)
     for kind in ("Pod", "Namespace", "Event", "Node", "ConfigMap", "Secret", "ServiceAccount")]
    + [(COORDINATION, "coordination.k8s.io", "Lease"), (V2, "coordination.k8s.io", "Lease")],
)
def test_each_created_kind_has_a_patch_operation_with_its_gvk_and_field_validation(
    document: dict[str, Any], group: str, kind: str
) -> None:
    """What kubectl's query-param verifier looks for before it sends fieldValidation=Strict."""
    supported = [
        op
        for op in patch_operations(document)
        if op["x-kubernetes-group-version-kind"] == {"group": group, "version": "v1", "kind": kind}
        and op["x-kubernetes-action"] == "patch"
        and any(p["name"] == "fieldValidation" and p["in"] == "query" for p in op["parameters"])
    ]
    assert supported


def test_patch_operations_accept_the_four_patch_content_types() -> None:
    op = V3["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"]
    assert op["operationId"] == "patchCoreV1NamespacedPod"
    assert sorted(op["requestBody"]["content"]) == [
        "application/apply-patch+yaml",
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
    ]
    assert [p["name"] for p in op["parameters"]] == ["dryRun", "fieldManager", "fieldValidation", "force"]


def test_paths_cover_every_served_endpoint() -> None:
    assert {path: sorted(set(item) - {"parameters"}) for path, item in V3["paths"].items()} == {
        "/api/v1/events": ["get"],
        "/api/v1/namespaces": ["get", "post"],
        "/api/v1/namespaces/{name}": ["delete", "get", "patch", "put"],
        "/api/v1/namespaces/{name}/finalize": ["put"],
        "/api/v1/namespaces/{name}/status": ["get", "patch", "put"],
        "/api/v1/namespaces/{namespace}/events": ["delete", "get", "post"],
        "/api/v1/namespaces/{namespace}/events/{name}": ["delete", "get", "patch", "put"],
        "/api/v1/namespaces/{namespace}/pods": ["delete", "get", "post"],
        "/api/v1/namespaces/{namespace}/pods/{name}": ["delete", "get", "patch", "put"],
        "/api/v1/namespaces/{namespace}/pods/{name}/binding": ["post"],
        "/api/v1/namespaces/{namespace}/pods/{name}/eviction": ["post"],
        "/api/v1/namespaces/{namespace}/pods/{name}/attach": ["get", "post"],
        "/api/v1/namespaces/{namespace}/pods/{name}/exec": ["get", "post"],
        "/api/v1/namespaces/{namespace}/pods/{name}/log": ["get"],
        "/api/v1/namespaces/{namespace}/pods/{name}/portforward": ["get", "post"],
        "/api/v1/namespaces/{namespace}/pods/{name}/resize": ["get", "patch", "put"],
        "/api/v1/namespaces/{namespace}/pods/{name}/status": ["get", "patch", "put"],
        "/api/v1/nodes": ["delete", "get", "post"],
        "/api/v1/nodes/{name}": ["delete", "get", "patch", "put"],
        "/api/v1/nodes/{name}/status": ["get", "patch", "put"],
        "/api/v1/pods": ["get"],
        "/api/v1/namespaces/{namespace}/bindings": ["post"],
        "/api/v1/configmaps": ["get"],
        "/api/v1/namespaces/{namespace}/configmaps": ["delete", "get", "post"],
        "/api/v1/namespaces/{namespace}/configmaps/{name}": ["delete", "get", "patch", "put"],
        "/api/v1/secrets": ["get"],
        "/api/v1/namespaces/{namespace}/secrets": ["delete", "get", "post"],
        "/api/v1/namespaces/{namespace}/secrets/{name}": ["delete", "get", "patch", "put"],
        "/api/v1/serviceaccounts": ["get"],
        "/api/v1/namespaces/{namespace}/serviceaccounts": ["delete", "get", "post"],
        "/api/v1/namespaces/{namespace}/serviceaccounts/{name}": ["delete", "get", "patch", "put"],
        "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token": ["post"],
        "/api/v1/replicationcontrollers": ["get"],
        "/api/v1/namespaces/{namespace}/replicationcontrollers": ["delete", "get", "post"],
        "/api/v1/namespaces/{namespace}/replicationcontrollers/{name}": ["delete", "get", "patch", "put"],
        "/api/v1/namespaces/{namespace}/replicationcontrollers/{name}/scale": ["get", "patch", "put"],
        "/api/v1/namespaces/{namespace}/replicationcontrollers/{name}/status": ["get", "patch", "put"],
        "/api/v1/persistentvolumeclaims": ["get"],
        "/api/v1/namespaces/{namespace}/persistentvolumeclaims": ["delete", "get", "post"],
        "/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}": ["delete", "get", "patch", "put"],
        "/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}/status": ["get", "patch", "put"],
        "/api/v1/services": ["get"],
        "/api/v1/namespaces/{namespace}/services": ["delete", "get", "post"],
        "/api/v1/namespaces/{namespace}/services/{name}": ["delete", "get", "patch", "put"],
        "/api/v1/namespaces/{namespace}/services/{name}/status": ["get", "patch", "put"],
        "/api/v1/endpoints": ["get"],
        "/api/v1/namespaces/{namespace}/endpoints": ["delete", "get", "post"],
        "/api/v1/namespaces/{namespace}/endpoints/{name}": ["delete", "get", "patch", "put"],
    }
    assert {path: sorted(set(item) - {"parameters"}) for path, item in COORDINATION["paths"].items()} == {
        "/apis/coordination.k8s.io/v1/leases": ["get"],
        "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases": ["delete", "get", "post"],
        "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}": ["delete", "get", "patch", "put"],
    }
    reviews = {"/apis/authentication.k8s.io/v1/selfsubjectreviews", "/apis/authentication.k8s.io/v1/tokenreviews", *(
        f"/apis/authorization.k8s.io/v1/{resource}"
        for resource in ("selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews",
                         "namespaces/{namespace}/localsubjectaccessreviews"))}
    named_groups = [json.loads(path.read_text()) for path in (DOCUMENTS_DIR / "v3").glob("apis__*")]
    assert set(V2["paths"]) == set(V3["paths"]).union(*(document["paths"] for document in named_groups))
    assert set(COORDINATION["paths"]) | set(EVENTS["paths"]) | reviews <= set(V2["paths"])
    for group_version in ("apis/authentication.k8s.io/v1", "apis/authorization.k8s.io/v1"):
        document = json.loads((DOCUMENTS_DIR / v3_document(group_version)).read_text())
        assert set(document["paths"]) == {path for path in reviews if path.startswith("/" + group_version)}
        assert all(set(item) == {"parameters", "post"} for item in document["paths"].values())


@pytest.mark.parametrize(
    ("path", "method", "operation_id", "action", "kind"),
    [
        ("/api/v1/pods", "get", "listCoreV1PodForAllNamespaces", "list", "Pod"),
        (
            "/api/v1/namespaces/{namespace}/pods",
            "delete",
            "deleteCoreV1CollectionNamespacedPod",
            "deletecollection",
            "Pod",
        ),
        (
            "/api/v1/namespaces/{namespace}/pods/{name}/status",
            "patch",
            "patchCoreV1NamespacedPodStatus",
            "patch",
            "Pod",
        ),
        (
            "/api/v1/namespaces/{namespace}/pods/{name}/binding",
            "post",
            "createCoreV1NamespacedPodBinding",
            "post",
            "Binding",
        ),
        ("/api/v1/namespaces/{namespace}/pods/{name}/log", "get", "readCoreV1NamespacedPodLog", "get", "Pod"),
        ("/api/v1/namespaces", "post", "createCoreV1Namespace", "post", "Namespace"),
        (
            "/api/v1/namespaces/{namespace}/events/{name}",
            "put",
            "replaceCoreV1NamespacedEvent",
            "put",
            "Event",
        ),
        ("/api/v1/nodes", "delete", "deleteCoreV1CollectionNode", "deletecollection", "Node"),
        ("/api/v1/nodes/{name}/status", "patch", "patchCoreV1NodeStatus", "patch", "Node"),
    ],
)
def test_operations_carry_upstreams_ids_actions_and_kinds(
    path: str, method: str, operation_id: str, action: str, kind: str
) -> None:
    for document in (V3, V2):
        op = document["paths"][path][method]
        assert (op["operationId"], op["x-kubernetes-action"]) == (operation_id, action)
        assert op["x-kubernetes-group-version-kind"] == {"group": "", "version": "v1", "kind": kind}
        assert op["tags"] == ["core_v1"]


@pytest.mark.parametrize(
    ("path", "method", "operation_id", "action"),
    [
        ("/apis/coordination.k8s.io/v1/leases", "get", "listCoordinationV1LeaseForAllNamespaces", "list"),
        ("/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}", "put",
         "replaceCoordinationV1NamespacedLease", "put"),
        ("/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases", "delete",
         "deleteCoordinationV1CollectionNamespacedLease", "deletecollection"),
    ],
)
def test_a_named_groups_operations_carry_its_group(path: str, method: str, operation_id: str, action: str) -> None:
    for document in (COORDINATION, V2):
        op = document["paths"][path][method]
        assert (op["operationId"], op["x-kubernetes-action"]) == (operation_id, action)
        assert op["x-kubernetes-group-version-kind"] == {"group": "coordination.k8s.io", "version": "v1",
                                                         "kind": "Lease"}
        assert op["tags"] == ["coordination_v1"]


def test_a_named_groups_document_has_its_components_and_none_of_core() -> None:
    schemas = COORDINATION["components"]["schemas"]
    for kind in ("Lease", "LeaseList"):
        assert schemas[f"io.k8s.api.coordination.v1.{kind}"]["x-kubernetes-group-version-kind"] == [
            {"group": "coordination.k8s.io", "version": "v1", "kind": kind}]
    renew = schemas["io.k8s.api.coordination.v1.LeaseSpec"]["properties"]["renewTime"]
    assert renew["allOf"] == [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"}]
    assert not [name for name in schemas if name.startswith("io.k8s.api.core.")]
    assert "io.k8s.api.coordination.v1.Lease" not in SCHEMAS


@pytest.mark.parametrize(
    ("group_version", "path", "operation_id", "gvk"),
    [
        ("api/v1", "/api/v1/namespaces/{namespace}/pods/{name}/eviction", "createCoreV1NamespacedPodEviction",
         ("policy", "v1", "Eviction")),
        ("apis/authorization.k8s.io/v1", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
         "createAuthorizationV1SelfSubjectAccessReview", ("authorization.k8s.io", "v1", "SelfSubjectAccessReview")),
        ("apis/authentication.k8s.io/v1", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
         "createAuthenticationV1SelfSubjectReview", ("authentication.k8s.io", "v1", "SelfSubjectReview")),
    ],
)
def test_create_only_operations_name_the_kind_they_take(
    group_version: str, path: str, operation_id: str, gvk: tuple[str, str, str]
) -> None:
    v3 = json.loads((DOCUMENTS_DIR / v3_document(group_version)).read_text())
    group, version, kind = gvk
    component = f"io.k8s.api.{group.split('.')[0]}.{version}.{kind}"
    for document, prefix in ((v3, "#/components/schemas/"), (V2, "#/definitions/")):
        op = document["paths"][path]["post"]
        assert (op["operationId"], op["x-kubernetes-action"]) == (operation_id, "post")
        assert op["x-kubernetes-group-version-kind"] == {"group": group, "version": version, "kind": kind}
        schemas = document["components"]["schemas"] if prefix.startswith("#/c") else document["definitions"]
        assert schemas[component]["x-kubernetes-group-version-kind"] == [
            {"group": group, "version": version, "kind": kind}]
    body = v3["paths"][path]["post"]["requestBody"]["content"]["*/*"]["schema"]
    assert body == {"$ref": "#/components/schemas/" + component}


def test_deleting_an_event_is_documented_to_answer_a_status_and_a_pod_the_pod() -> None:
    event = V3["paths"]["/api/v1/namespaces/{namespace}/events/{name}"]["delete"]["responses"]["200"]
    pod = V3["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["delete"]["responses"]["200"]
    assert event["content"]["application/json"]["schema"]["$ref"].endswith("meta.v1.Status")
    assert pod["content"]["application/json"]["schema"]["$ref"].endswith("core.v1.Pod")


def refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):  # (JSONSchemaProps has a property named $ref)
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


@pytest.mark.parametrize(
    ("document", "prefix", "section"),
    [
        (V3, "#/components/schemas/", V3["components"]["schemas"]),
        (V2, "#/definitions/", V2["definitions"]),
    ],
    ids=["v3", "v2"],
)
def test_every_reference_resolves(document: dict[str, Any], prefix: str, section: dict[str, Any]) -> None:
    targets = set(refs(document))
    assert targets
    assert {target for target in targets if target.removeprefix(prefix) not in section} == set()


@pytest.mark.parametrize("kind", [*KINDS, "PodList", "EventList", "NodeList", "Status", "DeleteOptions"])
def test_kinds_carry_their_group_version_kind(kind: str) -> None:
    name = next(name for name in SCHEMAS if name.endswith(f".{kind}"))
    # (upstream lists DeleteOptions under every group version; the core one first)
    assert SCHEMAS[name]["x-kubernetes-group-version-kind"][0] == {"group": "", "version": "v1", "kind": kind}


def test_component_names_are_upstreams() -> None:
    for name in (
        "io.k8s.api.core.v1.Pod",
        "io.k8s.api.core.v1.PodSpec",
        "io.k8s.api.core.v1.Container",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "io.k8s.apimachinery.pkg.api.resource.Quantity",
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
    ):
        assert name in SCHEMAS


def test_list_keys_and_patch_strategies_are_carried_for_strategic_merge() -> None:
    containers = SCHEMAS["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["x-kubernetes-patch-strategy"] == "merge"
    assert containers["x-kubernetes-list-type"] == "map"
    assert containers["x-kubernetes-list-map-keys"] == ["name"]
    assert containers["items"] == {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}],
                                   "default": {}}
    assert "containers" in SCHEMAS["io.k8s.api.core.v1.PodSpec"]["required"]
    finalizers = SCHEMAS["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["finalizers"]
    assert finalizers["x-kubernetes-list-type"] == "set"
    reference = SCHEMAS["io.k8s.api.core.v1.ObjectReference"]
    assert reference["x-kubernetes-map-type"] == "atomic"
    status = SCHEMAS["io.k8s.api.core.v1.NodeStatus"]["properties"]
    for listed in ("conditions", "addresses"):
        assert (status[listed]["x-kubernetes-patch-merge-key"], status[listed]["x-kubernetes-list-map-keys"]) == (
            "type", ["type"])
    spec = SCHEMAS["io.k8s.api.core.v1.NodeSpec"]["properties"]
    assert (spec["podCIDRs"]["x-kubernetes-patch-strategy"], spec["podCIDRs"]["x-kubernetes-list-type"]) == (
        "merge", "set")
    assert spec["taints"]["x-kubernetes-list-type"] == "atomic"


def test_fields_have_descriptions_and_wire_types_reference_shared_components() -> None:
    container = SCHEMAS["io.k8s.api.core.v1.Container"]
    assert container["description"]
    assert container["properties"]["image"]["description"]
    assert container["properties"]["image"]["type"] == "string"
    limits = SCHEMAS["io.k8s.api.core.v1.ResourceRequirements"]["properties"]["limits"]
    quantity = "io.k8s.apimachinery.pkg.api.resource.Quantity"
    assert limits["additionalProperties"] == {"allOf": [{"$ref": f"#/components/schemas/{quantity}"}]}
    # v3 says which JSON types a Quantity takes (so explain names it); v2 calls it a string
    assert SCHEMAS[quantity]["oneOf"] == [{"type": "string"}, {"type": "number"}]
    assert V2["definitions"][quantity]["type"] == "string"
    created = SCHEMAS["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["creationTimestamp"]
    assert created["allOf"] == [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}]
    assert created["description"]
    generation = SCHEMAS["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["generation"]
    assert (generation["type"], generation["format"]) == ("integer", "int64")


# ---- serving


async def discovery_url(client: Any) -> str:
    response = await client.get("/openapi/v3", headers={"Accept": "application/json, */*"})
    assert response.status == 200
    assert response.headers["Content-Type"] == "application/json"
    body = await response.json()
    assert list(body["paths"]) == [
        "api/v1", "apis/admissionregistration.k8s.io/v1", "apis/apiextensions.k8s.io/v1", "apis/apps/v1",
        "apis/authentication.k8s.io/v1", "apis/authorization.k8s.io/v1",
        "apis/autoscaling/v1", "apis/autoscaling/v2", "apis/batch/v1", "apis/certificates.k8s.io/v1",
        "apis/coordination.k8s.io/v1", "apis/discovery.k8s.io/v1", "apis/events.k8s.io/v1", "apis/policy/v1",
        "apis/rbac.authorization.k8s.io/v1"]
    url: str = body["paths"]["api/v1"]["serverRelativeURL"]
    return url


async def test_v3_root_names_the_document_by_its_etag(client: Any) -> None:
    url = await discovery_url(client)
    assert url.startswith("/openapi/v3/api/v1?hash=")
    digest = url.rsplit("=", 1)[1]
    assert len(digest) == 128 and digest == digest.upper()
    response = await client.get(url, headers={"Accept": "application/json"})
    assert response.headers["Etag"] == f'"{digest}"'
    assert json.loads(await response.read()) == V3


async def test_v3_document_with_its_hash_is_immutable_for_a_year(client: Any) -> None:
    url = await discovery_url(client)
    response = await client.get(url, headers={"Accept": "application/json"})
    assert response.status == 200
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["Cache-Control"] == "public, immutable"
    assert response.headers["Vary"] == "Accept"
    expires = datetime.strptime(response.headers["Expires"], "%a, %d %b %Y %H:%M:%S UTC").replace(tzinfo=UTC)
    days = (expires - datetime.now(UTC)).days
    assert 363 <= days <= 366
    assert "Last-Modified" in response.headers


async def test_v3_document_without_a_hash_has_no_cache_headers(client: Any) -> None:
    response = await client.get("/openapi/v3/api/v1", headers={"Accept": "application/json"})
    assert response.status == 200
    assert "Cache-Control" not in response.headers and "Expires" not in response.headers
    assert response.headers["Etag"]


async def test_v3_document_with_a_stale_hash_redirects_to_the_current_url(client: Any) -> None:
    url = await discovery_url(client)
    response = await client.get("/openapi/v3/api/v1?hash=OLD", allow_redirects=False)
    assert response.status == 301
    assert response.headers["Location"] == url


async def test_v3_document_answers_304_to_its_etag(client: Any) -> None:
    url = await discovery_url(client)
    first = await client.get(url)
    again = await client.get(url, headers={"If-None-Match": first.headers["Etag"]})
    assert again.status == 304
    assert await again.read() == b""
    root = await client.get("/openapi/v3")
    root_again = await client.get("/openapi/v3", headers={"If-None-Match": root.headers["Etag"]})
    assert root_again.status == 304


@pytest.mark.parametrize(
    ("accept", "status"),
    [
        ("application/com.github.proto-openapi.spec.v3@v1.0+protobuf", 406),
        ("text/html", 406),
        ("application/com.github.proto-openapi.spec.v3@v1.0+protobuf, application/json", 200),
        ("application/*", 200),
        ("", 200),
    ],
)
async def test_v3_document_negotiates_json_only(client: Any, accept: str, status: int) -> None:
    response = await client.get("/openapi/v3/api/v1", headers={"Accept": accept} if accept else {})
    assert response.status == status
    assert response.headers["Vary"] == "Accept"


async def test_a_named_group_versions_document_is_served_under_its_discovery_url(client: Any) -> None:
    root = await (await client.get("/openapi/v3")).json()
    url = root["paths"]["apis/coordination.k8s.io/v1"]["serverRelativeURL"]
    assert url.startswith("/openapi/v3/apis/coordination.k8s.io/v1?hash=")
    response = await client.get(url, headers={"Accept": "application/json"})
    assert response.status == 200
    assert json.loads(await response.read()) == COORDINATION


async def test_an_unknown_group_version_gets_upstreams_empty_answer(client: Any) -> None:
    response = await client.get("/openapi/v3/apis/networking.k8s.io/v1")
    assert response.status == 200
    assert await response.read() == b""


async def test_v2_is_served_as_json_and_its_protobuf_form_as_a_bare_document(client: Any) -> None:
    response = await client.get("/openapi/v2", headers={"Accept": "application/json", "User-Agent": "curl/8"})
    assert response.status == 200
    assert response.headers["Content-Type"] == "application/json"
    body = await response.read()
    assert json.loads(body) == V2
    assert not body.startswith(b"{\n")  # kube-openapi writes it as it is, never indented
    for accept in ("application/com.github.proto-openapi.spec.v2@v1.0+protobuf",  # what kubectl 1.32 sends
                   "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"):
        protobuf = await client.get("/openapi/v2", headers={"Accept": accept})
        assert protobuf.status == 200
        # both answered with the form Go's mime parser accepts (`.v1.0`), the ETag being the JSON's
        assert protobuf.headers["Content-Type"] == "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
        assert protobuf.headers["Etag"] == response.headers["Etag"]
        assert protobuf.headers["Vary"] == "Accept"
        assert await protobuf.read() == b"\x0a\x032.0"  # openapi_v2.Document{swagger: "2.0"}
    cached = await client.get("/openapi/v2", headers={"Accept": accept, "If-None-Match": response.headers["Etag"]})
    assert cached.status == 304
    refused = await client.get("/openapi/v2", headers={"Accept": "application/xml"})
    assert (refused.status, await refused.read()) == (406, b"")


def test_the_documents_and_their_hash_change_when_a_kind_is_added() -> None:
    now = datetime(2025, 1, 1, tzinfo=UTC)
    app = create_app()
    documents = app[openapi_key]
    before = documents.v3_discovery(now).body
    assert documents.v3_discovery(now).body == before
    app[api_key].kinds.add(replace(LEASE, info=replace(LEASE.info, group="example.com")))
    after = documents.v3_discovery(now).body
    assert before != after
    assert "apis/example.com/v1" in orjson.loads(after)["paths"]
    document = orjson.loads(documents.get(v3_document("apis/example.com/v1"), now).body)
    assert "/apis/example.com/v1/namespaces/{namespace}/leases" in document["paths"]


def test_expires_is_written_in_gos_rfc1123_layout() -> None:
    assert go_rfc1123(datetime(2026, 12, 2, 9, 5, 7, tzinfo=UTC)) == "Wed, 02 Dec 2026 09:05:07 UTC"
