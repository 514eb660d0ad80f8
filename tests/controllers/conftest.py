"""The controllers of the simulated cluster, driven through the official client (over HTTP) on a frozen clock:
every test sees the same objects, names and events each run."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.machinery.clock import Clock
from fakeapi.testing import FakeAPIServer

START = datetime(2030, 6, 1, 12, 0, 0, tzinfo=UTC)


def frozen_clock() -> Clock:
    clock = Clock()
    clock.freeze(START)
    return clock


@pytest.fixture
def cluster() -> Iterator[FakeAPIServer]:
    """One simulated node and every controller, registered with the clock frozen at START (uids seeded)."""
    with FakeAPIServer(seed=7, nodes=1, clock=frozen_clock()) as server:
        yield server


@pytest.fixture
def api(cluster: FakeAPIServer) -> Any:
    return cluster.kubernetes_client()


@pytest.fixture
def core(api: Any) -> Any:
    return k8s.CoreV1Api(api)


def events_of(core: Any, name: str, namespace: str = "default") -> list[tuple[str, str, str]]:
    """(type, reason, message) of the events about object `name`, oldest first."""
    listed = core.list_namespaced_event(namespace, field_selector=f"involvedObject.name={name}").items
    listed.sort(key=lambda event: event.metadata.name)
    return [(event.type, event.reason, event.message) for event in listed]


def owner(obj: Any, kind: str, api_version: str = "v1", controller: bool | None = None,
          block: bool | None = None) -> dict[str, Any]:
    """An owner reference to `obj` (a client model)."""
    ref: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "name": obj.metadata.name,
                           "uid": obj.metadata.uid}
    if controller is not None:
        ref["controller"] = controller
    if block is not None:
        ref["blockOwnerDeletion"] = block
    return ref
