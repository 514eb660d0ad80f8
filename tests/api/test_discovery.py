"""Discovery over HTTP: /api, /apis and /api/v1, aggregated (v2, v2beta1) and legacy, bodies and headers."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from fakeapi.http.discovery import Negotiated, NotAcceptable, negotiate, storage_version_hash

KUBECTL_ACCEPT = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)
V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
STATUS_VERBS = ["get", "patch", "update"]


def kind(name: str) -> dict[str, str]:
    return {"group": "", "version": "v1", "kind": name}


def status_sub(of: str) -> dict[str, Any]:
    return {"subresource": "status", "responseKind": kind(of), "verbs": STATUS_VERBS}


AGGREGATED_CORE_RESOURCES = [
    {
        "resource": "bindings",
        "responseKind": kind("Binding"),
        "scope": "Namespaced",
        "singularResource": "binding",
        "verbs": ["create"],
    },
    {
        "resource": "configmaps",
        "responseKind": kind("ConfigMap"),
        "scope": "Namespaced",
        "singularResource": "configmap",
        "verbs": ALL_VERBS,
        "shortNames": ["cm"],
    },
    {
        "resource": "endpoints",
        "responseKind": kind("Endpoints"),
        "scope": "Namespaced",
        "singularResource": "endpoints",
        "verbs": ALL_VERBS,
        "shortNames": ["ep"],
    },
    {
        "resource": "events",
        "responseKind": kind("Event"),
        "scope": "Namespaced",
        "singularResource": "event",
        "verbs": ALL_VERBS,
        "shortNames": ["ev"],
    },
    {
        "resource": "namespaces",
        "responseKind": kind("Namespace"),
        "scope": "Cluster",
        "singularResource": "namespace",
        "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
        "shortNames": ["ns"],
        "subresources": [
            {"subresource": "finalize", "responseKind": kind("Namespace"), "verbs": ["update"]},
            status_sub("Namespace"),
        ],
    },
    {
        "resource": "nodes",
        "responseKind": kind("Node"),
        "scope": "Cluster",
        "singularResource": "node",
        "verbs": ALL_VERBS,
        "shortNames": ["no"],
        "subresources": [status_sub("Node")],
    },
    {
        "resource": "persistentvolumeclaims",
        "responseKind": kind("PersistentVolumeClaim"),
        "scope": "Namespaced",
        "singularResource": "persistentvolumeclaim",
        "verbs": ALL_VERBS,
        "shortNames": ["pvc"],
        "subresources": [status_sub("PersistentVolumeClaim")],
    },
    {
        "resource": "pods",
        "responseKind": kind("Pod"),
        "scope": "Namespaced",
        "singularResource": "pod",
        "verbs": ALL_VERBS,
        "shortNames": ["po"],
        "categories": ["all"],
        "subresources": [
            {"subresource": "attach", "responseKind": kind("PodAttachOptions"), "verbs": ["create", "get"]},
            {"subresource": "binding", "responseKind": kind("Binding"), "verbs": ["create"]},
            {"subresource": "eviction", "responseKind": {"group": "policy", "version": "v1", "kind": "Eviction"},
             "verbs": ["create"]},
            {"subresource": "exec", "responseKind": kind("PodExecOptions"), "verbs": ["create", "get"]},
            {"subresource": "log", "responseKind": kind("Pod"), "verbs": ["get"]},
            {"subresource": "portforward", "responseKind": kind("PodPortForwardOptions"), "verbs": ["create", "get"]},
            {"subresource": "resize", "responseKind": kind("Pod"), "verbs": STATUS_VERBS},
            status_sub("Pod"),
        ],
    },
    {
        "resource": "replicationcontrollers",
        "responseKind": kind("ReplicationController"),
        "scope": "Namespaced",
        "singularResource": "replicationcontroller",
        "verbs": ALL_VERBS,
        "shortNames": ["rc"],
        "categories": ["all"],
        "subresources": [
            {"subresource": "scale", "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
             "verbs": STATUS_VERBS},
            status_sub("ReplicationController"),
        ],
    },
    {
        "resource": "secrets",
        "responseKind": kind("Secret"),
        "scope": "Namespaced",
        "singularResource": "secret",
        "verbs": ALL_VERBS,
    },
    {
        "resource": "serviceaccounts",
        "responseKind": kind("ServiceAccount"),
        "scope": "Namespaced",
        "singularResource": "serviceaccount",
        "verbs": ALL_VERBS,
        "shortNames": ["sa"],
        "subresources": [
            {"subresource": "token",
             "responseKind": {"group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest"},
             "verbs": ["create"]},
        ],
    },
    {
        "resource": "services",
        "responseKind": kind("Service"),
        "scope": "Namespaced",
        "singularResource": "service",
        "verbs": ALL_VERBS,
        "shortNames": ["svc"],
        "categories": ["all"],
        "subresources": [status_sub("Service")],
    },
]


async def test_api_answers_aggregated_v2_with_its_content_type_for_kubectls_accept(client: Any) -> None:
    response = await client.get("/api", headers={"Accept": KUBECTL_ACCEPT})
    assert response.status == 200
    assert response.headers["Content-Type"] == V2
    assert await response.json() == {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": [
            {
                "metadata": {"creationTimestamp": None},
                "versions": [
                    {"version": "v1", "resources": AGGREGATED_CORE_RESOURCES, "freshness": "Current"}
                ],
            }
        ],
    }


async def test_aggregated_discovery_has_upstreams_cache_headers_and_answers_304_to_its_etag(
    client: Any,
) -> None:
    response = await client.get("/api", headers={"Accept": V2})
    etag = response.headers["ETag"]
    assert etag.startswith('"') and len(etag) == 130  # quoted sha512, upper-case hex
    assert etag == etag.upper()
    assert response.headers["Vary"] == "Accept"
    assert response.headers["Cache-Control"] == "public"
    again = await client.get("/api", headers={"Accept": V2, "If-None-Match": etag})
    assert again.status == 304
    assert await again.read() == b""
    stale = await client.get("/api", headers={"Accept": V2, "If-None-Match": '"0"'})
    assert stale.status == 200


async def test_the_etag_is_the_same_for_v2_and_v2beta1_and_differs_between_api_and_apis(client: Any) -> None:
    v2 = await client.get("/api", headers={"Accept": V2})
    v2beta1 = await client.get("/api", headers={"Accept": V2BETA1})
    apis = await client.get("/apis", headers={"Accept": V2})
    assert v2.headers["ETag"] == v2beta1.headers["ETag"] != apis.headers["ETag"]


async def test_api_answers_v2beta1_when_only_v2beta1_is_accepted(client: Any) -> None:
    response = await client.get("/api", headers={"Accept": V2BETA1 + ",application/json"})
    assert response.headers["Content-Type"] == V2BETA1
    body = await response.json()
    assert body["apiVersion"] == "apidiscovery.k8s.io/v2beta1"
    assert body["items"][0]["versions"][0]["resources"] == AGGREGATED_CORE_RESOURCES


COORDINATION_GROUP = {
    "metadata": {"name": "coordination.k8s.io", "creationTimestamp": None},
    "versions": [
        {
            "version": "v1",
            "resources": [
                {
                    "resource": "leases",
                    "responseKind": {"group": "coordination.k8s.io", "version": "v1", "kind": "Lease"},
                    "scope": "Namespaced",
                    "singularResource": "lease",
                    "verbs": ALL_VERBS,
                },
            ],
            "freshness": "Current",
        }
    ],
}
COORDINATION_V1 = {"groupVersion": "coordination.k8s.io/v1", "version": "v1"}
EVENTS_GROUP = {
    "metadata": {"name": "events.k8s.io", "creationTimestamp": None},
    "versions": [{"version": "v1", "freshness": "Current", "resources": [{
        "resource": "events", "responseKind": {"group": "events.k8s.io", "version": "v1", "kind": "Event"},
        "scope": "Namespaced", "singularResource": "event", "shortNames": ["ev"], "verbs": ALL_VERBS}]}],
}



def review(group: str, resource: str, kind_name: str, scope: str = "Cluster") -> dict[str, Any]:
    return {"resource": resource, "responseKind": {"group": group, "version": "v1", "kind": kind_name},
            "scope": scope, "singularResource": resource.removesuffix("s"), "verbs": ["create"]}


def served(group: str, resource: str, kind_name: str, *subresources: str, short: tuple[str, ...] = (),
           all_category: bool = True) -> dict[str, Any]:
    """An aggregated entry of a namespaced workload kind: every verb, its short names, category `all`, and its
    status and scale subresources."""
    entry: dict[str, Any] = {"resource": resource,
                             "responseKind": {"group": group, "version": "v1", "kind": kind_name},
                             "scope": "Namespaced", "singularResource": resource.removesuffix("s"),
                             "verbs": ALL_VERBS}
    if short:
        entry["shortNames"] = list(short)
    if all_category:
        entry["categories"] = ["all"]
    subs = {"scale": {"subresource": "scale",
                      "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
                      "verbs": STATUS_VERBS},
            "status": {"subresource": "status", "responseKind": {"group": group, "version": "v1", "kind": kind_name},
                       "verbs": STATUS_VERBS}}
    if subresources:
        entry["subresources"] = [subs[name] for name in subresources]
    return entry


APPS_GROUP = {
    "metadata": {"name": "apps", "creationTimestamp": None},
    "versions": [{"version": "v1", "freshness": "Current", "resources": [
        served("apps", "controllerrevisions", "ControllerRevision", all_category=False),
        served("apps", "daemonsets", "DaemonSet", "status", short=("ds",)),
        served("apps", "deployments", "Deployment", "scale", "status", short=("deploy",)),
        served("apps", "replicasets", "ReplicaSet", "scale", "status", short=("rs",)),
        served("apps", "statefulsets", "StatefulSet", "scale", "status", short=("sts",)),
    ]}],
}
BATCH_GROUP = {
    "metadata": {"name": "batch", "creationTimestamp": None},
    "versions": [{"version": "v1", "freshness": "Current", "resources": [
        served("batch", "cronjobs", "CronJob", "status", short=("cj",)),
        served("batch", "jobs", "Job", "status"),
    ]}],
}
def hpa(version: str) -> dict[str, Any]:
    entry = served("autoscaling", "horizontalpodautoscalers", "HorizontalPodAutoscaler", "status", short=("hpa",))
    entry["responseKind"]["version"] = entry["subresources"][0]["responseKind"]["version"] = version
    return entry


AUTOSCALING_GROUP = {
    "metadata": {"name": "autoscaling", "creationTimestamp": None},
    "versions": [{"version": version, "freshness": "Current", "resources": [hpa(version)]} for version in ("v2", "v1")],
}
DISCOVERY_GROUP = {
    "metadata": {"name": "discovery.k8s.io", "creationTimestamp": None},
    "versions": [{"version": "v1", "freshness": "Current", "resources": [
        served("discovery.k8s.io", "endpointslices", "EndpointSlice", all_category=False)]}],
}
POLICY_GROUP = {
    "metadata": {"name": "policy", "creationTimestamp": None},
    "versions": [{"version": "v1", "freshness": "Current", "resources": [
        served("policy", "poddisruptionbudgets", "PodDisruptionBudget", "status", short=("pdb",),
               all_category=False)]}],
}
RBAC = "rbac.authorization.k8s.io"


def rbac_kind(resource: str, kind_name: str, namespaced: bool) -> dict[str, Any]:
    return {"resource": resource, "responseKind": {"group": RBAC, "version": "v1", "kind": kind_name},
            "scope": "Namespaced" if namespaced else "Cluster", "singularResource": resource.removesuffix("s"),
            "verbs": ALL_VERBS}


RBAC_GROUP = {
    "metadata": {"name": RBAC, "creationTimestamp": None},
    "versions": [{"version": "v1", "freshness": "Current", "resources": [
        rbac_kind("clusterrolebindings", "ClusterRoleBinding", False),
        rbac_kind("clusterroles", "ClusterRole", False),
        rbac_kind("rolebindings", "RoleBinding", True),
        rbac_kind("roles", "Role", True)]}],
}
AUTHN, AUTHZ = "authentication.k8s.io", "authorization.k8s.io"
APIEXTENSIONS = "apiextensions.k8s.io"
APIEXTENSIONS_GROUP = {
    "metadata": {"name": APIEXTENSIONS, "creationTimestamp": None},
    "versions": [{"version": "v1", "freshness": "Current", "resources": [{
        "resource": "customresourcedefinitions",
        "responseKind": {"group": APIEXTENSIONS, "version": "v1", "kind": "CustomResourceDefinition"},
        "scope": "Cluster", "singularResource": "customresourcedefinition", "shortNames": ["crd", "crds"],
        "categories": ["api-extensions"], "verbs": ALL_VERBS,
        "subresources": [{"subresource": "status", "verbs": ["get", "patch", "update"],
                          "responseKind": {"group": APIEXTENSIONS, "version": "v1",
                                           "kind": "CustomResourceDefinition"}}]}]}],
}
CERTIFICATES = "certificates.k8s.io"
CSR_KIND = {"group": CERTIFICATES, "version": "v1", "kind": "CertificateSigningRequest"}
CERTIFICATES_GROUP = {
    "metadata": {"name": CERTIFICATES, "creationTimestamp": None},
    "versions": [{"version": "v1", "freshness": "Current", "resources": [{
        "resource": "certificatesigningrequests", "responseKind": CSR_KIND, "scope": "Cluster",
        "singularResource": "certificatesigningrequest", "verbs": ALL_VERBS, "shortNames": ["csr"],
        "subresources": [{"subresource": name, "responseKind": CSR_KIND, "verbs": ["get", "patch", "update"]}
                         for name in ("approval", "status")]}]}],
}
ADMISSION = "admissionregistration.k8s.io"


def admission_kind(kind: str, resource: str, *subresources: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"resource": resource,
                             "responseKind": {"group": ADMISSION, "version": "v1", "kind": kind},
                             "scope": "Cluster", "singularResource": kind.lower(), "categories": ["api-extensions"],
                             "verbs": ALL_VERBS}
    if subresources:
        entry["subresources"] = [{"subresource": name, "responseKind": {"group": ADMISSION, "version": "v1",
                                                                        "kind": kind},
                                  "verbs": STATUS_VERBS} for name in subresources]
    return entry


ADMISSION_GROUP = {
    "metadata": {"name": ADMISSION, "creationTimestamp": None},
    "versions": [{"version": "v1", "freshness": "Current", "resources": [
        admission_kind("MutatingWebhookConfiguration", "mutatingwebhookconfigurations"),
        admission_kind("ValidatingAdmissionPolicy", "validatingadmissionpolicies", "status"),
        admission_kind("ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings"),
        admission_kind("ValidatingWebhookConfiguration", "validatingwebhookconfigurations")]}],
}
AGGREGATED_GROUPS = [
    ADMISSION_GROUP,
    APIEXTENSIONS_GROUP,
    APPS_GROUP,
    {"metadata": {"name": AUTHN, "creationTimestamp": None},
     "versions": [{"version": "v1", "freshness": "Current",
                   "resources": [review(AUTHN, "selfsubjectreviews", "SelfSubjectReview"),
                                 review(AUTHN, "tokenreviews", "TokenReview")]}]},
    {"metadata": {"name": AUTHZ, "creationTimestamp": None},
     "versions": [{"version": "v1", "freshness": "Current", "resources": [
         review(AUTHZ, "localsubjectaccessreviews", "LocalSubjectAccessReview", scope="Namespaced"),
         review(AUTHZ, "selfsubjectaccessreviews", "SelfSubjectAccessReview"),
         review(AUTHZ, "selfsubjectrulesreviews", "SelfSubjectRulesReview"),
         review(AUTHZ, "subjectaccessreviews", "SubjectAccessReview"),
     ]}]},
    AUTOSCALING_GROUP,
    BATCH_GROUP,
    CERTIFICATES_GROUP,
    COORDINATION_GROUP,
    DISCOVERY_GROUP,
    EVENTS_GROUP,
    POLICY_GROUP,
    RBAC_GROUP,
]


@pytest.mark.parametrize("path", ["/apis", "/apis/"])
async def test_apis_lists_the_review_groups_aggregated_with_the_aggregated_content_type(
    client: Any, path: str
) -> None:
    response = await client.get(path, headers={"Accept": KUBECTL_ACCEPT})
    assert response.status == 200
    assert response.headers["Content-Type"] == V2
    assert await response.json() == {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": AGGREGATED_GROUPS,
    }


@pytest.mark.parametrize("accept", ["application/json", "application/json, */*", "", "*/*"])
async def test_api_answers_legacy_apiversions_naming_the_address_the_client_used(
    client: Any, accept: str
) -> None:
    headers = {"Accept": accept} if accept else {}
    response = await client.get("/api", headers=headers)
    assert response.status == 200
    assert response.headers["Content-Type"] == "application/json"
    assert "ETag" not in response.headers
    host = f"{client.server.host}:{client.server.port}"
    assert await response.json() == {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}],
    }


def group_entry(name: str) -> dict[str, Any]:
    version = {"groupVersion": f"{name}/v1", "version": "v1"}
    return {"name": name, "versions": [version], "preferredVersion": version}


@pytest.mark.parametrize("path", ["/apis", "/apis/"])
async def test_apis_answers_the_legacy_group_list(client: Any, path: str) -> None:
    response = await client.get(path, headers={"Accept": "application/json, */*"})
    assert response.headers["Content-Type"] == "application/json"
    assert await response.json() == {"kind": "APIGroupList", "apiVersion": "v1",
                                     "groups": [group_entry(ADMISSION), group_entry(APIEXTENSIONS), group_entry("apps"),
                                                    group_entry(AUTHN),
                                                group_entry(AUTHZ), autoscaling_entry(), group_entry("batch"),
                                                group_entry(CERTIFICATES),
                                                group_entry("coordination.k8s.io"), group_entry("discovery.k8s.io"),
                                                group_entry("events.k8s.io"), group_entry("policy"),
                                                group_entry(RBAC)]}


def autoscaling_entry() -> dict[str, Any]:
    v2, v1 = ({"groupVersion": f"autoscaling/{version}", "version": version} for version in ("v2", "v1"))
    return {"name": "autoscaling", "versions": [v2, v1], "preferredVersion": v2}


@pytest.mark.parametrize("path", ["/apis/authorization.k8s.io", "/apis/authorization.k8s.io/"])
async def test_a_group_answers_its_apigroup_with_or_without_a_trailing_slash(client: Any, path: str) -> None:
    response = await client.get(path)
    assert response.status == 200
    assert await response.json() == {"kind": "APIGroup", "apiVersion": "v1", **group_entry(AUTHZ)}


@pytest.mark.parametrize("path", ["/apis/authorization.k8s.io/v1", "/apis/authorization.k8s.io/v1/"])
async def test_a_group_version_answers_its_legacy_resource_list(client: Any, path: str) -> None:
    response = await client.get(path)
    assert response.status == 200
    assert await response.json() == {
        "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "authorization.k8s.io/v1",
        "resources": [
            legacy("localsubjectaccessreviews", "LocalSubjectAccessReview", ["create"],
                   singular="localsubjectaccessreview"),
            legacy("selfsubjectaccessreviews", "SelfSubjectAccessReview", ["create"], namespaced=False,
                   singular="selfsubjectaccessreview"),
            legacy("selfsubjectrulesreviews", "SelfSubjectRulesReview", ["create"], namespaced=False,
                   singular="selfsubjectrulesreview"),
            legacy("subjectaccessreviews", "SubjectAccessReview", ["create"], namespaced=False,
                   singular="subjectaccessreview"),
        ],
    }
    authn = await (await client.get("/apis/authentication.k8s.io/v1")).json()
    assert authn["resources"] == [legacy("selfsubjectreviews", "SelfSubjectReview", ["create"], namespaced=False,
                                         singular="selfsubjectreview"),
                                  legacy("tokenreviews", "TokenReview", ["create"], namespaced=False,
                                         singular="tokenreview")]


@pytest.mark.parametrize("path", ["/apis/networking.k8s.io", "/apis/networking.k8s.io/v1",
                                  "/apis/authorization.k8s.io/v2"])
async def test_a_group_or_version_not_served_is_404(client: Any, path: str) -> None:
    assert (await client.get(path)).status == 404


@pytest.mark.parametrize(("path", "kind_name"), [("/version/", None), ("/api/", "APIVersions"),
                                                 ("/api/v1/", "APIResourceList")])
async def test_discovery_answers_with_a_trailing_slash_as_without(
    client: Any, path: str, kind_name: str | None
) -> None:
    with_slash = await client.get(path)
    without = await client.get(path.rstrip("/"))
    assert with_slash.status == 200
    assert await with_slash.read() == await without.read()
    if kind_name:
        assert (await with_slash.json())["kind"] == kind_name


@pytest.mark.parametrize("path", ["/", "/index.html"])
async def test_root_lists_the_served_paths_indented_whatever_the_accept(client: Any, path: str) -> None:
    response = await client.get(path, headers={"Accept": "application/yaml"})
    assert response.status == 200
    assert response.headers["Content-Type"] == "application/json"
    paths = [
        "/.well-known/openid-configuration", "/api", "/api/v1", "/apis", "/apis/", f"/apis/{ADMISSION}",
        f"/apis/{ADMISSION}/v1", f"/apis/{APIEXTENSIONS}", f"/apis/{APIEXTENSIONS}/v1",
        "/apis/apps", "/apis/apps/v1", f"/apis/{AUTHN}", f"/apis/{AUTHN}/v1",
        f"/apis/{AUTHZ}", f"/apis/{AUTHZ}/v1", "/apis/autoscaling", "/apis/autoscaling/v1", "/apis/autoscaling/v2",
        "/apis/batch", "/apis/batch/v1", f"/apis/{CERTIFICATES}", f"/apis/{CERTIFICATES}/v1",
        "/apis/coordination.k8s.io", "/apis/coordination.k8s.io/v1",
        "/apis/discovery.k8s.io", "/apis/discovery.k8s.io/v1",
        "/apis/events.k8s.io", "/apis/events.k8s.io/v1", "/apis/policy", "/apis/policy/v1",
            f"/apis/{RBAC}", f"/apis/{RBAC}/v1",
        "/healthz", "/healthz/log", "/healthz/ping", "/livez", "/livez/log", "/livez/ping",
        "/openapi/v2", "/openapi/v3", "/openid/v1/jwks", "/readyz", "/readyz/log", "/readyz/ping", "/readyz/shutdown",
        "/version",
    ]
    # upstream's WriteRawJSON: json.MarshalIndent with two spaces, no final newline
    assert await response.text() == '{\n  "paths": [\n' + ",\n".join(f'    "{p}"' for p in paths) + "\n  ]\n}"


async def test_a_named_group_and_its_version_are_discoverable(client: Any) -> None:
    group = await client.get("/apis/coordination.k8s.io")
    assert await group.json() == {
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": "coordination.k8s.io",
        "versions": [COORDINATION_V1],
        "preferredVersion": COORDINATION_V1,
    }
    version = await client.get("/apis/coordination.k8s.io/v1")
    assert await version.json() == {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": "coordination.k8s.io/v1",
        "resources": [
            legacy("leases", "Lease", ALL_VERBS, singular="lease", storageVersionHash="gqkMMb/YqFM=")
        ],
    }


def legacy(
    name: str, kind_name: str, verbs: list[str], namespaced: bool = True, **extra: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "singularName": extra.pop("singular", ""),
        "namespaced": namespaced,
        "kind": kind_name,
        "verbs": verbs,
        **extra,
    }


@pytest.mark.parametrize("accept", ["application/json, */*", KUBECTL_ACCEPT])
async def test_api_v1_is_always_the_legacy_resource_list_sorted_by_name(client: Any, accept: str) -> None:
    response = await client.get("/api/v1", headers={"Accept": accept})
    assert response.status == 200
    assert response.headers["Content-Type"] == "application/json"
    assert await response.json() == {
        "kind": "APIResourceList",
        "groupVersion": "v1",
        "resources": [
            legacy("bindings", "Binding", ["create"], singular="binding"),
            legacy("configmaps", "ConfigMap", ALL_VERBS, singular="configmap", shortNames=["cm"],
                   storageVersionHash="qFsyl6wFWjQ="),
            legacy("endpoints", "Endpoints", ALL_VERBS, singular="endpoints", shortNames=["ep"],
                   storageVersionHash="fWeeMqaN/OA="),
            legacy(
                "events",
                "Event",
                ALL_VERBS,
                singular="event",
                shortNames=["ev"],
                storageVersionHash="r2yiGXH7wu8=",
            ),
            legacy(
                "namespaces",
                "Namespace",
                ["create", "delete", "get", "list", "patch", "update", "watch"],
                namespaced=False,
                singular="namespace",
                shortNames=["ns"],
                storageVersionHash="Q3oi5N2YM8M=",
            ),
            legacy("namespaces/finalize", "Namespace", ["update"], namespaced=False),
                legacy("namespaces/status", "Namespace", STATUS_VERBS, namespaced=False),
            legacy(
                "nodes",
                "Node",
                ALL_VERBS,
                namespaced=False,
                singular="node",
                shortNames=["no"],
                storageVersionHash="XwShjMxG9Fs=",
            ),
            legacy("nodes/status", "Node", STATUS_VERBS, namespaced=False),
            legacy("persistentvolumeclaims", "PersistentVolumeClaim", ALL_VERBS, singular="persistentvolumeclaim",
                   shortNames=["pvc"], storageVersionHash="QWTyNDq0dC4="),
            legacy("persistentvolumeclaims/status", "PersistentVolumeClaim", STATUS_VERBS),
            legacy(
                "pods",
                "Pod",
                ALL_VERBS,
                singular="pod",
                shortNames=["po"],
                categories=["all"],
                storageVersionHash="xPOwRZ+Yhw8=",
            ),
            legacy("pods/attach", "PodAttachOptions", ["create", "get"]),
            legacy("pods/binding", "Binding", ["create"]),
            legacy("pods/eviction", "Eviction", ["create"], group="policy", version="v1"),
            legacy("pods/exec", "PodExecOptions", ["create", "get"]),
            legacy("pods/log", "Pod", ["get"]),
            legacy("pods/portforward", "PodPortForwardOptions", ["create", "get"]),
            legacy("pods/resize", "Pod", STATUS_VERBS),
            legacy("pods/status", "Pod", STATUS_VERBS),
            legacy("replicationcontrollers", "ReplicationController", ALL_VERBS, singular="replicationcontroller",
                   shortNames=["rc"], categories=["all"], storageVersionHash="Jond2If31h0="),
            legacy("replicationcontrollers/scale", "Scale", STATUS_VERBS, group="autoscaling", version="v1"),
            legacy("replicationcontrollers/status", "ReplicationController", STATUS_VERBS),
            legacy("secrets", "Secret", ALL_VERBS, singular="secret", storageVersionHash="S6u1pOWzb84="),
            legacy("serviceaccounts", "ServiceAccount", ALL_VERBS, singular="serviceaccount", shortNames=["sa"],
                   storageVersionHash="pbx9ZvyFpBE="),
            legacy("serviceaccounts/token", "TokenRequest", ["create"], group="authentication.k8s.io", version="v1"),
            legacy("services", "Service", ALL_VERBS, singular="service", shortNames=["svc"], categories=["all"],
                   storageVersionHash="0/CO1lhkEBI="),
            legacy("services/status", "Service", STATUS_VERBS),
        ],
    }


async def test_discovery_answers_yaml_when_asked(client: Any) -> None:
    response = await client.get("/api/v1", headers={"Accept": "application/yaml"})
    assert response.headers["Content-Type"] == "application/yaml"
    assert yaml.safe_load(await response.text())["kind"] == "APIResourceList"
    aggregated = await client.get("/api", headers={"Accept": V2.replace("json", "yaml")})
    assert (
        aggregated.headers["Content-Type"]
        == "application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    )
    assert yaml.safe_load(await aggregated.text())["kind"] == "APIGroupDiscoveryList"


@pytest.mark.parametrize("path", ["/api", "/apis", "/api/v1"])
async def test_discovery_rejects_an_accept_it_cannot_serve_with_406(client: Any, path: str) -> None:
    response = await client.get(path, headers={"Accept": "text/html"})
    assert response.status == 406
    assert await response.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "only the following media types are accepted: application/json, application/yaml",
        "reason": "NotAcceptable",
        "code": 406,
    }


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (KUBECTL_ACCEPT, Negotiated("application/json", "v2")),
        (V2BETA1, Negotiated("application/json", "v2beta1")),
        # the first range the server can serve decides, even when a later one asks for aggregation
        ("application/json, " + V2, Negotiated("application/json", None)),
        # a conversion discovery cannot do is skipped, not fatal
        (
            "application/json;as=Table;v=v1;g=meta.k8s.io, application/json",
            Negotiated("application/json", None),
        ),
        (
            "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList, " + V2,
            Negotiated("application/json", "v2"),
        ),
        # protobuf is never written: the JSON range after it wins
        (
            "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList," + V2,
            Negotiated("application/json", "v2"),
        ),
        ("application/vnd.kubernetes.protobuf, application/json", Negotiated("application/json", None)),
        ("*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", Negotiated("application/json", "v2")),
        ("application/*", Negotiated("application/json", None)),
        ("application/json;q=0.5, application/yaml", Negotiated("application/yaml", None)),
    ],
)
def test_negotiation_picks_the_first_servable_range(accept: str, expected: Negotiated) -> None:
    assert negotiate(accept) == expected


@pytest.mark.parametrize(
    "accept", ["text/html", "application/vnd.kubernetes.protobuf", "application/json;q=0"]
)
def test_negotiation_fails_when_nothing_is_servable(accept: str) -> None:
    with pytest.raises(NotAcceptable):
        negotiate(accept)


async def test_api_v1_refuses_an_accept_that_only_asks_for_aggregation(client: Any) -> None:
    response = await client.get("/api/v1", headers={"Accept": V2})
    assert response.status == 406


def test_storage_version_hash_matches_upstreams_published_values() -> None:
    assert storage_version_hash("", "v1", "Pod") == "xPOwRZ+Yhw8="
    assert storage_version_hash("", "v1", "Event") == "r2yiGXH7wu8="
    assert storage_version_hash("", "v1", "Node") == "XwShjMxG9Fs="
    assert storage_version_hash("coordination.k8s.io", "v1", "Lease") == "gqkMMb/YqFM="
    assert storage_version_hash("", "v1", "ConfigMap") == "qFsyl6wFWjQ="
    assert storage_version_hash("", "v1", "Secret") == "S6u1pOWzb84="
    assert storage_version_hash("", "v1", "ServiceAccount") == "pbx9ZvyFpBE="


async def test_every_advertised_resource_and_subresource_verb_is_routed(client: Any, make_pod: Any) -> None:
    """Discovery must not promise what the server does not answer: each advertised read is served."""
    created = await client.post("/api/v1/namespaces/default/pods", json=make_pod("p"))
    assert created.status == 201
    node = await client.post("/api/v1/nodes", json={"metadata": {"name": "n"}})
    assert node.status == 201
    for resource in ("configmaps", "serviceaccounts"):
        made = await client.post(f"/api/v1/namespaces/default/{resource}", json={"metadata": {"name": "x"}})
        assert made.status == 201
    controller = {"metadata": {"name": "rc"}, "spec": {"template": {
        "metadata": {"labels": {"app": "rc"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    assert (await client.post("/api/v1/namespaces/default/replicationcontrollers", json=controller)).status == 201
    claim = {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                     "resources": {"requests": {"storage": "1Gi"}}}}
    assert (await client.post("/api/v1/namespaces/default/persistentvolumeclaims", json=claim)).status == 201
    listing = await (await client.get("/api/v1")).json()
    paths = {
        "pods": "/api/v1/namespaces/default/pods/p",
        "namespaces": "/api/v1/namespaces/default",
        "events": "/api/v1/namespaces/default/events",
        "nodes": "/api/v1/nodes/n",
        "configmaps": "/api/v1/namespaces/default/configmaps/x",
        "secrets": "/api/v1/namespaces/default/secrets",
        "serviceaccounts": "/api/v1/namespaces/default/serviceaccounts/x",
        "replicationcontrollers": "/api/v1/namespaces/default/replicationcontrollers/rc",
        "services": "/api/v1/namespaces/default/services/kubernetes",
        "endpoints": "/api/v1/namespaces/default/endpoints/kubernetes",
        "persistentvolumeclaims": "/api/v1/namespaces/default/persistentvolumeclaims/data",
    }
    for entry in listing["resources"]:
        resource, _, sub = entry["name"].partition("/")
        if "get" not in entry["verbs"] or sub in ("attach", "exec", "portforward"):  # streams: tests of their own
            continue
        path = paths[resource] + (f"/{sub}" if sub else "")
        if resource == "pods" and sub == "log":
            path += "?container=main"
        response = await client.get(path)
        assert response.status == 200, (entry["name"], await response.text())
    binding = {"metadata": {"name": "p"}, "target": {"kind": "Node", "name": "node-1"}}
    bound = await client.post("/api/v1/namespaces/default/pods/p/binding", json=binding)
    assert bound.status == 201
