"""Decoder.decode(): shape checks with upstream's messages, unknown-field reports, pruning, nulls, duplicates."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from fakeapi.machinery.decode import Decoded, DecodePlan, Decoder, parse_keeping_repeats, structural_plan
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON

POD = "io.k8s.api.core.v1.Pod"
EVENT = "io.k8s.api.core.v1.Event"
NAMESPACE = "io.k8s.api.core.v1.Namespace"
DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"


def plan(definition: str, *, partial: bool = False) -> DecodePlan:
    return structural_plan(KUBERNETES_1_32.schema(definition), partial=partial)


def decode(definition: str, data: Any, kind: str, version: str = "v1", *, partial: bool = False) -> Decoded:
    return Decoder(plan(definition, partial=partial)).decode(data, kind, version)


PREFIX = 'Pod in version "v1" cannot be handled as a Pod: '
QUANTITY_FORMAT = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
LAYOUT = "2006-01-02T15:04:05Z07:00"

CONTAINER: JSON = {
    "name": "web", "image": "registry.example.com/web:1.27.3", "command": ["/bin/web"],
        "args": ["--port", "8080"],
    "workingDir": "/srv",
    "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP", "hostIP": "0.0.0.0",
        "hostPort": 80}],
    "envFrom": [{"prefix": "CFG_", "configMapRef": {"name": "cfg", "optional": True}}],
    "env": [
        {"name": "MODE", "value": "prod"},
        {"name": "POD", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
        {"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}},
        {"name": "PW", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password", "optional": False}}},
    ],
    "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m",
        "memory": "128Mi"},
                  "claims": [{"name": "gpu", "request": "one"}]},
    "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
    "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": True, "subPath": "x",
                      "mountPropagation": "None", "recursiveReadOnly": "Disabled"}],
    "volumeDevices": [{"name": "raw", "devicePath": "/dev/xvda"}],
    "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP",
                                  "httpHeaders": [{"name": "X", "value": "y"}]},
                      "initialDelaySeconds": 3, "periodSeconds": 10, "timeoutSeconds": 1,
                      "successThreshold": 1, "failureThreshold": 3, "terminationGracePeriodSeconds": 5},
    "readinessProbe": {"tcpSocket": {"port": "http"}},
    "startupProbe": {"exec": {"command": ["true"]}, "failureThreshold": 30},
    "lifecycle": {"postStart": {"sleep": {"seconds": 1}}, "preStop": {"exec": {"command": ["sh", "-c",
        "x"]}}},
    "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
    "imagePullPolicy": "IfNotPresent",
    "securityContext": {"capabilities": {"add": ["NET_ADMIN"], "drop": ["ALL"]}, "privileged": False,
                        "runAsUser": 1000, "runAsNonRoot": True, "readOnlyRootFilesystem": True,
                        "allowPrivilegeEscalation": False, "seccompProfile": {"type": "RuntimeDefault"},
                        "appArmorProfile": {"type": "RuntimeDefault"}},
}
VOLUMES: list[JSON] = [
    {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}},
    {"name": "cfg", "configMap": {"name": "cfg", "items": [{"key": "a", "path": "a.conf", "mode": 420}],
                                  "defaultMode": 420}},
    {"name": "sec", "secret": {"secretName": "tls", "optional": True}},
    {"name": "tmp", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
    {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}},
    {"name": "nfs", "nfs": {"server": "10.0.0.1", "path": "/exports", "readOnly": True}},
    {"name": "csi", "csi": {"driver": "x.csi.k8s.io", "volumeAttributes": {"k": "v"},
                            "nodePublishSecretRef": {"name": "s"}}},
    {"name": "info",
     "downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
    {"name": "token", "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"audience": "api", "expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}}]}},
    ]}},
    {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
        "metadata": {"creationTimestamp": None, "labels": {"type": "scratch"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                 "resources": {"requests": {"storage": "1Gi"}}}}}},
    {"name": "legacy", "gcePersistentDisk": {"pdName": "disk", "fsType": "ext4"}},
    {"name": "img", "image": {"reference": "example.com/data:1", "pullPolicy": "IfNotPresent"}},
]
CONTAINER_STATUS: JSON = {
    "name": "web", "ready": True, "restartCount": 2, "image": "web:1", "imageID": "sha256:abc",
    "containerID": "containerd://abc", "started": True,
    "state": {"running": {"startedAt": "2024-05-01T10:00:04Z"}},
    "lastState": {"terminated": {"exitCode": 137, "signal": 9, "reason": "OOMKilled", "message": "oom",
                                 "startedAt": "2024-05-01T09:00:00Z", "finishedAt": "2024-05-01T09:59:59Z",
                                 "containerID": "containerd://old"}},
    "allocatedResources": {"cpu": "100m"}, "resources": {"requests": {"cpu": "100m"}},
    "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": True}],
    "user": {"linux": {"uid": 1000, "gid": 3000, "supplementalGroups": [4000]}},
    "allocatedResourcesStatus": [
        {"name": "claim:gpu", "resources": [{"resourceID": "gpu-0", "health": "Healthy"}]},
    ],
}
RICH_POD: JSON = {
    "kind": "Pod", "apiVersion": "v1",
    "metadata": {
        "name": "web-0", "namespace": "default", "uid": "3c8b1f0e-7a2d-4c55-9e61-2f4d8a9b0c1d",
        "resourceVersion": "42", "generation": 1, "creationTimestamp": "2024-05-01T10:00:00Z",
        "labels": {"app": "web"}, "annotations": {"note": "x"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web",
                             "uid": "0f3a5c3e-2b1d-4e49-9a0e-8c1f2d3b4a5c", "controller": True,
                             "blockOwnerDeletion": True}],
        "finalizers": ["example.com/keep"],
        "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                           "time": "2024-05-01T10:00:00Z", "fieldsType": "FieldsV1",
                           "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}}],
    },
    "spec": {
        "volumes": VOLUMES,
        "initContainers": [{"name": "init", "image": "busybox", "resources": {}, "restartPolicy": "Always"}],
        "containers": [CONTAINER],
        "ephemeralContainers": [{"name": "debug", "image": "busybox", "resources": {},
                                 "targetContainerName": "web", "stdin": True}],
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "activeDeadlineSeconds": 3600,
        "dnsPolicy": "None", "nodeSelector": {"kubernetes.io/os": "linux"}, "serviceAccountName": "web",
        "automountServiceAccountToken": False, "nodeName": "worker-1",
        "shareProcessNamespace": True,
        "securityContext": {"runAsUser": 1000, "runAsGroup": 3000, "fsGroup": 2000,
            "supplementalGroups": [4000],
                            "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}],
                            "fsGroupChangePolicy": "OnRootMismatch", "seLinuxOptions": {"level": "s0:c1"}},
        "imagePullSecrets": [{"name": "regcred"}], "hostname": "web-0", "subdomain": "web",
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]},
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "preference": {
                    "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["bad"]}]}}],
            },
            "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}},
                                                    "topologyKey": "kubernetes.io/hostname"}}]},
        },
        "schedulerName": "default-scheduler",
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                         "tolerationSeconds": 300}],
        "hostAliases": [{"ip": "127.0.0.1", "hostnames": ["foo.local"]}],
        "priorityClassName": "high", "priority": 1000,
        "dnsConfig": {"nameservers": ["1.1.1.1"], "searches": ["svc.local"],
                      "options": [{"name": "ndots", "value": "2"}]},
        "readinessGates": [{"conditionType": "example.com/ready"}],
        "runtimeClassName": "runc", "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority",
        "overhead": {"cpu": "10m"},
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
            "whenUnsatisfiable": "DoNotSchedule",
                                       "labelSelector": {"matchExpressions": [{"key": "app",
                                           "operator": "Exists"}]},
                                       "minDomains": 2, "matchLabelKeys": ["pod-template-hash"]}],
        "os": {"name": "linux"}, "hostUsers": True,
        "schedulingGates": [{"name": "example.com/gate"}],
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}],
    },
    "status": {
        "observedGeneration": 1, "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": None,
                        "lastTransitionTime": "2024-05-01T10:00:09Z", "observedGeneration": 1}],
        "hostIP": "10.0.3.17", "hostIPs": [{"ip": "10.0.3.17"}],
        "podIP": "10.244.3.41", "podIPs": [{"ip": "10.244.3.41"}], "startTime": "2024-05-01T10:00:01Z",
        "initContainerStatuses": [{"name": "init", "ready": True, "restartCount": 0, "image": "busybox",
                                   "imageID": "", "state": {"running": {"startedAt": "2024-05-01T10:00:02Z"}},
                                   "lastState": {}}],
        "containerStatuses": [CONTAINER_STATUS],
        "ephemeralContainerStatuses": [{"name": "debug", "ready": False, "restartCount": 0,
            "image": "busybox",
                                        "imageID": "", "state": {"waiting": {"reason": "ContainerCreating"}},
                                        "lastState": {}}],
        "qosClass": "Burstable", "resize": "InProgress",
        "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "web-0-gpu-abcde"}],
    },
}


def pod_with(change: Callable[[JSON], Any]) -> JSON:
    pod = copy.deepcopy(RICH_POD)
    change(pod)
    return pod


def unmarshal(value: str, field: str, go_type: str) -> str:
    return f"json: cannot unmarshal {value} into Go struct field {field} of type {go_type}"


def decode_error(data: Any) -> str:
    with pytest.raises(BadRequest) as caught:
        decode(POD, data, "Pod")
    assert caught.value.code == 400
    return caught.value.message


def container(**fields: Any) -> Callable[[JSON], Any]:
    return lambda pod: pod["spec"]["containers"][0].update(fields)


def test_a_pod_as_upstream_writes_it_round_trips_unchanged() -> None:
    assert decode(POD, RICH_POD, "Pod") == Decoded(RICH_POD, [])


def test_empty_values_are_kept_or_dropped_as_go_encodes_them() -> None:
    # omitempty values (labels, env, conditions, stdin, hostNetwork) drop when empty; pointers
    # (securityContext, privileged, terminationGracePeriodSeconds) stay when set, even empty or zero;
    # value structs (resources, lastState) stay and are filled when unset
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "labels": {}, "annotations": {}},
           "spec": {"containers": [{"name": "a", "image": "b", "resources": {}, "env": [], "stdin": False,
                                    "securityContext": {"privileged": False, "capabilities": {}}}],
                    "securityContext": {}, "hostNetwork": False, "nodeName": "", "terminationGracePeriodSeconds": 0},
           "status": {"conditions": [], "containerStatuses": [{"name": "a", "lastState": {}}]}}
    assert decode(POD, pod, "Pod") == Decoded({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "creationTimestamp": None},
        "spec": {"containers": [{"name": "a", "image": "b", "resources": {},
                                 "securityContext": {"privileged": False, "capabilities": {}}}],
                 "securityContext": {}, "terminationGracePeriodSeconds": 0},
        "status": {"containerStatuses": [{"name": "a", "lastState": {}, "state": {}, "ready": False,
                                          "restartCount": 0, "image": "", "imageID": ""}]}}, [])


def test_unset_fields_that_go_always_writes_get_their_zero_values() -> None:
    pod = {"spec": {"containers": [{"name": "a", "livenessProbe": {"httpGet": {}, "grpc": {}}}]},
           "status": {"conditions": [{"type": "Ready"}]}}
    obj = decode(POD, pod, "Pod").obj
    probe = obj["spec"]["containers"][0]["livenessProbe"]
    assert probe["httpGet"] == {"port": 0}
    assert probe["grpc"] == {"port": 0, "service": None}
    assert obj["status"]["conditions"] == [
        {"type": "Ready", "status": "", "lastProbeTime": None, "lastTransitionTime": None}]
    assert obj["metadata"] == {"creationTimestamp": None}


def test_a_partial_decode_keeps_the_fields_as_sent() -> None:
    # an apply configuration: what is empty stays, what is unset is not filled in
    pod = {"metadata": {"name": "a", "labels": {}}, "spec": {"containers": [{"name": "a", "env": []}]}}
    assert decode(POD, pod, "Pod", partial=True) == Decoded(pod, [])


def test_a_decoder_that_remembers_parts_decodes_alike_objects_alike_and_apart() -> None:
    decoder = Decoder(plan(POD), remember_parts=True)
    pod = copy.deepcopy(RICH_POD)
    pod["spec"]["containers"][0]["bogus"] = 1
    pod["status"] = {"conditions": [{"type": "Ready", "status": "True", "bogus": 2}]}
    first, second = decoder.decode(pod, "Pod"), decoder.decode(copy.deepcopy(pod), "Pod")
    unknown = ['unknown field "spec.containers[0].bogus"', 'unknown field "status.conditions[0].bogus"']
    assert first.unknown == second.unknown == unknown  # reported again when the part is remembered
    assert first.obj == second.obj == decode(POD, pod, "Pod").obj
    first.obj["spec"]["containers"][0]["image"] = "changed"
    first.obj["status"]["conditions"][0]["status"] = "False"
    assert second.obj["spec"]["containers"][0]["image"] != "changed"
    assert second.obj["status"]["conditions"][0]["status"] == "True"


def test_decoded_object_shares_nothing_with_the_input() -> None:
    pod = copy.deepcopy(RICH_POD)
    obj = decode(POD, pod, "Pod").obj
    obj["metadata"]["labels"]["new"] = "x"
    obj["metadata"]["finalizers"].append("y")
    obj["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"] = {}
    obj["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "1"
    obj["spec"]["volumes"][10]["gcePersistentDisk"]["pdName"] = "other"
    assert pod == RICH_POD


def test_parts_resent_as_stored_decode_as_any_other_and_share_nothing() -> None:
    decoder = Decoder(plan(POD))
    stored = copy.deepcopy(RICH_POD)
    body = copy.deepcopy(RICH_POD)
    body["status"] = {"phase": "Running", "bogus": 1}
    decoded = decoder.decode(body, "Pod", stored=stored)
    assert decoded == decoder.decode(copy.deepcopy(body), "Pod")
    assert decoded.unknown == ['unknown field "status.bogus"']
    assert list(decoded.obj) == list(body)  # in the body's order
    decoded.obj["metadata"]["labels"]["new"] = "x"
    decoded.obj["spec"]["containers"][0]["image"] = "changed"
    assert stored == RICH_POD and body["metadata"] == RICH_POD["metadata"]


@pytest.mark.parametrize("change", [
    lambda p: p["metadata"].update(generation=True),  # == 1 for Python
    lambda p: p["spec"].update(terminationGracePeriodSeconds=30.0),
    lambda p: p["spec"]["containers"][0]["ports"][0].update(containerPort=8080.0),
    lambda p: p["spec"]["containers"][0]["securityContext"].update(privileged=0),
])
def test_a_resent_part_equal_only_for_python_is_decoded(change: Callable[[JSON], Any]) -> None:
    stored = copy.deepcopy(RICH_POD)
    stored["metadata"]["generation"] = 1
    stored["spec"]["terminationGracePeriodSeconds"] = 30
    body = copy.deepcopy(stored)
    change(body)
    assert body == stored
    with pytest.raises(BadRequest) as caught:
        Decoder(plan(POD)).decode(body, "Pod", stored=stored)
    assert "json: cannot unmarshal" in caught.value.message


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.update(foo=1), 'unknown field "foo"'),
        (lambda p: p["metadata"].update(Name="x"), 'unknown field "metadata.Name"'),
        (lambda p: p["metadata"]["ownerReferences"][0].update(x=1),
            'unknown field "metadata.ownerReferences[0].x"'),
        (lambda p: p["spec"].update(replicas=3), 'unknown field "spec.replicas"'),
        (container(foo="bar"), 'unknown field "spec.containers[0].foo"'),
        (lambda p: p["spec"]["containers"][0]["ports"][0].update(x=None),
         'unknown field "spec.containers[0].ports[0].x"'),
        (lambda p: p["spec"]["containers"][0]["livenessProbe"]["httpGet"].update(url="/"),
         'unknown field "spec.containers[0].livenessProbe.httpGet.url"'),
        (lambda p: p["spec"]["volumes"][1]["configMap"]["items"][0].update(x=1),
         'unknown field "spec.volumes[1].configMap.items[0].x"'),
        (lambda p: p["spec"]["volumes"][8]["projected"]["sources"][0]["serviceAccountToken"].update(x=1),
         'unknown field "spec.volumes[8].projected.sources[0].serviceAccountToken.x"'),
        (lambda p: p["spec"]["volumes"][9]["ephemeral"]["volumeClaimTemplate"]["spec"].update(x=1),
         'unknown field "spec.volumes[9].ephemeral.volumeClaimTemplate.spec.x"'),
        (lambda p: p["spec"]["volumes"][0].update(cephfs2={}), 'unknown field "spec.volumes[0].cephfs2"'),
        (lambda p: p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
         ["nodeSelectorTerms"][0]["matchExpressions"][0].update(x=1),
         'unknown field "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution'
         '.nodeSelectorTerms[0].matchExpressions[0].x"'),
        (lambda p: p["status"]["containerStatuses"][0]["state"]["running"].update(x=1),
         'unknown field "status.containerStatuses[0].state.running.x"'),
    ],
)
def test_unknown_fields_are_reported_with_upstream_paths_and_pruned(
    change: Callable[[JSON], Any], message: str
) -> None:
    decoded = decode(POD, pod_with(change), "Pod")
    assert decoded.unknown == [message]
    assert decoded.obj == RICH_POD


def test_unknown_fields_are_listed_in_document_order() -> None:
    pod = {"zzz": 1, "metadata": {"name": "a", "bad": 1}, "spec": {"containers": [{"name": "a", "x": 1},
        {"y": 2}]}}
    assert decode(POD, pod, "Pod").unknown == [
        'unknown field "zzz"',
        'unknown field "metadata.bad"',
        'unknown field "spec.containers[0].x"',
        'unknown field "spec.containers[1].y"',
    ]


def test_unknown_fields_with_null_values_are_still_reported() -> None:
    assert decode(POD, {"spec": {"foo": None}}, "Pod").unknown == ['unknown field "spec.foo"']


def test_free_form_maps_and_objects_never_have_unknown_fields() -> None:
    def change(pod: JSON) -> None:
        pod["metadata"]["labels"]["any/key"] = "v"
        pod["metadata"]["annotations"]["Weird Key!"] = "v"
        pod["spec"]["nodeSelector"]["x"] = "y"
        pod["metadata"]["managedFields"][0]["fieldsV1"]["f:anything"] = {"nested": [1, 2]}

    pod = pod_with(change)
    assert decode(POD, pod, "Pod") == Decoded(pod, [])


def test_every_volume_source_is_decoded_as_its_type_deprecated_ones_too() -> None:
    def change(pod: JSON) -> None:
        pod["spec"]["volumes"][10]["gcePersistentDisk"]["notAField"] = True

    assert decode(POD, pod_with(change), "Pod").unknown == [
        'unknown field "spec.volumes[10].gcePersistentDisk.notAField"']


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.update(spec=1), unmarshal("number", "Pod.spec", "v1.PodSpec")),
        (lambda p: p["spec"].update(containers="x"), unmarshal("string", "PodSpec.spec.containers",
            "[]v1.Container")),
        (lambda p: p["spec"].update(containers=["x"]), unmarshal("string", "PodSpec.spec.containers",
            "v1.Container")),
        (container(ports={"a": 1}), unmarshal("object", "Container.spec.containers.ports",
            "[]v1.ContainerPort")),
        (container(ports=[{"containerPort": "a"}]),
         unmarshal("string", "ContainerPort.spec.containers.ports.containerPort", "int32")),
        (container(ports=[{"containerPort": 1.5}]),
         unmarshal("number 1.5", "ContainerPort.spec.containers.ports.containerPort", "int32")),
        (container(ports=[{"containerPort": 2**31}]),
         unmarshal("number 2147483648", "ContainerPort.spec.containers.ports.containerPort", "int32")),
        (lambda p: p["spec"].update(terminationGracePeriodSeconds=True),
         unmarshal("bool", "PodSpec.spec.terminationGracePeriodSeconds", "int64")),
        (lambda p: p["spec"].update(hostNetwork="yes"), unmarshal("string", "PodSpec.spec.hostNetwork",
            "bool")),
        (lambda p: p["metadata"].update(name=5), unmarshal("number", "ObjectMeta.metadata.name", "string")),
        (lambda p: p["metadata"]["labels"].update(a=1), unmarshal("number", "ObjectMeta.metadata.labels",
            "string")),
        (lambda p: p["metadata"].update(labels=["a"]),
         unmarshal("array", "ObjectMeta.metadata.labels", "map[string]string")),
        (lambda p: p["metadata"].update(finalizers=[1]),
         unmarshal("number", "ObjectMeta.metadata.finalizers", "string")),
        (container(resources={"limits": "x"}),
         unmarshal("string", "ResourceRequirements.spec.containers.resources.limits", "v1.ResourceList")),
        (container(livenessProbe={"httpGet": {"port": True}}),
         unmarshal("bool", "HTTPGetAction.spec.containers.livenessProbe.httpGet.port", "int32")),
        (lambda p: p["metadata"].update(creationTimestamp=5),
         unmarshal("number", "ObjectMeta.metadata.creationTimestamp", "string")),
        (container(resources={"limits": {"cpu": "abc"}}), QUANTITY_FORMAT),
        (container(resources={"limits": {"cpu": {"a": 1}}}), QUANTITY_FORMAT),
        (container(resources={"limits": {"cpu": "1ki"}}), "unable to parse quantity's suffix"),
        (lambda p: p["spec"]["volumes"][3]["emptyDir"].update(sizeLimit="lots"), QUANTITY_FORMAT),
        (lambda p: p["metadata"].update(creationTimestamp="yesterday"),
         f'parsing time "yesterday" as "{LAYOUT}": cannot parse "yesterday" as "2006"'),
        (lambda p: p["metadata"].update(creationTimestamp="2024-05-01 10:00:00Z"),
         f'parsing time "2024-05-01 10:00:00Z" as "{LAYOUT}": cannot parse " 10:00:00Z" as "T"'),
        (lambda p: p["metadata"].update(creationTimestamp="2024-05-01T10:00:00Zulu"),
         'parsing time "2024-05-01T10:00:00Zulu": extra text: "ulu"'),
        (lambda p: p["metadata"].update(creationTimestamp="2024-13-01T00:00:00Z"),
         'parsing time "2024-13-01T00:00:00Z": month out of range'),
        (lambda p: p["metadata"].update(creationTimestamp="2024-02-30T00:00:00Z"),
         'parsing time "2024-02-30T00:00:00Z": day out of range'),
    ],
)

def test_wrong_types_give_upstream_bad_request(change: Callable[[JSON], Any], message: str) -> None:
    assert decode_error(pod_with(change)) == PREFIX + message


def test_a_type_error_wins_over_unknown_fields() -> None:
    assert decode_error({"foo": 1, "spec": "x"}) == PREFIX + unmarshal("string", "Pod.spec", "v1.PodSpec")


@pytest.mark.parametrize(
    ("body", "detail", "summary"),
    [
        ([1], "cannot unmarshal array into Go value of type struct {", "5b315d"),
        ("pod", "cannot unmarshal string into Go value of type struct {", "22706f6422"),
        ({"apiVersion": 1}, "cannot unmarshal number into Go struct field .apiVersion of type string",
         '{"apiVersion":1}'),
        ({"kind": ["Pod"], "metadata": {"name": "a-rather-long-name"}},
         "cannot unmarshal array into Go struct field .kind of type string",
             '{"kind":["Pod"],"metadata":{"n ...'),
    ],
)
def test_a_body_without_readable_type_meta_is_unrecognized(body: Any, detail: str, summary: str) -> None:
    message = decode_error(body)
    assert message.startswith(
        "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; "
        f"json parse error: json: {detail}"
    )
    assert message.endswith(f" ({summary})")


def test_a_null_body_decodes_as_the_zero_object() -> None:
    assert decode(POD, None, "Pod") == Decoded(
        {"metadata": {"creationTimestamp": None}, "spec": {"containers": None}, "status": {}}, [])


def test_null_fields_are_absent() -> None:
    pod = {"metadata": {"name": "a", "labels": None, "deletionTimestamp": None},
           "spec": {"containers": [{"name": "a", "image": "b", "ports": None, "resources": None}],
                    "nodeName": None, "priority": None, "securityContext": None},
           "status": None}
    assert decode(POD, pod, "Pod").obj == {
        "metadata": {"name": "a", "creationTimestamp": None},
        "spec": {"containers": [{"name": "a", "image": "b", "resources": {}}]},
        "status": {},
    }


def test_nulls_inside_lists_and_maps_become_go_zero_values() -> None:
    pod = {"metadata": {"labels": {"a": None}, "finalizers": ["x", None]},
           "spec": {"containers": [None, {"name": "a", "resources": {"limits": {"cpu": None}}}],
                    "securityContext": {"supplementalGroups": [None, 5]}}}
    assert decode(POD, pod, "Pod").obj == {
        "metadata": {"labels": {"a": ""}, "finalizers": ["x", ""], "creationTimestamp": None},
        "spec": {"containers": [{"name": "", "resources": {}}, {"name": "a", "resources": {"limits": {"cpu": "0"}}}],
                 "securityContext": {"supplementalGroups": [0, 5]}},
        "status": {},
    }


@pytest.mark.parametrize(
    ("sent", "stored"),
    [(1, "1"), (0.5, "0.5"), (2.0, "2"), ("250m", "250m"), ("1Gi", "1Gi"), ("1e3", "1e3"), ("0", "0")],
)
def test_quantities_are_stored_as_strings(sent: Any, stored: str) -> None:
    pod = {"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": sent}}}]}}
    obj = decode(POD, pod, "Pod").obj
    assert obj["spec"]["containers"][0]["resources"]["requests"]["cpu"] == stored


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z"),
        ("2024-05-01T12:00:00+02:00", "2024-05-01T10:00:00Z"),
        ("2024-05-01T10:00:00.987654Z", "2024-05-01T10:00:00Z"),
        ("2024-02-29T23:59:59-01:00", "2024-03-01T00:59:59Z"),
    ],
)
def test_times_are_stored_as_upstream_writes_them(sent: str, stored: str) -> None:
    obj = decode(POD, {"metadata": {"creationTimestamp": sent}}, "Pod").obj
    assert obj["metadata"]["creationTimestamp"] == stored


def test_event_micro_times_keep_microseconds() -> None:
    event = {"kind": "Event", "apiVersion": "v1", "metadata": {"name": "e"}, "count": 2,
             "involvedObject": {"kind": "Pod", "name": "web"}, "source": {"component": "kubelet"},
             "eventTime": "2024-05-01T12:00:00.5+02:00",
             "series": {"count": 3, "lastObservedTime": "2024-05-01T10:00:01.000001Z"}}
    decoded = decode(EVENT, event, "Event")
    assert decoded.unknown == []
    assert decoded.obj["eventTime"] == "2024-05-01T10:00:00.500000Z"
    assert decoded.obj["series"]["lastObservedTime"] == "2024-05-01T10:00:01.000001Z"


def test_other_kinds_report_errors_under_their_own_kind() -> None:
    with pytest.raises(BadRequest) as caught:
        decode(NAMESPACE, {"spec": "x"}, "Namespace")
    assert caught.value.message == (
        'Namespace in version "v1" cannot be handled as a Namespace: '
        + unmarshal("string", "Namespace.spec", "v1.NamespaceSpec")
    )


def test_delete_options_decode_with_preconditions() -> None:
    body = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
            "preconditions": {"uid": "u", "resourceVersion": "5"}, "propagationPolicy": "Background",
            "dryRun": ["All"], "bogus": 1}
    decoded = decode(DELETE_OPTIONS, body, "DeleteOptions")
    assert decoded.unknown == ['unknown field "bogus"']
    assert decoded.obj == {key: value for key, value in body.items() if key != "bogus"}


@pytest.mark.parametrize(
    ("raw", "messages"),
    [
        (b'{"metadata":{"name":"a","name":"b"}}', ['duplicate field "metadata.name"']),
        (b'{"kind":"Pod","kind":"Pod"}', ['duplicate field "kind"']),
        (b'{"spec":{"containers":[{"name":"a"},{"name":"b","image":"x","image":"y"}]}}',
         ['duplicate field "spec.containers[1].image"']),
        (b'{"metadata":{"labels":{"a":"1","a":"2"}},"spec":{},"spec":{}}',
         ['duplicate field "metadata.labels.a"', 'duplicate field "spec"']),
        # unknown fields in document order with the duplicates, each once; nothing below an unknown one
        (b'{"bogus":{"x":1,"x":2},"spec":{"foo":1},"bogus":3,"spec":{"foo":2}}',
         ['unknown field "bogus"', 'unknown field "spec.foo"', 'duplicate field "spec"']),
    ],
)
def test_strict_errors_of_a_body_that_repeats_a_key(raw: bytes, messages: list[str]) -> None:
    assert Decoder(plan(POD)).strict_errors(parse_keeping_repeats(raw)) == messages


@pytest.mark.parametrize("raw", [b'{"metadata":{"name":"a"},"spec":{"foo":1}}', b'{"metadata": {', b"[1, 1]"])
def test_a_body_without_repeated_keys_or_that_does_not_parse_is_not_kept(raw: bytes) -> None:
    assert parse_keeping_repeats(raw) is None
