"""kubectl with admission webhooks: a configuration applied from YAML, listed with its columns, and a pod
that its webhook (reached through `--webhook-address default/hook=...`) refuses, as kubectl prints the refusal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.admission.conftest import WebhookServer
from tests.kubectl.conftest import Kubectl, Server, kubectl_binary, start_server, stop_server


@pytest.fixture(scope="module")
def hooks() -> Iterator[WebhookServer]:
    server = WebhookServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, hooks: WebhookServer) -> Iterator[Server]:
    kubectl_binary()
    started = start_server(tmp_path_factory.mktemp("fakeapi"), "--simulate", "none",
                           "--webhook-address", f"default/hook=127.0.0.1:{hooks.port}")
    yield started
    stop_server(started)


def no_bad_pods(request: dict[str, Any]) -> dict[str, Any]:
    if request["name"].startswith("bad"):
        return {"allowed": False, "status": {"message": "pods may not be called bad"}}
    return {"allowed": True}


def test_a_pod_the_webhook_refuses_is_not_created(kubectl: Kubectl, hooks: WebhookServer, tmp_path: Path) -> None:
    hooks.answers["/pods"] = no_bad_pods
    configuration = f"""\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pod-names
webhooks:
- name: pod-names.example.com
  sideEffects: None
  admissionReviewVersions: ["v1"]
  clientConfig:
    service: {{name: hook, namespace: default, path: /pods}}
    caBundle: {hooks.ca_bundle}
  rules:
  - {{operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}}
"""
    out = kubectl.ok("apply", "-f", kubectl.write("webhook.yaml", configuration))
    assert out.strip() == "validatingwebhookconfiguration.admissionregistration.k8s.io/pod-names created"
    listed = kubectl.ok("get", "validatingwebhookconfigurations").splitlines()
    assert listed[0].split() == ["NAME", "WEBHOOKS", "AGE"] and listed[1].split()[:2] == ["pod-names", "1"]
    refused = kubectl("run", "bad", "--image=nginx")
    assert refused.rc == 1
    assert refused.err.strip() == ('Error from server: admission webhook "pod-names.example.com" denied the '
                                   "request: pods may not be called bad")
    assert kubectl.ok("run", "good", "--image=nginx").strip() == "pod/good created"
    assert kubectl.ok("get", "pods", "-o", "name").split() == ["pod/good"]


def test_a_deployment_a_policy_refuses_as_kubectl_prints_it(kubectl: Kubectl) -> None:
    policy = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [Deny]
"""
    out = kubectl.ok("apply", "-f", kubectl.write("policy.yaml", policy))
    assert out.split("\n")[:2] == [
        "validatingadmissionpolicy.admissionregistration.k8s.io/replica-limit created",
        "validatingadmissionpolicybinding.admissionregistration.k8s.io/replica-limit-binding created"]
    listed = kubectl.ok("get", "validatingadmissionpolicies").splitlines()
    assert listed[0].split() == ["NAME", "VALIDATIONS", "PARAMKIND", "AGE"]
    assert listed[1].split()[:3] == ["replica-limit", "1", "<unset>"]
    refused = kubectl("create", "deployment", "big", "--image=nginx", "--replicas=6")
    assert refused.rc == 1
    assert refused.err.strip() == (
        'error: failed to create deployment: deployments.apps "big" is forbidden: ValidatingAdmissionPolicy '
        "'replica-limit' with binding 'replica-limit-binding' denied request: failed expression: "
        "object.spec.replicas <= 5")
    applied = kubectl("apply", "-f", kubectl.write("big.yaml", BIG_DEPLOYMENT))
    assert applied.rc == 1
    # (as kubectl prints it for a real cluster: the cause without a field makes the ": :")
    assert applied.err.strip() == (
        "The deployments \"big\" is invalid: : ValidatingAdmissionPolicy 'replica-limit' with binding "
        "'replica-limit-binding' denied request: failed expression: object.spec.replicas <= 5")
    assert kubectl.ok("create", "deployment", "small", "--image=nginx", "--replicas=2").strip() == \
        "deployment.apps/small created"


def test_an_exec_the_webhook_refuses_is_a_connect_review(kubectl: Kubectl, hooks: WebhookServer) -> None:
    hooks.answers["/connect"] = lambda request: {"allowed": False, "status": {"message": "no shells here"}}
    configuration = f"""\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: no-exec
webhooks:
- name: no-exec.example.com
  sideEffects: None
  admissionReviewVersions: ["v1"]
  clientConfig:
    service: {{name: hook, namespace: default, path: /connect}}
    caBundle: {hooks.ca_bundle}
  rules:
  - {{operations: ["CONNECT"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/exec"]}}
"""
    kubectl.ok("apply", "-f", kubectl.write("no-exec.yaml", configuration))
    kubectl.ok("run", "shell", "--image=busybox")
    refused = kubectl("exec", "shell", "--", "sh", "-c", "id")
    assert refused.rc == 1
    assert refused.err.strip() == ('Error from server: admission webhook "no-exec.example.com" denied the '
                                   "request: no shells here")
    request = hooks.reviews["/connect"][-1]["request"]
    assert (request["operation"], request["subResource"], request["name"]) == ("CONNECT", "exec", "shell")
    assert request["kind"] == {"group": "", "version": "v1", "kind": "PodExecOptions"}
    assert request["object"] == {"kind": "PodExecOptions", "apiVersion": "v1", "stdout": True, "stderr": True,
                                 "container": "shell", "command": ["sh", "-c", "id"]}
    assert request["options"] is None
    kubectl.ok("delete", "validatingwebhookconfiguration", "no-exec")


BIG_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: big}
spec:
  replicas: 6
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec: {containers: [{name: web, image: nginx}]}
"""
