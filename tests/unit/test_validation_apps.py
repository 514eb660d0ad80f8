"""Defaults and validation of the apps/v1 kinds and ReplicationControllers, after upstream's apps and core
validation: messages, field paths and the order of causes, run through each kind's strategy."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.kinds.controllerrevision import CONTROLLER_REVISION
from fakeapi.kinds.daemonset import DAEMON_SET
from fakeapi.kinds.deployment import DEPLOYMENT
from fakeapi.kinds.kind import Kind
from fakeapi.kinds.replicaset import REPLICA_SET
from fakeapi.kinds.replicationcontroller import REPLICATION_CONTROLLER
from fakeapi.kinds.statefulset import STATEFUL_SET
from tests.validation_messages import LABEL_MSG
from tests.workloads import (
    create_errors,
    daemon_set,
    deployment,
    replica_set,
    replication_controller,
    stateful_set,
    stored,
    template,
    update_errors,
)

MISMATCH = ('spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: '
            "`selector` does not match template `labels`")
PERCENT = ("a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
           "regex used for validation is '[0-9]+%')")


def test_a_deployment_is_defaulted_as_upstream_defaults_it() -> None:
    spec = stored(DEPLOYMENT, deployment())["spec"]
    assert {key: spec[key] for key in ("replicas", "strategy", "revisionHistoryLimit", "progressDeadlineSeconds")} == {
        "replicas": 1, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%",
                                                                                "maxSurge": "25%"}},
        "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600}
    # the template gets the pod spec defaults, but not those upstream gives pods only
    assert spec["template"]["spec"] == {
        "containers": [{"name": "web", "image": "nginx:1.27", "resources": {}, "imagePullPolicy": "IfNotPresent",
                        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
        "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "securityContext": {},
        "terminationGracePeriodSeconds": 30, "schedulerName": "default-scheduler"}


def test_a_recreate_deployment_gets_no_rolling_update_and_limits_are_not_copied_to_requests() -> None:
    limited = template()
    limited["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}
    spec = stored(DEPLOYMENT, deployment(strategy={"type": "Recreate"}, template=limited))["spec"]
    assert spec["strategy"] == {"type": "Recreate"}
    assert spec["template"]["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "1"}}


@pytest.mark.parametrize(("spec", "expected"), [
    ({"selector": None}, ["spec.selector: Required value", MISMATCH]),
    ({"selector": {}}, ["spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
                        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for "
                        "deployment"]),
    ({"selector": {"matchLabels": {"app": "other"}}}, [MISMATCH]),
    ({"selector": {"matchExpressions": [{"key": "app", "operator": "Within", "values": ["web"]}]}},
     ['spec.selector.matchExpressions[0].operator: Invalid value: "Within": not a valid selector operator',
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:'
      '[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Within", '
      'Values:[]string{"web"}}}}: invalid label selector']),
    ({"replicas": -1}, ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]),
    ({"template": template(restartPolicy="Never")},
     ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']),
    ({"template": template(activeDeadlineSeconds=5)},
     ["spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"]),
    ({"template": {"metadata": {"labels": {"app": "web", "bad key": "x"}},
                   "spec": {"containers": [{"name": "web"}]}}},
     ['spec.template.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '
      "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
      "or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      "spec.template.spec.containers[0].image: Required value"]),
    ({"strategy": {"type": "Recreate", "rollingUpdate": {}}},
     ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]),
    ({"strategy": {"type": "Blue"}},
     ['spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"Blue", '
      'RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"']),
    ({"strategy": {"rollingUpdate": {"maxUnavailable": 0, "maxSurge": "0%"}}},
     ["spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, "
      'StrVal:""}: may not be 0 when `maxSurge` is 0']),
    ({"strategy": {"rollingUpdate": {"maxUnavailable": "110%", "maxSurge": "lots"}}},
     ['spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"lots"}: '
      + PERCENT,
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, '
      'StrVal:"110%"}: must not be greater than 100%']),
    ({"minReadySeconds": 700},
     ["spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"]),
])
def test_deployment_spec_errors(spec: dict[str, Any], expected: list[str]) -> None:
    assert create_errors(DEPLOYMENT, deployment(**spec)) == expected


def test_a_deployment_name_must_be_a_dns_subdomain() -> None:
    assert create_errors(DEPLOYMENT, deployment("Web")) == [
        'metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
        "[a-z0-9])?)*')"]


def test_deployment_warnings_name_the_name_and_the_templates_paths() -> None:
    obj = stored(DEPLOYMENT, deployment("web.v1", template=template(nodeSelector={"beta.kubernetes.io/os": "linux"})))
    assert DEPLOYMENT.strategy.warnings_on_create(obj) == [
        "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS "
        "label is recommended: [must not contain dots]",
        'spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" '
        "instead"]


def test_deployment_updates_keep_the_selector_and_status_and_count_generations() -> None:
    old = stored(DEPLOYMENT, deployment())
    old["status"] = {"replicas": 1}
    changed = copy.deepcopy(old)
    changed["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "a"}}
    changed["spec"]["template"]["metadata"]["labels"]["tier"] = "a"
    assert update_errors(DEPLOYMENT, old, changed) == [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"a"}, '
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"]
    annotated = copy.deepcopy(old)
    annotated["metadata"]["annotations"] = {"note": "x"}
    annotated["status"] = {}
    DEPLOYMENT.strategy.prepare_for_update(annotated, old)
    # annotations are copied to the ReplicaSets, so they are a new generation of a Deployment
    assert (annotated["metadata"]["generation"], annotated["status"]) == (2, {"replicas": 1})


def test_the_status_of_a_deployment_keeps_its_spec_and_labels_and_checks_its_counts() -> None:
    old = stored(DEPLOYMENT, deployment())
    new = copy.deepcopy(old)
    new["spec"]["replicas"] = 9
    new["metadata"]["labels"] = {"sneaky": "yes"}
    new["status"] = {"replicas": 1, "readyReplicas": 2, "availableReplicas": 3, "collisionCount": 1}
    assert update_errors(DEPLOYMENT, old, new, "status") == [
        "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
        "status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas",
        "status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas"]
    DEPLOYMENT.subresource_strategies["status"].prepare_for_update(new, old)
    assert (new["spec"]["replicas"], new["metadata"].get("labels")) == (1, None)
    counted = copy.deepcopy(old)
    counted["status"] = {"collisionCount": 2}
    lowered = copy.deepcopy(counted)
    lowered["status"] = {"collisionCount": 1}
    assert update_errors(DEPLOYMENT, counted, lowered, "status") == [
        "status.collisionCount: Invalid value: 1: cannot be decremented"]


def test_replica_sets_are_validated_like_deployments_and_say_deployment_for_an_empty_selector() -> None:
    assert stored(REPLICA_SET, replica_set())["spec"]["replicas"] == 1
    assert stored(REPLICA_SET, replica_set())["status"] == {"replicas": 0}
    assert create_errors(REPLICA_SET, replica_set(selector={}, minReadySeconds=-1)) == [
        "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
        "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"]


def test_a_replica_set_status_may_not_count_more_than_its_replicas() -> None:
    old = stored(REPLICA_SET, replica_set())
    new = copy.deepcopy(old)
    new["status"] = {"replicas": 1, "fullyLabeledReplicas": 2, "readyReplicas": -1}
    assert update_errors(REPLICA_SET, old, new, "status") == [
        "status.readyReplicas: Invalid value: -1: must be greater than or equal to 0",
        "status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas",
        "status.availableReplicas: Invalid value: 0: cannot be greater than readyReplicas"]


def test_a_stateful_set_is_defaulted_with_its_claim_templates() -> None:
    claims = [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                      "resources": {"requests": {"storage": "1Gi"}}}}]
    obj = stored(STATEFUL_SET, stateful_set(volumeClaimTemplates=claims))
    spec = obj["spec"]
    assert {key: spec[key] for key in ("podManagementPolicy", "updateStrategy", "persistentVolumeClaimRetentionPolicy",
                                       "replicas", "revisionHistoryLimit")} == {
        "podManagementPolicy": "OrderedReady", "updateStrategy": {"type": "RollingUpdate",
                                                                  "rollingUpdate": {"partition": 0}},
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
        "replicas": 1, "revisionHistoryLimit": 10}
    assert spec["volumeClaimTemplates"][0]["spec"]["volumeMode"] == "Filesystem"
    assert spec["volumeClaimTemplates"][0]["status"] == {"phase": "Pending"}
    assert obj["status"] == {"replicas": 0, "availableReplicas": 0}


@pytest.mark.parametrize(("name", "spec", "expected"), [
    ("web.db", {}, ['metadata.name: Invalid value: "web.db": must not contain dots']),
    ("web_db", {}, [f'metadata.name: Invalid value: "web_db": {LABEL_MSG}']),
    ("web", {"podManagementPolicy": "Random"},
     ["spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'"]),
    ("web", {"updateStrategy": {"type": "OnDelete", "rollingUpdate": {"partition": 1}}},
     ["spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, "
      "MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'"]),
    ("web", {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Keep"}},
     ['spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: '
      '"Retain", "Delete"']),
    ("web", {"selector": {}}, ["spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
                               "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for "
                               "statefulset"]),
    # upstream does not validate the template's pod spec (its pods are)
    ("web", {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web"}]}}}, []),
])
def test_stateful_set_spec_errors(name: str, spec: dict[str, Any], expected: list[str]) -> None:
    assert create_errors(STATEFUL_SET, stateful_set(name, **spec)) == expected


def test_a_stateful_set_update_may_change_only_some_of_its_spec() -> None:
    old = stored(STATEFUL_SET, stateful_set())
    allowed = copy.deepcopy(old)
    allowed["spec"].update(replicas=3, minReadySeconds=5, template=template(hostname="x"))
    assert update_errors(STATEFUL_SET, old, allowed) == []
    renamed = copy.deepcopy(old)
    renamed["spec"]["serviceName"] = "other"
    assert update_errors(STATEFUL_SET, old, renamed) == [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
        "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]


def test_a_daemon_set_is_defaulted_and_validated_as_upstream() -> None:
    obj = stored(DAEMON_SET, daemon_set())
    assert obj["spec"]["updateStrategy"] == {"type": "RollingUpdate",
                                             "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert obj["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    assert create_errors(DAEMON_SET, daemon_set(updateStrategy={"rollingUpdate": {"maxUnavailable": 1,
                                                                                 "maxSurge": 1}})) == [
        "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, "
        'StrVal:""}: may not be set when maxUnavailable is non-zero']
    assert create_errors(DAEMON_SET, daemon_set(updateStrategy={"rollingUpdate": {"maxUnavailable": 0}})) == [
        "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"]
    assert create_errors(DAEMON_SET, daemon_set(template=template(restartPolicy="OnFailure"))) == [
        'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"']


def test_a_daemon_set_template_change_is_a_new_template_generation() -> None:
    old = stored(DAEMON_SET, daemon_set())
    scaled = copy.deepcopy(old)
    scaled["spec"]["minReadySeconds"] = 5
    DAEMON_SET.strategy.prepare_for_update(scaled, old)
    assert (scaled["metadata"]["generation"], scaled["metadata"]["annotations"]) == (
        2, {"deprecated.daemonset.template.generation": "1"})
    changed = copy.deepcopy(scaled)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    changed["metadata"]["annotations"] = {}  # a client cannot set it
    DAEMON_SET.strategy.prepare_for_update(changed, scaled)
    assert (changed["metadata"]["generation"], changed["metadata"]["annotations"]) == (
        3, {"deprecated.daemonset.template.generation": "2"})


def test_a_replication_controller_takes_its_selector_and_labels_from_its_template() -> None:
    obj = stored(REPLICATION_CONTROLLER, replication_controller())
    assert (obj["metadata"]["labels"], obj["spec"]["selector"], obj["spec"]["replicas"]) == (
        {"app": "web"}, {"app": "web"}, 1)
    assert create_errors(REPLICATION_CONTROLLER, replication_controller(selector={"app": "db"})) == [
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match '
        "template `labels`"]
    bare: dict[str, Any] = {"metadata": {}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}
    assert create_errors(REPLICATION_CONTROLLER, replication_controller(template=bare)) == [
        "spec.selector: Required value"]
    assert create_errors(REPLICATION_CONTROLLER, replication_controller(template=None)) == [
        "spec.selector: Required value", "spec.template: Required value"]


def test_a_controller_revision_needs_data_which_never_changes() -> None:
    revision = {"metadata": {"name": "web-1"}, "revision": -1}
    assert create_errors(CONTROLLER_REVISION, revision) == [
        "data: Required value: data is mandatory",
        "revision: Invalid value: -1: must be greater than or equal to 0"]
    old = stored(CONTROLLER_REVISION, {"metadata": {"name": "web-1"}, "data": {"a": 1}, "revision": 1})
    new = copy.deepcopy(old)
    new["data"] = {"b": 2}
    assert update_errors(CONTROLLER_REVISION, old, new) == [
        "data: Invalid value: runtime.RawExtension{Raw:[]uint8{0x7b, 0x22, 0x62, 0x22, 0x3a, 0x32, 0x7d}, "
        "Object:runtime.Object(nil)}: field is immutable"]


@pytest.mark.parametrize("kind", [DEPLOYMENT, REPLICA_SET, STATEFUL_SET, DAEMON_SET, REPLICATION_CONTROLLER])
def test_every_workload_starts_at_generation_1_with_an_empty_status(kind: Kind) -> None:
    obj = {"metadata": {"name": "web", "generation": 7}, "spec": {}, "status": {"replicas": 4}}
    kind.strategy.prepare_for_create(obj)
    assert obj["metadata"]["generation"] == 1
    assert obj["status"].get("replicas", 0) == 0
