"""The simulated cluster rides out a storage failure: while the file refuses writes the API answers reads and
says why writes fail, every component keeps trying on the server clock (no timer, step or loop is lost),
and once the file takes writes again the cluster carries on as if nothing happened."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from fakeapi.config import ServerConfig
from fakeapi.storage.sqlite import SqliteJournal
from fakeapi.testing import FakeAPIServer
from tests import builders
from tests.simulation.conftest import START, frozen_clock


@pytest.fixture
def durable(tmp_path: Path) -> Iterator[FakeAPIServer]:
    config = ServerConfig(storage_file=tmp_path / "fakeapi.db", event_ttl=120)
    with FakeAPIServer(seed=5, nodes=1, clock=frozen_clock(), config=config) as server:
        yield server


def read_only(server: FakeAPIServer, refuse: bool) -> None:
    """The storage file refuses writes (or takes them again), as a file system gone read-only would."""
    journal = server.api.store._journal
    assert isinstance(journal, SqliteJournal)
    server._call(lambda: journal._db.execute(f"PRAGMA query_only = {int(refuse)}"))


def ready(core: Any) -> str:
    return next(c.status for c in core.read_node("node-1").status.conditions if c.type == "Ready")


def test_the_simulated_cluster_rides_out_a_read_only_storage_file(durable: FakeAPIServer,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    core = k8s.CoreV1Api(durable.kubernetes_client())
    leases = k8s.CoordinationV1Api(durable.kubernetes_client())
    core.create_namespaced_pod("default", builders.pod("before", image="nginx:1.27"))
    durable.clock.advance(2)
    assert core.read_namespaced_pod("before", "default").status.phase == "Running"
    events_before = {event.metadata.name for event in core.list_namespaced_event("default").items
                     if event.involved_object.name == "before"}  # (the node's are written again on its changes)
    assert len(events_before) >= 4  # Scheduled, Pulling, Pulled, Created, Started

    read_only(durable, True)
    with pytest.raises(ApiException) as refused:
        core.create_namespaced_pod("default", builders.pod("during", image="nginx:1.27"))
    assert refused.value.status == 500
    assert f"the storage file {durable.config.storage_file} is read-only" in refused.value.body
    assert core.read_namespaced_pod("before", "default").status.phase == "Running"  # reads are answered
    lease_writes = len([entry for entry in durable.requests if entry.resource == "leases"])
    durable.clock.advance(180)  # the events' time to live, lease renewals, monitor passes: all refused
    failed = [entry.status for entry in durable.requests if entry.resource == "leases"][lease_writes:]
    assert len(failed) > 5 and set(failed) == {500}  # the kubelet kept trying, with back-off

    read_only(durable, False)
    durable.clock.advance(120)  # the longest back-off, then a few more rounds
    assert ready(core) == "True"
    renewed = leases.read_namespaced_lease("node-1", "kube-node-lease").spec.renew_time
    assert (START + timedelta(seconds=302) - renewed).total_seconds() <= 10  # renewed every 10 s again
    remaining = {event.metadata.name for event in core.list_namespaced_event("default").items}
    assert not events_before & remaining  # expired, once the file took the deletes
    core.create_namespaced_pod("default", builders.pod("after", image="nginx:1.27"))
    durable.clock.advance(2)
    assert core.read_namespaced_pod("after", "default").status.phase == "Running"
    assert "Traceback" not in caplog.text  # one line each: the failure says what it is
