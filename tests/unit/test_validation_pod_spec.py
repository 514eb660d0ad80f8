"""Pod create validation of pod-level spec fields (spec §6.2), create-only rules and create warnings."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.kinds.pod.validation.pod import validate_pod_create, warnings_on_create
from tests.validation_messages import LABEL_MSG, LABEL_VALUE_MSG, NAME_PART_MSG, SUBDOMAIN_MSG

IP_MSG = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
T0 = "spec.tolerations[0]"


def make_pod(meta: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    app = {
        "name": "app",
        "image": "nginx",
        "imagePullPolicy": "Always",
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "resources": {},
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", **(meta or {})},
        "spec": {
            "containers": [app],
            "restartPolicy": "Always",
            "dnsPolicy": "ClusterFirst",
            "terminationGracePeriodSeconds": 30,
            "securityContext": {},
            "schedulerName": "default-scheduler",
            **spec,
        },
    }


def errors(pod: dict[str, Any]) -> list[str]:
    return [str(e) for e in validate_pod_create(pod)]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            {"restartPolicy": "Sometimes"},
            'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", '
            '"Never"',
        ),
        ({"restartPolicy": ""}, "spec.restartPolicy: Required value"),
        (
            {"dnsPolicy": "Google"},
            'spec.dnsPolicy: Unsupported value: "Google": '
            'supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
        ),
        (
            {"dnsPolicy": "None"},
            "spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None",
        ),
        (
            {"dnsPolicy": "None", "dnsConfig": {}},
            "spec.dnsConfig.nameservers: Required value: "
            "must provide at least one DNS nameserver when `dnsPolicy` is None",
        ),
        (
            {"dnsConfig": {"nameservers": ["1.2.3"]}},
            f'spec.dnsConfig.nameservers[0]: Invalid value: "1.2.3": {IP_MSG}',
        ),
        ({"terminationGracePeriodSeconds": None}, "spec.terminationGracePeriodSeconds: Required value"),
        (
            {"activeDeadlineSeconds": 0},
            "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
        ),
        ({"nodeName": "Node_1"}, f'spec.nodeName: Invalid value: "Node_1": {SUBDOMAIN_MSG}'),
        ({"serviceAccountName": "Sa"}, f'spec.serviceAccountName: Invalid value: "Sa": {SUBDOMAIN_MSG}'),
        ({"priorityClassName": "High"}, f'spec.priorityClassName: Invalid value: "High": {SUBDOMAIN_MSG}'),
        ({"hostname": "a.b"}, 'spec.hostname: Invalid value: "a.b": must not contain dots'),
        ({"subdomain": "A"}, f'spec.subdomain: Invalid value: "A": {LABEL_MSG}'),
        (
            {"nodeSelector": {"disk": "ssd drive"}},
            f'spec.nodeSelector: Invalid value: "ssd drive": {LABEL_VALUE_MSG}',
        ),
        (
            {"os": {"name": "plan9"}},
            'spec.os: Unsupported value: "plan9": supported values: "linux", "windows"',
        ),
        (
            {"schedulingGates": [{"name": "a.io/x"}, {"name": "a.io/x"}]},
            'spec.schedulingGates[1]: Duplicate value: "a.io/x"',
        ),
        (
            {"hostAliases": [{"ip": "x", "hostnames": ["ok.example"]}]},
            f'spec.hostAliases[0].ip: Invalid value: "x": {IP_MSG}',
        ),
        (
            {"readinessGates": [{"conditionType": "a/b/c"}]},
            'spec.readinessGates[0].conditionType: Invalid value: "a/b/c": a qualified name must consist of '
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')",
        ),
        (
            {"preemptionPolicy": "Always"},
            'spec.preemptionPolicy: Unsupported value: "Always": supported values: "PreemptLowerPriority", '
            '"Never"',
        ),
    ],
)
def test_pod_level_fields(spec: dict[str, Any], expected: str) -> None:
    assert errors(make_pod(**spec)) == [expected]


def test_negative_termination_grace_period_is_accepted_with_a_warning() -> None:
    pod = make_pod(terminationGracePeriodSeconds=-5)
    assert validate_pod_create(pod) == []
    assert warnings_on_create(pod) == [
        "spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated "
        "as 1"
    ]


@pytest.mark.parametrize(
    ("volumes", "expected"),
    [
        ([{"name": "a", "emptyDir": {}}, {"name": "b", "configMap": {"name": "cm"}}], []),
        ([{"emptyDir": {}}], ["spec.volumes[0].name: Required value"]),
        (
            [{"name": "a", "emptyDir": {}}, {"name": "a", "emptyDir": {}}],
            ['spec.volumes[1].name: Duplicate value: "a"'],
        ),
        ([{"name": "A", "emptyDir": {}}], [f'spec.volumes[0].name: Invalid value: "A": {LABEL_MSG}']),
        (
            [{"name": "a", "emptyDir": {}, "hostPath": {"path": "/x"}}],
            ["spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type"],
        ),
        ([{"name": "a"}], ["spec.volumes[0]: Required value: must specify a volume type"]),
        (
            [{"name": "a", "secret": {"defaultMode": 1000}}],
            [
                "spec.volumes[0].secret.secretName: Required value",
                "spec.volumes[0].secret.defaultMode: Invalid value: 1000: "
                "must be a number between 0 and 0777 (octal), both inclusive",
            ],
        ),
        (
            [{"name": "a", "persistentVolumeClaim": {}}],
            ["spec.volumes[0].persistentVolumeClaim.claimName: Required value"],
        ),
    ],
)
def test_volumes(volumes: list[dict[str, Any]], expected: list[str]) -> None:
    assert errors(make_pod(volumes=volumes)) == expected


@pytest.mark.parametrize(
    ("toleration", "expected"),
    [
        ({"key": "a", "operator": "Equal", "value": "b", "effect": "NoSchedule"}, None),
        ({"operator": "Exists"}, None),
        ({"key": "a b", "operator": "Exists"}, f'{T0}.key: Invalid value: "a b": {NAME_PART_MSG}'),
        (
            {"operator": "Equal"},
            f'{T0}.operator: Invalid value: "Equal": '
            'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
        (
            {"key": "a", "operator": "Exists", "tolerationSeconds": 5, "effect": "NoSchedule"},
            f"{T0}.effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
            "`tolerationSeconds` is set",
        ),
        (
            {"key": "a", "operator": "Exists", "value": "b"},
            f"{T0}.operator: Invalid value: \"b\": value must be empty when `operator` is 'Exists'",
        ),
        (
            {"key": "a", "operator": "In"},
            f'{T0}.operator: Unsupported value: "In": supported values: "Equal", "Exists"',
        ),
        (
            {"key": "a", "operator": "Exists", "effect": "Never"},
            f'{T0}.effect: Unsupported value: "Never": '
            'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        ),
    ],
)
def test_tolerations(toleration: dict[str, Any], expected: str | None) -> None:
    assert errors(make_pod(tolerations=[toleration])) == ([expected] if expected else [])


def test_affinity_terms() -> None:
    requirement = {"key": "zone", "operator": "In", "values": ["a"]}
    terms = {"nodeSelectorTerms": [{"matchExpressions": [requirement]}]}
    good = {"requiredDuringSchedulingIgnoredDuringExecution": terms}
    assert errors(make_pod(affinity={"nodeAffinity": good})) == []
    bad: dict[str, Any] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}
    assert errors(make_pod(affinity={"nodeAffinity": bad})) == [
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: "
        "Required value: must have at least one node selector term"
    ]
    term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": ""}
    anti = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    at = "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey"
    assert errors(make_pod(affinity={"podAntiAffinity": anti})) == [
        f"{at}: Required value: can not be empty",
        f'{at}: Invalid value: "": name part must be non-empty',
        f'{at}: Invalid value: "": {NAME_PART_MSG}',
    ]


def test_topology_spread_constraints() -> None:
    constraint = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
    assert errors(make_pod(topologySpreadConstraints=[constraint])) == []
    assert errors(make_pod(topologySpreadConstraints=[{**constraint, "maxSkew": 0}, constraint])) == [
        "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
        "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: "
        'Duplicate value: "{zone, DoNotSchedule}"',
    ]


def test_pod_security_context() -> None:
    context = {
        "runAsUser": 1000,
        "fsGroup": 2000,
        "sysctls": [{"name": "kernel.shm_rmid_forced", "value": "1"}],
    }
    assert errors(make_pod(securityContext=context)) == []
    assert errors(
        make_pod(securityContext={"sysctls": [{"name": "net.core.somaxconn"}]}, hostNetwork=True)
    ) == [
        'spec.securityContext.sysctls[0].name: Invalid value: "net.core.somaxconn": '
        "may not be specified when 'hostNetwork' is true"
    ]
    assert errors(make_pod(hostPID=True, shareProcessNamespace=True)) == [
        "spec.securityContext.shareProcessNamespace: Invalid value: true: "
        "ShareProcessNamespace and HostPID cannot both be enabled"
    ]


# --- create-only rules -------------------------------------------------------------------------


def test_ephemeral_containers_cannot_be_set_on_create() -> None:
    debug = {
        "name": "debug",
        "image": "busybox",
        "imagePullPolicy": "Always",
        "terminationMessagePolicy": "File",
    }
    assert errors(make_pod(ephemeralContainers=[debug])) == [
        "spec.ephemeralContainers: Forbidden: cannot be set on create"
    ]


def test_node_name_cannot_be_set_while_scheduling_gates_remain() -> None:
    assert errors(make_pod(nodeName="node-1", schedulingGates=[{"name": "a.io/gate"}])) == [
        "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"
    ]
    assert errors(make_pod(schedulingGates=[{"name": "a.io/gate"}])) == []


def test_seccomp_annotation_must_match_the_field_on_create() -> None:
    meta = {"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}}
    pod = make_pod(meta=meta, securityContext={"seccompProfile": {"type": "RuntimeDefault"}})
    assert errors(pod) == [
        "spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match"
    ]
    pod = make_pod(meta=meta, securityContext={"seccompProfile": {"type": "Unconfined"}})
    assert errors(pod) == []


# --- warnings ----------------------------------------------------------------------------------


def test_name_that_is_not_a_dns_label_gets_a_hostname_warning() -> None:
    assert warnings_on_create(make_pod()) == []
    assert warnings_on_create(make_pod(meta={"name": "web.v1"})) == [
        "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; "
        "a DNS label is recommended: [must not contain dots]"
    ]
    assert warnings_on_create(make_pod(meta={"name": "web_1"})) == [
        "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; "
        f"a DNS label is recommended: [{LABEL_MSG}]"
    ]


def test_cheap_upstream_warnings() -> None:
    pod = make_pod(
        meta={"annotations": {"scheduler.alpha.kubernetes.io/critical-pod": ""}},
        nodeSelector={"beta.kubernetes.io/os": "linux"},
        volumes=[{"name": "repo", "gitRepo": {"repository": "r"}}],
    )
    app = pod["spec"]["containers"][0]
    app["resources"] = {"limits": {"memory": "1.5"}}
    app["env"] = [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]
    assert warnings_on_create(pod) == [
        'spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
        "metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: "
        'non-functional in v1.16+; use the "priorityClassName" field instead',
        "spec.volumes[0].gitRepo: deprecated in v1.11",
        'spec.containers[0].resources.limits[memory]: fractional byte value "1500m" is invalid, must be an '
        "integer",
        'spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply',
    ]
