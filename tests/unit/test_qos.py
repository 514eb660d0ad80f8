"""ComputePodQOS on wire-shaped pods: upstream's TestComputePodQOS table plus the spec's §7 edge cases."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.kinds.pod.defaults import default_pod
from fakeapi.kinds.pod.qos import BEST_EFFORT, BURSTABLE, GUARANTEED, get_pod_qos, qos_class
from fakeapi.machinery.types import JSON


def resources(cpu: str = "", memory: str = "", **extra: str) -> JSON:
    """upstream's getResourceList (+ addResource): only the non-empty quantities."""
    found = {name: value for name, value in (("cpu", cpu), ("memory", memory)) if value}
    found.update({name.replace("_", "-"): value for name, value in extra.items()})
    return found


def container(name: str, requests: JSON, limits: JSON) -> JSON:
    return {"name": name, "image": "busybox", "resources": {"requests": requests, "limits": limits}}


def pod(*containers: JSON, init: tuple[JSON, ...] = (), pod_level: JSON | None = None) -> JSON:
    spec: JSON = {"containers": list(containers)}
    if init:
        spec["initContainers"] = list(init)
    if pod_level is not None:
        spec["resources"] = pod_level
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


def guaranteed(name: str = "guaranteed") -> JSON:
    return container(name, resources("100m", "100Mi"), resources("100m", "100Mi"))


def best_effort(name: str = "best-effort") -> JSON:
    return container(name, resources(), resources())


UPSTREAM_CASES: list[tuple[str, JSON, str]] = [
    ("guaranteed", pod(guaranteed()), GUARANTEED),
    ("guaranteed-guaranteed", pod(guaranteed(), guaranteed()), GUARANTEED),
    ("best-effort-best-effort", pod(best_effort(), best_effort()), BEST_EFFORT),
    ("best-effort", pod(best_effort()), BEST_EFFORT),
    (
        "best-effort-burstable",
        pod(best_effort(), container("burstable", resources("1"), resources("2"))),
        BURSTABLE,
    ),
    (
        "best-effort-guaranteed",
        pod(best_effort(), container("guaranteed", resources("10m", "100Mi"), resources("10m", "100Mi"))),
        BURSTABLE,
    ),
    (
        "burstable-cpu-guaranteed-memory",
        pod(container("burstable", resources(memory="100Mi"), resources(memory="100Mi"))),
        BURSTABLE,
    ),
    (
        "burstable-no-limits",
        pod(container("burstable", resources("100m", "100Mi"), resources())),
        BURSTABLE,
    ),
    (
        "burstable-guaranteed",
        pod(container("burstable", resources("1", "100Mi"), resources("2", "100Mi")), guaranteed()),
        BURSTABLE,
    ),
    (
        "burstable-unbounded-but-requests-match-limits",
        pod(
            container("burstable", resources("100m", "100Mi"), resources("200m", "200Mi")),
            container("burstable-unbounded", resources("100m", "100Mi"), resources()),
        ),
        BURSTABLE,
    ),
    (
        "burstable-1",
        pod(container("burstable", resources("10m", "100Mi"), resources("100m", "200Mi"))),
        BURSTABLE,
    ),
    (
        "burstable-2",
        pod(container("burstable", resources("0", "0"), resources("100m", "200Mi"))),
        BURSTABLE,
    ),
    (
        "best-effort-hugepages",
        pod(
            container(
                "best-effort",
                resources("0", "0", hugepages_2Mi="1Gi"),
                resources("0", "0", hugepages_2Mi="1Gi"),
            )
        ),
        BEST_EFFORT,
    ),
    (
        "init-container",
        pod(
            best_effort(),
            init=(container("burstable", resources("10m", "100Mi"), resources("100m", "200Mi")),),
        ),
        BURSTABLE,
    ),
    (
        "guaranteed-with-pod-level-resources",
        pod(
            best_effort(),
            pod_level={"requests": resources("10m", "100Mi"), "limits": resources("10m", "100Mi")},
        ),
        GUARANTEED,
    ),
    (
        "guaranteed-with-pod-and-container-level-resources",
        pod(
            container("burstable", resources("3m", "10Mi"), resources("5m", "20Mi")),
            pod_level={"requests": resources("10m", "100Mi"), "limits": resources("10m", "100Mi")},
        ),
        GUARANTEED,
    ),
    (
        "burstable-with-pod-level-resources",
        pod(
            best_effort(),
            pod_level={"requests": resources("10m", "10Mi"), "limits": resources("20m", "50Mi")},
        ),
        BURSTABLE,
    ),
    (
        "burstable-with-pod-and-container-level-resources",
        pod(
            container("burstable", resources("5m", "10Mi"), resources("5m", "10Mi")),
            pod_level={"requests": resources("10m", "10Mi"), "limits": resources("20m", "50Mi")},
        ),
        BURSTABLE,
    ),
    (
        "burstable-with-pod-and-container-level-requests",
        pod(
            container("burstable", resources("5m", "10Mi"), resources()),
            pod_level={"requests": resources("10m", "10Mi"), "limits": resources()},
        ),
        BURSTABLE,
    ),
    (
        "burstable-with-pod-and-container-level-resources-2",
        pod(
            container("burstable", resources("5m", "10Mi"), resources()),
            container("guaranteed", resources("5m", "10Mi"), resources("5m", "10Mi")),
            pod_level={"requests": resources("10m", "10Mi"), "limits": resources("5m")},
        ),
        BURSTABLE,
    ),
]


@pytest.mark.parametrize(("name", "the_pod", "expected"), UPSTREAM_CASES, ids=[c[0] for c in UPSTREAM_CASES])
def test_compute_pod_qos_matches_upstream_table(name: str, the_pod: JSON, expected: str) -> None:
    assert qos_class(the_pod) == expected


EDGE_CASES: list[tuple[str, JSON, str]] = [
    ("no containers at all", pod(), BEST_EFFORT),
    (
        "one equals 1000m",
        pod(container("c", resources("1", "1Gi"), resources("1000m", "1024Mi"))),
        GUARANTEED,
    ),
    (
        "1Gi equals 1073741824",
        pod(container("c", resources("500m", "1073741824"), resources("0.5", "1Gi"))),
        GUARANTEED,
    ),
    (
        "extended resources are ignored",
        pod(
            container(
                "c",
                resources("1", "1Gi", **{"example.com/gpu": "1"}),
                resources("1", "1Gi", **{"example.com/gpu": "2"}),
            )
        ),
        GUARANTEED,
    ),
    (
        "ephemeral-storage alone is best effort",
        pod(container("c", resources(ephemeral_storage="1Gi"), resources(ephemeral_storage="1Gi"))),
        BEST_EFFORT,
    ),
    ("zero limits are absent", pod(container("c", resources("0", "0"), resources("0", "0"))), BEST_EFFORT),
    (
        "an init container without limits makes the pod burstable",
        pod(guaranteed(), init=(container("init", resources("100m", "100Mi"), resources()),)),
        BURSTABLE,
    ),
    (
        "guaranteed init containers keep the pod guaranteed",
        pod(guaranteed(), init=(guaranteed("init"),)),
        GUARANTEED,
    ),
    (
        "sums are compared, not each container",
        pod(
            container("a", resources("100m", "100Mi"), resources("200m", "100Mi")),
            container("b", resources("300m", "100Mi"), resources("200m", "100Mi")),
        ),
        GUARANTEED,
    ),
    (
        "a container without resources is not guaranteed",
        pod(guaranteed(), {"name": "bare", "image": "busybox"}),
        BURSTABLE,
    ),
    (
        "ephemeral containers are ignored",
        {**pod(guaranteed()), "spec": {**pod(guaranteed())["spec"], "ephemeralContainers": [best_effort()]}},
        GUARANTEED,
    ),
    (
        "pod-level limits must name both cpu and memory",
        pod(guaranteed(), pod_level={"requests": resources("10m", "10Mi"), "limits": resources("10m")}),
        BURSTABLE,
    ),
    (
        "pod-level hugepages alone select the pod-level path",
        pod(guaranteed(), pod_level={"limits": {"hugepages-2Mi": "1Gi"}}),
        BEST_EFFORT,
    ),
    (
        "pod-level extended resources do not select the pod-level path",
        pod(guaranteed(), pod_level={"limits": {"example.com/a": "1"}}),
        GUARANTEED,
    ),
    ("empty pod-level resources are ignored", pod(guaranteed(), pod_level={}), GUARANTEED),
    (
        "an unparseable quantity counts as absent",
        pod(container("c", resources("lots", "1Gi"), resources("1", "1Gi"))),
        BURSTABLE,
    ),
    ("a spec that is not an object", {"spec": []}, BEST_EFFORT),
    ("containers that are not a list", {"spec": {"containers": {"a": 1}}}, BEST_EFFORT),
    ("a container that is not an object", {"spec": {"containers": ["x", guaranteed()]}}, BURSTABLE),
]


@pytest.mark.parametrize(("name", "the_pod", "expected"), EDGE_CASES, ids=[c[0] for c in EDGE_CASES])
def test_compute_pod_qos_edge_cases(name: str, the_pod: JSON, expected: str) -> None:
    assert qos_class(the_pod) == expected


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        (resources("1", "1Gi"), GUARANTEED),
        (resources("1"), BURSTABLE),
        (resources(memory="1Gi"), BURSTABLE),
    ],
)
def test_limits_only_containers_are_classified_after_defaulting(limits: JSON, expected: str) -> None:
    the_pod = pod({"name": "c", "image": "busybox", "resources": {"limits": limits}})
    default_pod(the_pod)
    assert qos_class(the_pod) == expected


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ({"qosClass": "BestEffort"}, BEST_EFFORT),
        ({"qosClass": ""}, GUARANTEED),
        ({"phase": "Pending"}, GUARANTEED),
        (None, GUARANTEED),
    ],
)
def test_get_pod_qos_prefers_the_recorded_class(status: Any, expected: str) -> None:
    the_pod = pod(guaranteed())
    if status is not None:
        the_pod["status"] = status
    assert get_pod_qos(the_pod) == expected
