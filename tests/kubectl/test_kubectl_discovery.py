"""The real kubectl against fakeapi's discovery, OpenAPI documents and events (fails without kubectl)."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

from tests.kubectl.conftest import Kubectl, Server


def post(server: Server, path: str, body: dict[str, Any]) -> None:
    request = urllib.request.Request(
        server.url + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 201


def table(output: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in output.strip().splitlines()]


def pod_yaml(name: str, labels: str = "app: web") -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\n"
        "spec:\n  containers:\n  - name: nginx\n    image: nginx:1.27\n    ports:\n    - containerPort: 80\n"
    )


def test_api_resources_lists_every_served_resource_from_aggregated_discovery(kubectl: Kubectl) -> None:
    assert table(kubectl.ok("api-resources")) == [
        ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"],
        ["bindings", "v1", "true", "Binding"],
        ["configmaps", "cm", "v1", "true", "ConfigMap"],
        ["endpoints", "ep", "v1", "true", "Endpoints"],
        ["events", "ev", "v1", "true", "Event"],
        ["namespaces", "ns", "v1", "false", "Namespace"],
        ["nodes", "no", "v1", "false", "Node"],
        ["persistentvolumeclaims", "pvc", "v1", "true", "PersistentVolumeClaim"],
        ["pods", "po", "v1", "true", "Pod"],
        ["replicationcontrollers", "rc", "v1", "true", "ReplicationController"],
        ["secrets", "v1", "true", "Secret"],
        ["serviceaccounts", "sa", "v1", "true", "ServiceAccount"],
        ["services", "svc", "v1", "true", "Service"],
        ["mutatingwebhookconfigurations", "admissionregistration.k8s.io/v1", "false", "MutatingWebhookConfiguration"],
        ["validatingadmissionpolicies", "admissionregistration.k8s.io/v1", "false", "ValidatingAdmissionPolicy"],
        ["validatingadmissionpolicybindings", "admissionregistration.k8s.io/v1", "false",
         "ValidatingAdmissionPolicyBinding"],
        ["validatingwebhookconfigurations", "admissionregistration.k8s.io/v1", "false",
         "ValidatingWebhookConfiguration"],
        ["customresourcedefinitions", "crd,crds", "apiextensions.k8s.io/v1", "false", "CustomResourceDefinition"],
        ["controllerrevisions", "apps/v1", "true", "ControllerRevision"],
        ["daemonsets", "ds", "apps/v1", "true", "DaemonSet"],
        ["deployments", "deploy", "apps/v1", "true", "Deployment"],
        ["replicasets", "rs", "apps/v1", "true", "ReplicaSet"],
        ["statefulsets", "sts", "apps/v1", "true", "StatefulSet"],
        ["selfsubjectreviews", "authentication.k8s.io/v1", "false", "SelfSubjectReview"],
        ["tokenreviews", "authentication.k8s.io/v1", "false", "TokenReview"],
        ["localsubjectaccessreviews", "authorization.k8s.io/v1", "true", "LocalSubjectAccessReview"],
        ["selfsubjectaccessreviews", "authorization.k8s.io/v1", "false", "SelfSubjectAccessReview"],
        ["selfsubjectrulesreviews", "authorization.k8s.io/v1", "false", "SelfSubjectRulesReview"],
        ["subjectaccessreviews", "authorization.k8s.io/v1", "false", "SubjectAccessReview"],
        ["horizontalpodautoscalers", "hpa", "autoscaling/v2", "true", "HorizontalPodAutoscaler"],
        ["cronjobs", "cj", "batch/v1", "true", "CronJob"],
        ["jobs", "batch/v1", "true", "Job"],
        ["certificatesigningrequests", "csr", "certificates.k8s.io/v1", "false", "CertificateSigningRequest"],
        ["leases", "coordination.k8s.io/v1", "true", "Lease"],
        ["endpointslices", "discovery.k8s.io/v1", "true", "EndpointSlice"],
        ["events", "ev", "events.k8s.io/v1", "true", "Event"],
        ["poddisruptionbudgets", "pdb", "policy/v1", "true", "PodDisruptionBudget"],
        ["clusterrolebindings", "rbac.authorization.k8s.io/v1", "false", "ClusterRoleBinding"],
        ["clusterroles", "rbac.authorization.k8s.io/v1", "false", "ClusterRole"],
        ["rolebindings", "rbac.authorization.k8s.io/v1", "true", "RoleBinding"],
        ["roles", "rbac.authorization.k8s.io/v1", "true", "Role"],
    ]
    wide = {row[0]: row for row in table(kubectl.ok("api-resources", "-o", "wide"))}
    assert wide["pods"][5:] == ["create,delete,deletecollection,get,list,patch,update,watch", "all"]
    assert wide["namespaces"][5:] == ["create,delete,get,list,patch,update,watch"]


def test_explain_shows_upstreams_descriptions_of_every_served_kind(kubectl: Kubectl) -> None:
    lease = kubectl.ok("explain", "lease.spec.holderIdentity")
    assert "holderIdentity contains the identity of the holder of a current lease." in lease
    secret = kubectl.ok("explain", "secret.stringData")
    assert "stringData allows specifying non-binary secret data in string form." in secret
    event = kubectl.ok("explain", "events.note", "--api-version=events.k8s.io/v1")
    assert re.search(r"^GROUP:\s+events.k8s.io$", event, re.MULTILINE)
    assert "note is a human-readable description of the status of this operation." in event


def test_the_events_of_both_apis_are_one(kubectl: Kubectl) -> None:
    path = kubectl.write("event.yaml", (
        "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: one-event\n"
        "eventTime: 2025-01-01T10:00:00.000000Z\nreportingController: example.com/widgets\n"
        "reportingInstance: widgets-1\naction: Sync\nreason: Synced\ntype: Normal\nnote: synced\n"
        "regarding: {kind: Pod, namespace: default, name: web}\n"))
    assert kubectl.ok("create", "-f", path) == "event.events.k8s.io/one-event created\n"
    core = json.loads(kubectl.ok("get", "events", "one-event", "-o", "json"))
    assert (core["apiVersion"], core["message"]) == ("v1", "synced")
    assert kubectl.ok("get", "events.events.k8s.io", "-o", "name") == "event.events.k8s.io/one-event\n"
    assert "Normal   Synced   pod/web   synced" in kubectl.ok("get", "events.events.k8s.io")
    assert kubectl("create", "-f", path).err.strip() == (
        'Error from server (AlreadyExists): error when creating "' + path + '": events.events.k8s.io '
        '"one-event" already exists')


def test_explain_prints_the_schemas_descriptions(kubectl: Kubectl) -> None:
    out = kubectl.ok("explain", "pod.spec.containers")
    assert re.search(r"^KIND:\s+Pod$", out, re.MULTILINE)
    assert re.search(r"^VERSION:\s+v1$", out, re.MULTILINE)
    assert "FIELD: containers <[]Container>" in out
    assert "List of containers belonging to the pod." in out
    assert re.search(r"^  image\t<string>$", out, re.MULTILINE)
    assert re.search(r"^  name\t<string> -required-$", out, re.MULTILINE)
    assert re.search(r"^  resources\t<ResourceRequirements>$", out, re.MULTILINE)
    resources = kubectl.ok("explain", "pod.spec.containers.resources.limits")
    assert "FIELD: limits <map[string]Quantity>" in resources


def test_create_validates_with_the_openapi_v3_document(kubectl: Kubectl) -> None:
    path = kubectl.write("pod.yaml", pod_yaml("disc-create"))
    result = kubectl("create", "-f", path, "-v=6")
    assert result.rc == 0, str(result)
    assert result.out == "pod/disc-create created\n"
    assert "GET " in result.err and "/openapi/v3/api/v1?hash=" in result.err
    assert "fieldValidation=Strict" in result.err  # kubectl found the Pod PATCH operation's parameter


def test_create_rejects_an_unknown_field_after_validating(kubectl: Kubectl) -> None:
    path = kubectl.write("bad.yaml", pod_yaml("disc-bad") + "  bogus: 1\n")
    result = kubectl("create", "-f", path)
    assert result.rc == 1
    assert 'unknown field "spec.bogus"' in result.err


def test_apply_computes_its_patch_from_the_v3_schema(kubectl: Kubectl) -> None:
    """The PATCH operations list strategic-merge-patch: kubectl builds the patch from our schema, which
    must be complete enough that it neither warns nor falls back to /openapi/v2."""
    path = kubectl.write("apply.yaml", pod_yaml("disc-apply"))
    assert kubectl.ok("apply", "-f", path) == "pod/disc-apply created\n"
    kubectl.write("apply.yaml", pod_yaml("disc-apply", "app: web, tier: front"))
    result = kubectl("apply", "-f", path, "-v=6")
    assert result.rc == 0, str(result)
    assert result.out == "pod/disc-apply configured\n"
    assert "warning" not in result.err.lower()
    assert "/openapi/v2" not in result.err
    labels = kubectl.ok("get", "pod", "disc-apply", "-o", "jsonpath={.metadata.labels}")
    assert json.loads(labels) == {"app": "web", "tier": "front"}


def test_get_events_prints_recorded_events(kubectl: Kubectl, server: Server) -> None:
    post(
        server,
        "/api/v1/namespaces/default/events",
        {
            "metadata": {"name": "disc-ev.1"},
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": "disc-ev", "apiVersion": "v1"},
            "reason": "Pulled",
            "message": "Container image already present on machine",
            "type": "Normal",
            "source": {"component": "kubelet", "host": "node-1"},
            "count": 1,
            "firstTimestamp": "2025-01-01T00:00:00Z",
            "lastTimestamp": "2025-01-01T00:00:00Z",
        },
    )
    rows = table(kubectl.ok("get", "events"))
    assert rows[0] == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert [row[1:] for row in rows if row[3] == "pod/disc-ev"] == [
        ["Normal", "Pulled", "pod/disc-ev", "Container image already present on machine"]
    ]
    assert table(kubectl.ok("get", "ev", "disc-ev.1", "-o", "name")) == [["event/disc-ev.1"]]
