"""Events expire an hour after their last write (kube-apiserver's --event-ttl), on the server clock."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from kubernetes import client as k8s
from kubernetes import watch

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from fakeapi.machinery.clock import Clock
from fakeapi.testing import FakeAPIServer
from tests.api.test_events import event


def names(core: Any) -> list[str]:
    return [item.metadata.name for item in core.list_namespaced_event("default").items]


def frozen() -> Clock:
    clock = Clock()
    clock.freeze(datetime(2030, 1, 1, tzinfo=UTC))
    return clock


def test_an_event_expires_an_hour_after_its_last_write() -> None:
    with FakeAPIServer(clock=frozen()) as server:
        core = k8s.CoreV1Api(server.kubernetes_client())
        core.create_namespaced_event("default", event("old.1"))
        server.clock.advance(1800)
        core.create_namespaced_event("default", event("young.1"))
        server.clock.advance(1799)
        core.patch_namespaced_event("old.1", "default", {"count": 2})  # a write renews its hour
        rv = core.list_namespaced_event("default").metadata.resource_version
        server.clock.advance(1801)
        assert names(core) == ["old.1"]
        deleted = watch.Watch().stream(core.list_namespaced_event, "default", resource_version=rv,
                                       timeout_seconds=1)
        assert [(e["type"], e["object"].metadata.name) for e in deleted] == [("DELETED", "young.1")]
        server.clock.advance(1800)
        assert names(core) == []


def test_the_time_to_live_is_a_setting_and_restored_events_live_it_again() -> None:
    with FakeAPIServer(clock=frozen(), config=ServerConfig(event_ttl=60)) as server:
        core = k8s.CoreV1Api(server.kubernetes_client())
        core.create_namespaced_event("default", event("web.1"))
        snapshot = server.snapshot()
        server.clock.advance(60)
        assert names(core) == []
        server.restore(snapshot)
        server.clock.advance(59)
        assert names(core) == ["web.1"]
        server.clock.advance(1)
        assert names(core) == []
        core.create_namespaced_event("default", event("web.2"))
        server.reset()  # (a reset makes the clock live again)
        assert names(core) == []


async def test_no_event_expires_once_the_server_has_stopped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A server's store closes as it stops; an event falling due after that is left alone, quietly (it
    expires after the next start), where a timer writing to the closed store once logged a traceback."""
    app = create_app(ServerConfig(storage_file=tmp_path / "objects.db", event_ttl=0.2))
    async with TestClient(TestServer(app, host="127.0.0.1")) as http:
        response = await http.post("/api/v1/namespaces/default/events", json=event("web.1"))
        assert response.status == 201
    await asyncio.sleep(0.4)  # (the event's hour, here 0.2 s, is over)
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == []
