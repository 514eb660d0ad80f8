"""Pod Table cells against upstream's printPod: every STATUS branch, READY with sidecars, RESTARTS, wide."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from fakeapi.kinds.pod.table import POD_PRINTER
from fakeapi.machinery.tables.table import table_row
from fakeapi.machinery.types import JSON

NOW = datetime(2026, 12, 2, 10, 30, 0, tzinfo=UTC)


def ago(seconds: int) -> str:
    return (NOW - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def running(ready: bool = True, restarts: int = 0, finished_ago: int | None = None, name: str = "c") -> JSON:
    return _status(name, {"running": {"startedAt": ago(30)}}, ready, restarts, finished_ago)


def waiting(reason: str = "", restarts: int = 0, finished_ago: int | None = None, name: str = "c") -> JSON:
    state: JSON = {"waiting": {"reason": reason} if reason else {}}
    return _status(name, state, False, restarts, finished_ago)


def terminated(reason: str = "", exit_code: int = 0, signal: int = 0, name: str = "c",
               restarts: int = 0, finished_ago: int | None = None) -> JSON:
    done: JSON = {"exitCode": exit_code, "finishedAt": ago(5)}
    if reason:
        done["reason"] = reason
    if signal:
        done["signal"] = signal
    return _status(name, {"terminated": done}, False, restarts, finished_ago)


def _status(name: str, state: JSON, ready: bool, restarts: int, finished_ago: int | None) -> JSON:
    status: JSON = {"name": name, "ready": ready, "restartCount": restarts, "state": state}
    if finished_ago is not None:
        status["lastState"] = {"terminated": {"exitCode": 1, "finishedAt": ago(finished_ago)}}
    return status


def sidecar(status: JSON, started: bool) -> JSON:
    return {**status, "started": started}


def condition(kind: str, value: str = "True", reason: str = "") -> JSON:
    cond: JSON = {"type": kind, "status": value}
    if reason:
        cond["reason"] = reason
    return cond


def pod(phase: str = "Running", containers: list[JSON] | None = None, init: list[JSON] | None = None,
        init_specs: list[JSON] | None = None, n_containers: int = 1, conditions: list[JSON] | None = None,
        **status_extra: Any) -> JSON:
    status: JSON = {"phase": phase, **status_extra}
    if containers is not None:
        status["containerStatuses"] = containers
    if init is not None:
        status["initContainerStatuses"] = init
    if conditions is not None:
        status["conditions"] = conditions
    spec: JSON = {"containers": [{"name": f"c{i}", "image": "busybox"} for i in range(n_containers)]}
    if init_specs is not None:
        spec["initContainers"] = init_specs
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "creationTimestamp": ago(200)},
            "spec": spec, "status": status}


def init_spec(name: str, always: bool = False) -> JSON:
    spec: JSON = {"name": name, "image": "busybox"}
    if always:
        spec["restartPolicy"] = "Always"
    return spec


def terminating(p: JSON, **status_extra: Any) -> JSON:
    p["metadata"]["deletionTimestamp"] = ago(1)
    p["status"].update(status_extra)
    return p


# kubectl-examples/pod-crashloop.json (its status and spec; timestamps as captured)
CRASHLOOP: JSON = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "job-1", "namespace": "kube-system", "labels": {"app": "batch"},
                 "creationTimestamp": "2026-12-02T10:27:45Z"},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]},
    "status": {"phase": "Pending", "containerStatuses": [{
        "name": "main", "image": "busybox", "imageID": "", "ready": False, "restartCount": 3,
        "started": False,
        "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}},
        "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": "2026-12-02T10:27:45Z",
                                     "finishedAt": "2026-12-02T10:27:45Z"}},
    }]},
}

SIDECARS = [init_spec("init"), init_spec("proxy", always=True)]

CASES = [
    ("pending-no-statuses", pod("Pending"), "0/1", "Pending", "0"),
    ("no-phase", {"metadata": {"name": "p"}}, "0/0", "", "0"),
    ("running-ready", pod(containers=[running()]), "1/1", "Running", "0"),
    ("running-not-ready", pod(containers=[running(ready=False)]), "0/1", "Running", "0"),
    ("status-reason-overrides-phase", pod("Failed", reason="Evicted"), "0/1", "Evicted", "0"),
    ("scheduling-gated", pod("Pending", conditions=[condition("PodScheduled", "False", "SchedulingGated")]),
     "0/1", "SchedulingGated", "0"),
    ("container-creating", pod("Pending", containers=[waiting("ContainerCreating")]),
     "0/1", "ContainerCreating", "0"),
    ("waiting-without-reason-keeps-phase", pod("Pending", containers=[waiting()]), "0/1", "Pending", "0"),
    ("crashloop-example", CRASHLOOP, "0/1", "CrashLoopBackOff", "3 (2m15s ago)"),
    ("completed", pod("Succeeded", containers=[terminated("Completed")]), "0/1", "Completed", "0"),
    ("error", pod("Failed", containers=[terminated("Error", 1)]), "0/1", "Error", "0"),
    ("signal-without-reason", pod("Failed", containers=[terminated(exit_code=137, signal=9)]),
     "0/1", "Signal:9", "0"),
    ("exit-code-without-reason", pod("Failed", containers=[terminated(exit_code=2)]),
     "0/1", "ExitCode:2", "0"),
    ("first-container-reason-wins",
     pod("Pending", n_containers=2, containers=[waiting("ImagePullBackOff", name="c0"),
                                                waiting("ErrImagePull", name="c1")]),
     "0/2", "ImagePullBackOff", "0"),
    ("completed-but-running-and-ready",
     pod(n_containers=2, containers=[terminated("Completed", name="c0"), running(name="c1")],
         conditions=[condition("Ready")]),
     "1/2", "Running", "0"),
    ("completed-but-running-not-ready",
     pod(n_containers=2, containers=[terminated("Completed", name="c0"), running(name="c1")],
         conditions=[condition("Ready", "False")]),
     "1/2", "NotReady", "0"),
    ("init-running", pod("Pending", init_specs=[init_spec("a"), init_spec("b")],
                         init=[running(False, name="a")], containers=[waiting("PodInitializing")]),
     "0/1", "Init:0/2", "0"),
    ("init-second-pending",
     pod("Pending", init_specs=[init_spec("a"), init_spec("b")],
         init=[terminated("Completed", name="a"), waiting("PodInitializing", name="b")]),
     "0/1", "Init:1/2", "0"),
    ("init-waiting-reason", pod("Pending", init_specs=[init_spec("a")],
                                init=[waiting("CrashLoopBackOff", restarts=2, finished_ago=10, name="a")]),
     "0/1", "Init:CrashLoopBackOff", "2 (10s ago)"),
    ("init-terminated-reason",
     pod("Failed", init_specs=[init_spec("a")], init=[terminated("Error", 1, name="a")]),
     "0/1", "Init:Error", "0"),
    ("init-signal",
     pod("Failed", init_specs=[init_spec("a")], init=[terminated(exit_code=137, signal=9, name="a")]),
     "0/1", "Init:Signal:9", "0"),
    ("init-exit-code", pod("Failed", init_specs=[init_spec("a")], init=[terminated(exit_code=3, name="a")]),
     "0/1", "Init:ExitCode:3", "0"),
    ("init-failing-but-initialized-shows-containers",
     pod(init_specs=[init_spec("a")], init=[terminated("Error", 1, name="a")],
         containers=[waiting("CrashLoopBackOff", restarts=1, finished_ago=20)],
         conditions=[condition("Initialized")]),
     "0/1", "CrashLoopBackOff", "1 (20s ago)"),
    ("finished-init-restarts-no-longer-count",
     pod(init_specs=[init_spec("a")], init=[terminated("Completed", name="a", restarts=4, finished_ago=50)],
         containers=[running()]),
     "1/1", "Running", "0"),
    ("sidecar-started-counts-ready-and-restarts",
     pod(init_specs=SIDECARS,
         init=[terminated("Completed", name="init", restarts=5, finished_ago=300),
               sidecar(running(name="proxy", restarts=1, finished_ago=400), started=True)],
         containers=[running(restarts=2, finished_ago=90)], conditions=[condition("Initialized")]),
     "2/2", "Running", "3 (90s ago)"),
    ("sidecar-restart-is-the-latest",
     pod(init_specs=SIDECARS,
         init=[terminated("Completed", name="init"),
               sidecar(running(name="proxy", restarts=1, finished_ago=7), started=True)],
         containers=[running(restarts=2, finished_ago=90)]),
     "2/2", "Running", "3 (7s ago)"),
    ("sidecar-started-not-ready",
     pod(init_specs=SIDECARS, init=[terminated("Completed", name="init"),
                                    sidecar(running(False, name="proxy"), started=True)],
         containers=[running()]),
     "1/2", "Running", "0"),
    ("sidecar-not-started-is-initializing",
     pod("Pending", init_specs=SIDECARS, init=[terminated("Completed", name="init"),
                                               sidecar(running(False, name="proxy"), started=False)],
         containers=[waiting("PodInitializing")]),
     "0/2", "Init:1/2", "0"),
    ("restarts-without-finished-at", pod(containers=[running(restarts=4)]), "1/1", "Running", "4"),
    ("restarts-latest-of-several",
     pod(n_containers=2, containers=[running(restarts=1, finished_ago=3600, name="c0"),
                                     running(restarts=1, finished_ago=61, name="c1")]),
     "2/2", "Running", "2 (61s ago)"),
    ("terminating", terminating(pod(containers=[running()])), "1/1", "Terminating", "0"),
    ("terminating-pending", terminating(pod("Pending", containers=[waiting("ContainerCreating")])),
     "0/1", "Terminating", "0"),
    ("deleted-succeeded-keeps-completed",
     terminating(pod("Succeeded", containers=[terminated("Completed")])), "0/1", "Completed", "0"),
    ("deleted-failed-keeps-reason", terminating(pod("Failed", containers=[terminated("Error", 1)])),
     "0/1", "Error", "0"),
    ("node-lost-is-unknown", terminating(pod(containers=[running()]), reason="NodeLost"),
     "1/1", "Unknown", "0"),
]


@pytest.mark.parametrize(("obj", "ready", "status", "restarts"),
                         [pytest.param(*case[1:], id=case[0]) for case in CASES])
def test_pod_ready_status_and_restarts_follow_upstream_printer(obj: JSON, ready: str, status: str,
                                                                restarts: str) -> None:
    cells = table_row(POD_PRINTER, obj, NOW, "None")["cells"]
    assert cells[1:4] == [ready, status, restarts]


def test_crashloop_example_row_in_full() -> None:
    row = table_row(POD_PRINTER, CRASHLOOP, NOW, "None")
    assert row == {"cells": ["job-1", "0/1", "CrashLoopBackOff", "3 (2m15s ago)", "2m15s",
                             "<none>", "<none>", "<none>", "<none>"]}


@pytest.mark.parametrize(
    ("status", "spec", "wide"),
    [
        ({}, {}, ["<none>", "<none>", "<none>", "<none>"]),
        ({"podIP": "10.0.0.9", "podIPs": [{"ip": "10.0.0.9"}, {"ip": "fd00::9"}]}, {"nodeName": "n1"},
         ["10.0.0.9", "n1", "<none>", "<none>"]),
        ({"podIPs": [{"ip": "fd00::9"}], "podIP": "10.0.0.9"}, {}, ["fd00::9", "<none>", "<none>", "<none>"]),
        ({"podIP": "10.0.0.7"}, {}, ["10.0.0.7", "<none>", "<none>", "<none>"]),
        ({"nominatedNodeName": "n2"}, {}, ["<none>", "<none>", "n2", "<none>"]),
        ({"conditions": [condition("gate/a"), condition("gate/b", "False")]},
         {"readinessGates": [{"conditionType": "gate/a"}, {"conditionType": "gate/b"},
                             {"conditionType": "gate/c"}]},
         ["<none>", "<none>", "<none>", "1/3"]),
        ({"conditions": [condition("gate/a")]}, {"readinessGates": [{"conditionType": "gate/a"}]},
         ["<none>", "<none>", "<none>", "1/1"]),
    ],
    ids=["all-none", "first-pod-ip-and-node", "pod-ips-win-over-pod-ip", "pod-ip-fallback", "nominated",
         "gates-counted", "gates-all-true"],
)
def test_wide_cells(status: JSON, spec: JSON, wide: list[str]) -> None:
    obj: JSON = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}], **spec}, "status": status}
    assert table_row(POD_PRINTER, obj, NOW, "None")["cells"][5:] == wide


@pytest.mark.parametrize(
    ("created", "expected"),
    [(None, "<unknown>"), (ago(0), "0s"), (ago(200), "3m20s"), ((NOW + timedelta(seconds=30)).isoformat(),
                                                                "<invalid>"),
     ("2026-12-02T10:29:58.123456789Z", "1s"), ("not a time", "<unknown>")],
    ids=["unset", "now", "minutes", "future", "nanoseconds", "garbage"],
)
def test_age_cell(created: str | None, expected: str) -> None:
    meta: JSON = {"name": "p"}
    if created is not None:
        meta["creationTimestamp"] = created
    assert table_row(POD_PRINTER, {"metadata": meta}, NOW, "None")["cells"][4] == expected


@pytest.mark.parametrize(
    ("phase", "conditions"),
    [
        ("Succeeded", [{"type": "Completed", "status": "True", "reason": "Succeeded",
                        "message": "The pod has completed successfully."}]),
        ("Failed", [{"type": "Completed", "status": "True", "reason": "Failed",
                     "message": "The pod failed."}]),
    ],
)
def test_finished_pods_carry_row_conditions(phase: str, conditions: list[JSON]) -> None:
    row = table_row(POD_PRINTER, pod(phase), NOW, "None")
    assert row["conditions"] == conditions
    row["conditions"][0]["status"] = "mutated"
    assert table_row(POD_PRINTER, pod(phase), NOW, "None")["conditions"] == conditions


@pytest.mark.parametrize("phase", ["Pending", "Running", "Unknown"])
def test_unfinished_pods_have_no_row_conditions(phase: str) -> None:
    assert "conditions" not in table_row(POD_PRINTER, pod(phase), NOW, "None")


def test_naive_now_is_taken_as_utc() -> None:
    naive = NOW.replace(tzinfo=None)
    assert table_row(POD_PRINTER, pod(), naive, "None")["cells"][4] == "3m20s"
