"""Pod create validation, metadata and containers (spec §6.1, §6.2): exact upstream messages and order."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.kinds.pod.validation.pod import validate_pod_create
from fakeapi.machinery import fielderrors as fe
from tests.validation_messages import LABEL_MSG, SUBDOMAIN_MSG

C0 = "spec.containers[0]"
PORT_RANGE = "must be between 1 and 65535, inclusive"
NOT_INIT = "may not be set for init containers without restartPolicy=Always"
PROBE = {
    "httpGet": {"path": "/", "port": 80, "scheme": "HTTP"},
    "timeoutSeconds": 1,
    "periodSeconds": 10,
    "successThreshold": 1,
    "failureThreshold": 3,
}


def container(name: str = "app", **fields: Any) -> dict[str, Any]:
    """A container as it looks after v1 defaulting."""
    return {
        "name": name,
        "image": "nginx",
        "imagePullPolicy": "Always",
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "resources": {},
        **fields,
    }


def make_pod(
    containers: list[dict[str, Any]] | None = None, meta: dict[str, Any] | None = None, **spec: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", **(meta or {})},
        "spec": {
            "containers": containers if containers is not None else [container()],
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


def test_defaulted_minimal_pod_is_valid() -> None:
    assert validate_pod_create(make_pod()) == []


def test_two_broken_containers_report_in_upstream_order() -> None:
    broken = [
        {k: v for k, v in container().items() if k not in ("name", "image")},
        {k: v for k, v in container("b").items() if k != "image"},
    ]
    result = validate_pod_create(make_pod(broken))
    assert [str(e) for e in result] == [
        "spec.containers[0].name: Required value",
        "spec.containers[0].image: Required value",
        "spec.containers[1].image: Required value",
    ]
    assert [e.to_cause() for e in result][:2] == [
        {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.containers[0].name"},
        {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.containers[0].image"},
    ]


def test_metadata_errors_come_before_spec_errors() -> None:
    pod = make_pod([container(image="")], meta={"name": "Web"})
    assert errors(pod) == [
        f'metadata.name: Invalid value: "Web": {SUBDOMAIN_MSG}',
        "spec.containers[0].image: Required value",
    ]


# --- pod annotations (§6.1) --------------------------------------------------------------------


def test_mirror_pod_annotation_needs_a_node_name() -> None:
    annotations = {"kubernetes.io/config.mirror": "hash"}
    assert errors(make_pod(meta={"annotations": annotations}, nodeName="node-1")) == []
    assert errors(make_pod(meta={"annotations": annotations})) == [
        'metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "hash": '
        "must set spec.nodeName if mirror pod annotation is set"
    ]


@pytest.mark.parametrize(
    ("cost", "valid"),
    [("10", True), ("-5", True), ("0", True), ("+1", False), ("007", False), ("2147483648", False)],
)
def test_pod_deletion_cost_is_an_int32(cost: str, valid: bool) -> None:
    key = "controller.kubernetes.io/pod-deletion-cost"
    expected = [f'metadata.annotations[{key}]: Invalid value: "{cost}": must be a 32bit integer']
    assert errors(make_pod(meta={"annotations": {key: cost}})) == ([] if valid else expected)


# --- containers (§6.2) -------------------------------------------------------------------------


def test_at_least_one_container_is_required() -> None:
    assert errors(make_pod([])) == ["spec.containers: Required value"]


def test_container_name_must_be_a_dns_label() -> None:
    assert errors(make_pod([container("Bad_Name")])) == [f'{C0}.name: Invalid value: "Bad_Name": {LABEL_MSG}']
    long_name = "a" * 64
    assert errors(make_pod([container(long_name)])) == [
        f'{C0}.name: Invalid value: "{long_name}": must be no more than 63 characters'
    ]


def test_duplicate_container_names_are_reported_on_the_later_one() -> None:
    pod = make_pod([container("a"), container("a")], initContainers=[container("a")])
    result = validate_pod_create(pod)
    assert [str(e) for e in result] == [
        'spec.containers[1].name: Duplicate value: "a"',
        'spec.initContainers[0].name: Duplicate value: "a"',
    ]
    assert result[0].reason == fe.DUPLICATE


def test_whitespace_image_is_not_required_but_invalid() -> None:
    assert errors(make_pod([container(image=" ")])) == [
        f'{C0}.image: Invalid value: " ": must not have leading or trailing whitespace'
    ]


def _port(**fields: Any) -> dict[str, Any]:
    return {"ports": [{"containerPort": 80, "protocol": "TCP", **fields}]}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {"imagePullPolicy": "Sometimes"},
            f'{C0}.imagePullPolicy: Unsupported value: "Sometimes": '
            'supported values: "Always", "IfNotPresent", "Never"',
        ),
        (
            {"terminationMessagePolicy": "Log"},
            f'{C0}.terminationMessagePolicy: Unsupported value: "Log": '
            'supported values: "File", "FallbackToLogsOnError"',
        ),
        (
            {"restartPolicy": "Always"},
            f"{C0}.restartPolicy: Forbidden: may not be set for non-init containers",
        ),
        (_port(containerPort=0), f"{C0}.ports[0].containerPort: Required value"),
        (_port(containerPort=70000), f"{C0}.ports[0].containerPort: Invalid value: 70000: {PORT_RANGE}"),
        (_port(hostPort=-1), f"{C0}.ports[0].hostPort: Invalid value: -1: {PORT_RANGE}"),
        (
            _port(protocol="ICMP"),
            f'{C0}.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
        ),
        (
            _port(name="Web"),
            f'{C0}.ports[0].name: Invalid value: "Web": '
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        ),
        ({"env": [{"name": ""}]}, f"{C0}.env[0].name: Required value"),
        (
            {"env": [{"name": "A=B"}]},
            f'{C0}.env[0].name: Invalid value: "A=B": '
            "a valid environment variable name must consist only of printable ASCII characters other than "
            "'='",
        ),
        (
            {"env": [{"name": "X", "valueFrom": {}}]},
            f'{C0}.env[0].valueFrom: Invalid value: "": '
            "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
        ),
        (
            {
                "env": [
                    {
                        "name": "X",
                        "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.phase"}},
                    }
                ]
            },
            f'{C0}.env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: '
            '"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", '
            '"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
        ),
        (
            {"volumeMounts": [{"name": "data", "mountPath": "/data"}]},
            f'{C0}.volumeMounts[0].name: Not found: "data"',
        ),
    ],
)
def test_container_field_rules(fields: dict[str, Any], expected: str) -> None:
    assert errors(make_pod([container(**fields)])) == [expected]


def test_relaxed_env_names_and_valid_ports_pass() -> None:
    fields = {"env": [{"name": "ev!1", "value": "x"}], **_port(name="http")}
    assert errors(make_pod([container(**fields)])) == []


def test_duplicate_port_name_within_a_container() -> None:
    ports = [
        {"containerPort": 80, "protocol": "TCP", "name": "web"},
        {"containerPort": 81, "protocol": "TCP", "name": "web"},
    ]
    assert errors(make_pod([container(ports=ports)])) == [f'{C0}.ports[1].name: Duplicate value: "web"']


def test_host_ports_are_unique_per_protocol_and_ip_across_containers() -> None:
    port = {"containerPort": 80, "hostPort": 80, "protocol": "TCP"}
    pod = make_pod([container("a", ports=[port]), container("b", ports=[dict(port)])])
    assert errors(pod) == ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//80"']
    pod = make_pod([container("a", ports=[port]), container("b", ports=[{**port, "protocol": "UDP"}])])
    assert errors(pod) == []


def test_host_network_requires_host_port_to_match_container_port() -> None:
    assert errors(make_pod([container(**_port(hostPort=8080))], hostNetwork=True)) == [
        f"{C0}.ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true"
    ]
    assert errors(make_pod([container(**_port(hostPort=80))], hostNetwork=True)) == []


def test_volume_mounts_resolve_against_pod_volumes() -> None:
    mounts = [{"name": "data", "mountPath": "/data"}]
    pod = make_pod([container(volumeMounts=mounts)], volumes=[{"name": "data", "emptyDir": {}}])
    assert errors(pod) == []


# --- resources ---------------------------------------------------------------------------------

R0 = f"{C0}.resources"
HUGE_2MI = "3Mi is not positive integer multiple of hugepages-2Mi"


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}, []),
        (
            {"limits": {"disk": "1"}},
            [
                f'{R0}.limits[disk]: Invalid value: "disk": must be a standard resource type or fully '
                "qualified",
                f'{R0}.limits[disk]: Invalid value: "disk": must be a standard resource for containers',
            ],
        ),
        (
            {"requests": {"cpu": "-1"}},
            [f'{R0}.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0'],
        ),
        (
            {"limits": {"example.com/gpu": "500m"}, "requests": {"example.com/gpu": "500m"}},
            [
                f"{R0}.limits[example.com/gpu]: Invalid value: 500m: must be an integer",
                f"{R0}.requests[example.com/gpu]: Invalid value: 500m: must be an integer",
            ],
        ),
        (
            {"limits": {"cpu": "5"}, "requests": {"cpu": "6"}},
            [f'{R0}.requests: Invalid value: "6": must be less than or equal to cpu limit of 5'],
        ),
        (
            {"limits": {"example.com/a": "1"}, "requests": {"example.com/a": "2"}},
            [f'{R0}.requests: Invalid value: "2": must be equal to example.com/a limit of 1'],
        ),
        (
            {"requests": {"example.com/a": "1"}},
            [f"{R0}.limits: Required value: Limit must be set for non overcommitable resources"],
        ),
        (
            {"limits": {"hugepages-2Mi": "2Mi"}, "requests": {"hugepages-2Mi": "2Mi"}},
            [f"{R0}: Forbidden: HugePages require cpu or memory"],
        ),
        (
            {"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}, "requests": {"hugepages-2Mi": "3Mi"}},
            [
                f'{R0}.limits[hugepages-2Mi]: Invalid value: "3Mi": {HUGE_2MI}',
                f'{R0}.requests[hugepages-2Mi]: Invalid value: "3Mi": {HUGE_2MI}',
            ],
        ),
    ],
)
def test_container_resources(resources: dict[str, Any], expected: list[str]) -> None:
    assert errors(make_pod([container(resources=resources)])) == expected


def test_pod_level_requests_must_cover_the_containers() -> None:
    pods = [
        container("a", resources={"requests": {"memory": "10Mi"}}),
        container("b", resources={"requests": {"memory": "10Mi"}}),
    ]
    assert errors(make_pod(pods, resources={"requests": {"memory": "20Mi"}})) == []
    assert errors(make_pod(pods, resources={"requests": {"memory": "10Mi"}})) == [
        'spec.resources.requests[memory]: Invalid value: "10Mi": '
        "must be greater than or equal to aggregate container requests of 20Mi"
    ]
    assert errors(make_pod([container()], resources={"limits": {"ephemeral-storage": "1Gi"}})) == [
        'spec.resources.limits[ephemeral-storage]: Unsupported value: "ephemeral-storage": '
        'supported values: "cpu", "memory"'
    ]


# --- probes, lifecycle, init containers --------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"livenessProbe": PROBE, "readinessProbe": PROBE, "startupProbe": PROBE}, []),
        (
            {"livenessProbe": {**PROBE, "successThreshold": 2}},
            [f"{C0}.livenessProbe.successThreshold: Invalid value: 2: must be 1"],
        ),
        (
            {"readinessProbe": {**PROBE, "terminationGracePeriodSeconds": 5}},
            [
                f"{C0}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for "
                "readinessProbes"
            ],
        ),
        (
            {"livenessProbe": {**PROBE, "terminationGracePeriodSeconds": 0}},
            [f"{C0}.livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0"],
        ),
        (
            {"livenessProbe": {"periodSeconds": 10, "successThreshold": 1}},
            [f"{C0}.livenessProbe: Required value: must specify a handler type"],
        ),
        (
            {"livenessProbe": {**PROBE, "initialDelaySeconds": -1}},
            [
                f"{C0}.livenessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal "
                "to 0"
            ],
        ),
        ({"lifecycle": {"preStop": {"exec": {}}}}, [f"{C0}.lifecycle.preStop.exec.command: Required value"]),
        (
            {"lifecycle": {"postStart": {"httpGet": {"path": "/", "port": 80, "scheme": "FTP"}}}},
            [
                f'{C0}.lifecycle.postStart.httpGet.scheme: Unsupported value: "FTP": supported values: '
                '"HTTP", "HTTPS"'
            ],
        ),
        (
            {"lifecycle": {"preStop": {"tcpSocket": {"port": "Web"}}}},
            [
                f'{C0}.lifecycle.preStop.tcpSocket.port: Invalid value: "Web": '
                "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"
            ],
        ),
        (
            {"lifecycle": {"preStop": {"exec": {"command": ["x"]}, "sleep": {"seconds": 1}}}},
            [f"{C0}.lifecycle.preStop.sleep: Forbidden: may not specify more than 1 handler type"],
        ),
    ],
)
def test_probes_and_lifecycle(fields: dict[str, Any], expected: list[str]) -> None:
    assert errors(make_pod([container(**fields)])) == expected


def test_init_container_restart_policy_and_probes() -> None:
    sidecar = container("sidecar", restartPolicy="Always", readinessProbe=PROBE)
    assert errors(make_pod(initContainers=[sidecar])) == []
    assert errors(make_pod(initContainers=[container("init", restartPolicy="OnFailure")])) == [
        'spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'
    ]
    assert errors(make_pod(initContainers=[container("init", livenessProbe=PROBE, lifecycle={})])) == [
        f"spec.initContainers[0].lifecycle: Forbidden: {NOT_INIT}",
        f"spec.initContainers[0].livenessProbe: Forbidden: {NOT_INIT}",
    ]


def test_container_security_context() -> None:
    assert errors(make_pod([container(securityContext={"runAsUser": 1000, "privileged": True})])) == []
    assert errors(make_pod([container(securityContext={"runAsUser": -1, "procMount": "Unmasked"})])) == [
        f"{C0}.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
        f'{C0}.securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use '
        "`Unmasked`",
    ]
    seccomp = {"seccompProfile": {"type": "Localhost"}}
    assert errors(make_pod([container(securityContext=seccomp)])) == [
        f"{C0}.securityContext.seccompProfile.localhostProfile: Required value: "
        "must be set when seccomp type is Localhost"
    ]
