"""Created pods as kube-apiserver v1.32 returns them: the whole JSON object, for a table of inputs.

Where the expected bodies come from: each is worked out by hand from upstream's v1.32 sources, not
taken from fakeapi's output:

* the shape is Go's encoding/json over k8s.io/api v0.32 core/v1 types.go (tests/data/gofields.json
  lists each field's tag and type): empty omitempty values are left out, value structs are always
  written (`resources: {}` on every container, `metadata.creationTimestamp: null` in a claim
  template, `divisor: "0"`), set pointers are kept even when empty (`securityContext: {}`);
* the values are pkg/apis/core/v1/defaults.go and zz_generated.defaults.go (SetDefaults_PodSpec,
  _Container, _Probe, _HTTPGetAction, the volume sources' defaultMode 420, hostPath `type: ""`,
  serviceAccountToken expirationSeconds 3600, the claim template's volumeMode, the declarative
  `grpc.service: ""` and `fieldRef.apiVersion: v1`), then pkg/registry/core/pod/strategy.go's
  PrepareForCreate (status `{phase: Pending, qosClass}`, generation 1);
* managedFields is the create's Update entry: structured-merge-diff's comparison of the decoded and
  defaulted pod with an empty one, with status (a reset field of pods) and the system metadata fields
  left out. `f:containers` has no `.` entry of its own as other lists do: the empty pod already has
  `containers: null`, which Go writes for a nil slice without omitempty.

The bodies are those of an apiserver whose admission adds nothing to a pod
(`--disable-admission-plugins=ServiceAccount,DefaultTolerationSeconds,Priority`, as the server here
runs): the default chain would add a service account, its token volume and mounts, two tolerations,
`priority: 0` and `preemptionPolicy`.
Compared: the whole object except uid, creationTimestamp, resourceVersion and the managedFields times.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.app import create_app
from fakeapi.config import ServerConfig

PODS = "/api/v1/namespaces/default/pods"
MANAGER = "table-test"

# what SetDefaults_PodSpec and SetDefaults_Pod add to every pod here, and their managed fields
POD_DEFAULTS: dict[str, Any] = {
    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
    "securityContext": {}, "schedulerName": "default-scheduler", "enableServiceLinks": True,
}
POD_DEFAULT_FIELDS: dict[str, Any] = {
    "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {},
    "f:securityContext": {}, "f:terminationGracePeriodSeconds": {},
}
# what SetDefaults_Container adds (the image has a tag other than latest), plus Go's `resources: {}`
CONTAINER_DEFAULTS: dict[str, Any] = {
    "resources": {}, "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
    "imagePullPolicy": "IfNotPresent",
}
CONTAINER_DEFAULT_FIELDS: dict[str, Any] = {
    ".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {},
    "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {},
}


def container_key(name: str) -> str:
    return f'k:{{"name":"{name}"}}'


def pod(name: str, metadata: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **(metadata or {})}, "spec": spec}


def stored(name: str, spec: dict[str, Any], fields: dict[str, Any], qos: str = "BestEffort",
           metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """The expected answer: the parts every case shares around its own spec and managed fields."""
    return {
        "kind": "Pod", "apiVersion": "v1",
        "metadata": {"name": name, "namespace": "default", "generation": 1, **(metadata or {}),
                     "managedFields": [{"manager": MANAGER, "operation": "Update", "apiVersion": "v1",
                                        "fieldsType": "FieldsV1", "fieldsV1": fields}]},
        "spec": spec,
        "status": {"phase": "Pending", "qosClass": qos},
    }


MINIMAL = pod("minimal", containers=[{"name": "app", "image": "nginx:1.27"}])
MINIMAL_STORED = stored(
    "minimal",
    {"containers": [{"name": "app", "image": "nginx:1.27", **CONTAINER_DEFAULTS}], **POD_DEFAULTS},
    {"f:spec": {"f:containers": {container_key("app"): CONTAINER_DEFAULT_FIELDS}, **POD_DEFAULT_FIELDS}},
)

PROBED = pod("probed", containers=[{
    "name": "app", "image": "nginx:1.27",
    "ports": [{"name": "http", "containerPort": 8080}],
    "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"}},
    "readinessProbe": {"tcpSocket": {"port": 8080}, "initialDelaySeconds": 5},
    "startupProbe": {"grpc": {"port": 9090}, "failureThreshold": 30},
    "lifecycle": {"postStart": {"exec": {"command": ["sh", "-c", "true"]}},
                  "preStop": {"httpGet": {"port": 8080}}},
}])
PROBE_DEFAULTS = {"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}
PROBE_FIELDS = {".": {}, "f:failureThreshold": {}, "f:periodSeconds": {}, "f:successThreshold": {},
                "f:timeoutSeconds": {}}
PROBED_STORED = stored(
    "probed",
    {"containers": [{
        "name": "app", "image": "nginx:1.27",
        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
        "resources": {},
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"}, **PROBE_DEFAULTS},
        "readinessProbe": {"tcpSocket": {"port": 8080}, "initialDelaySeconds": 5, **PROBE_DEFAULTS},
        "startupProbe": {"grpc": {"port": 9090, "service": ""}, **PROBE_DEFAULTS, "failureThreshold": 30},
        "lifecycle": {"postStart": {"exec": {"command": ["sh", "-c", "true"]}},
                      "preStop": {"httpGet": {"path": "/", "port": 8080, "scheme": "HTTP"}}},
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent",
    }], **POD_DEFAULTS},
    {"f:spec": {"f:containers": {container_key("app"): {
        **CONTAINER_DEFAULT_FIELDS,
        "f:ports": {".": {}, 'k:{"containerPort":8080,"protocol":"TCP"}': {
            ".": {}, "f:containerPort": {}, "f:name": {}, "f:protocol": {}}},
        "f:livenessProbe": {**PROBE_FIELDS, "f:httpGet": {".": {}, "f:path": {}, "f:port": {}, "f:scheme": {}}},
        "f:readinessProbe": {**PROBE_FIELDS, "f:initialDelaySeconds": {}, "f:tcpSocket": {".": {}, "f:port": {}}},
        "f:startupProbe": {**PROBE_FIELDS, "f:grpc": {".": {}, "f:port": {}, "f:service": {}}},
        "f:lifecycle": {".": {}, "f:postStart": {".": {}, "f:exec": {".": {}, "f:command": {}}},
                        "f:preStop": {".": {}, "f:httpGet": {".": {}, "f:path": {}, "f:port": {}, "f:scheme": {}}}},
    }}, **POD_DEFAULT_FIELDS}},
)

VOLUMES = pod("volumes", containers=[{"name": "app", "image": "nginx:1.27", "volumeMounts": [
    {"name": "cache", "mountPath": "/cache"}, {"name": "config", "mountPath": "/etc/app", "readOnly": True}]}],
    serviceAccountName="default",  # a token projection needs one (no ServiceAccount admission here)
    volumes=[
        {"name": "scratch"},
        {"name": "cache", "emptyDir": {"sizeLimit": "1Gi"}},
        {"name": "config", "configMap": {"name": "app-config", "items": [{"key": "app.conf", "path": "app.conf"}]}},
        {"name": "creds", "secret": {"secretName": "app-secret", "optional": False}},
        {"name": "logs", "hostPath": {"path": "/var/log"}},
        {"name": "info", "downwardAPI": {"items": [
            {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
            {"path": "cpu", "resourceFieldRef": {"containerName": "app", "resource": "limits.cpu"}}]}},
        {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
        {"name": "data", "ephemeral": {"volumeClaimTemplate": {"spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}},
    ])
VOLUMES_STORED = stored(
    "volumes",
    {"volumes": [
        {"name": "scratch", "emptyDir": {}},
        {"name": "cache", "emptyDir": {"sizeLimit": "1Gi"}},
        {"name": "config", "configMap": {"name": "app-config", "items": [{"key": "app.conf", "path": "app.conf"}],
                                         "defaultMode": 420}},
        {"name": "creds", "secret": {"secretName": "app-secret", "defaultMode": 420, "optional": False}},
        {"name": "logs", "hostPath": {"path": "/var/log", "type": ""}},
        {"name": "info", "downwardAPI": {"items": [
            {"path": "labels", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"}},
            {"path": "cpu", "resourceFieldRef": {"containerName": "app", "resource": "limits.cpu", "divisor": "0"}},
        ], "defaultMode": 420}},
        {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"expirationSeconds": 3600,
                                                                             "path": "token"}}],
                                        "defaultMode": 420}},
        {"name": "data", "ephemeral": {"volumeClaimTemplate": {
            "metadata": {"creationTimestamp": None},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                     "volumeMode": "Filesystem"}}}},
    ],
     "containers": [{"name": "app", "image": "nginx:1.27", "resources": {},
                     "volumeMounts": [{"name": "cache", "mountPath": "/cache"},
                                      {"name": "config", "readOnly": True, "mountPath": "/etc/app"}],
                     "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                     "imagePullPolicy": "IfNotPresent"}],
     # the deprecated serviceAccount follows serviceAccountName (v1 <-> internal conversion)
     "serviceAccountName": "default", "serviceAccount": "default",
     **POD_DEFAULTS},
    {"f:spec": {
        "f:containers": {container_key("app"): {**CONTAINER_DEFAULT_FIELDS, "f:volumeMounts": {
            ".": {},
            'k:{"mountPath":"/cache"}': {".": {}, "f:mountPath": {}, "f:name": {}},
            'k:{"mountPath":"/etc/app"}': {".": {}, "f:mountPath": {}, "f:name": {}, "f:readOnly": {}}}}},
        **POD_DEFAULT_FIELDS,
        "f:serviceAccount": {}, "f:serviceAccountName": {},
        "f:volumes": {
            ".": {},
            container_key("scratch"): {".": {}, "f:emptyDir": {}, "f:name": {}},
            container_key("cache"): {".": {}, "f:emptyDir": {".": {}, "f:sizeLimit": {}}, "f:name": {}},
            container_key("config"): {".": {}, "f:configMap": {".": {}, "f:defaultMode": {}, "f:items": {},
                                                               "f:name": {}}, "f:name": {}},
            container_key("creds"): {".": {}, "f:name": {}, "f:secret": {".": {}, "f:defaultMode": {},
                                                                         "f:optional": {}, "f:secretName": {}}},
            container_key("logs"): {".": {}, "f:hostPath": {".": {}, "f:path": {}, "f:type": {}}, "f:name": {}},
            container_key("info"): {".": {}, "f:downwardAPI": {".": {}, "f:defaultMode": {}, "f:items": {}},
                                    "f:name": {}},
            container_key("token"): {".": {}, "f:name": {}, "f:projected": {".": {}, "f:defaultMode": {},
                                                                            "f:sources": {}}},
            container_key("data"): {".": {}, "f:ephemeral": {".": {}, "f:volumeClaimTemplate": {
                ".": {}, "f:metadata": {".": {}, "f:creationTimestamp": {}},
                "f:spec": {".": {}, "f:accessModes": {}, "f:resources": {".": {}, "f:requests": {
                    ".": {}, "f:storage": {}}}, "f:volumeMode": {}}}}, "f:name": {}},
        }}},
)

SECURITY = pod("security", containers=[{"name": "app", "image": "nginx:1.27", "securityContext": {}},
                                       {"name": "sidecar", "image": "nginx:1.27",
                                        "securityContext": {"capabilities": {}, "privileged": False}}],
               securityContext={})
SECURITY_STORED = stored(
    "security",
    {"containers": [
        {"name": "app", "image": "nginx:1.27", **CONTAINER_DEFAULTS, "securityContext": {}},
        {"name": "sidecar", "image": "nginx:1.27", **CONTAINER_DEFAULTS,
         "securityContext": {"capabilities": {}, "privileged": False}},
    ], **POD_DEFAULTS},
    {"f:spec": {"f:containers": {
        container_key("app"): {**CONTAINER_DEFAULT_FIELDS, "f:securityContext": {}},
        container_key("sidecar"): {**CONTAINER_DEFAULT_FIELDS, "f:securityContext": {
            ".": {}, "f:capabilities": {}, "f:privileged": {}}},
    }, **POD_DEFAULT_FIELDS}},
)

EMPTY = pod("empty", {"labels": {}, "annotations": {}}, nodeSelector={}, tolerations=[], imagePullSecrets=[],
            hostNetwork=False, nodeName="", containers=[{"name": "app", "image": "nginx:1.27", "args": [],
                                                         "env": [], "ports": [], "stdin": False}])
EMPTY_STORED = stored(
    "empty",
    {"containers": [{"name": "app", "image": "nginx:1.27", **CONTAINER_DEFAULTS}], **POD_DEFAULTS},
    {"f:spec": {"f:containers": {container_key("app"): CONTAINER_DEFAULT_FIELDS}, **POD_DEFAULT_FIELDS}},
)

INIT = pod("init", {"labels": {"app": "init"}},
           initContainers=[{"name": "setup", "image": "busybox:1.36", "command": ["sh", "-c", "true"]},
                           {"name": "proxy", "image": "envoy:v1", "restartPolicy": "Always",
                            "resources": {"limits": {"cpu": "0.5", "memory": "64Mi"}}}],
           containers=[{"name": "app", "image": "nginx:1.27"}])
INIT_STORED = stored(
    "init",
    {"initContainers": [
        {"name": "setup", "image": "busybox:1.36", "command": ["sh", "-c", "true"], **CONTAINER_DEFAULTS},
        {"name": "proxy", "image": "envoy:v1",
         "resources": {"limits": {"cpu": "500m", "memory": "64Mi"}, "requests": {"cpu": "500m", "memory": "64Mi"}},
         "restartPolicy": "Always", "terminationMessagePath": "/dev/termination-log",
         "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"},
    ],
     "containers": [{"name": "app", "image": "nginx:1.27", **CONTAINER_DEFAULTS}], **POD_DEFAULTS},
    {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
     "f:spec": {
         "f:containers": {container_key("app"): CONTAINER_DEFAULT_FIELDS},
         "f:initContainers": {
             ".": {},
             container_key("setup"): {**CONTAINER_DEFAULT_FIELDS, "f:command": {}},
             container_key("proxy"): {**CONTAINER_DEFAULT_FIELDS, "f:restartPolicy": {}, "f:resources": {
                 ".": {}, "f:limits": {".": {}, "f:cpu": {}, "f:memory": {}},
                 "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}}}},
         },
         **POD_DEFAULT_FIELDS}},
    qos="Burstable", metadata={"labels": {"app": "init"}},
)


@pytest.fixture
async def client(aiohttp_client: Any) -> Any:
    """A server whose admission adds nothing to a pod."""
    config = ServerConfig(disabled_admission_plugins=frozenset({"ServiceAccount", "DefaultTolerationSeconds",
                                                                 "Priority"}))
    return await aiohttp_client(create_app(config))


def comparable(obj: dict[str, Any]) -> dict[str, Any]:
    """The object without what differs from run to run: uid, creation time, resourceVersion, entry times."""
    meta = dict(obj["metadata"])
    for key in ("uid", "creationTimestamp", "resourceVersion"):
        assert meta.pop(key)
    meta["managedFields"] = [{k: v for k, v in entry.items() if k != "time"} for entry in meta["managedFields"]]
    return {**obj, "metadata": meta}


@pytest.mark.parametrize(
    ("sent", "expected"),
    [(MINIMAL, MINIMAL_STORED), (PROBED, PROBED_STORED), (VOLUMES, VOLUMES_STORED), (SECURITY, SECURITY_STORED),
     (EMPTY, EMPTY_STORED), (INIT, INIT_STORED)],
    ids=["minimal", "probes-and-lifecycle", "volumes", "empty-security-contexts", "empty-maps-and-lists",
         "init-containers"],
)
async def test_a_created_pod_is_the_json_upstream_returns(client: Any, sent: dict[str, Any],
                                                          expected: dict[str, Any]) -> None:
    response = await client.post(PODS, json=sent, params={"fieldManager": MANAGER})
    created = await response.json()
    assert response.status == 201, created
    assert comparable(created) == expected
    read = await (await client.get(f"{PODS}/{sent['metadata']['name']}")).json()
    assert comparable(read) == expected
