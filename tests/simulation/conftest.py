"""A simulated cluster in-process, driven through the official client on a frozen clock."""

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
    """One simulated node, registered with the clock frozen at START (uids seeded)."""
    with FakeAPIServer(seed=7, nodes=1, clock=frozen_clock()) as server:
        yield server


@pytest.fixture
def core(cluster: FakeAPIServer) -> Any:
    return k8s.CoreV1Api(cluster.kubernetes_client())


def events_of(core: Any, name: str, namespace: str = "default") -> list[tuple[str, str, str]]:
    """(type, reason, message) of the events about object `name`, oldest first."""
    listed = core.list_namespaced_event(namespace, field_selector=f"involvedObject.name={name}").items
    listed.sort(key=lambda event: event.metadata.name)
    return [(event.type, event.reason, event.message) for event in listed]
