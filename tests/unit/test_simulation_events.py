"""A simulated component's events while the store's writes are round trips (etcd): written in the order
recorded, and, as upstream's broadcaster, at most 1,000 waiting; those recorded beyond are dropped."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

import pytest

from fakeapi.machinery.clock import Clock
from fakeapi.machinery.types import JSON
from fakeapi.machinery.waiting import wait
from fakeapi.simulation.client import Client
from fakeapi.simulation.events import EventNames, EventRecorder
from fakeapi.simulation.work import Work

POD: JSON = {"kind": "Pod", "namespace": "default", "name": "web", "uid": "uid-web", "apiVersion": "v1"}


class SlowClient:
    """Creates that wait until etcd answers, as the etcd store's round trips do."""

    def __init__(self, clock: Clock) -> None:
        self.api = SimpleNamespace(clock=clock)
        self.etcd_answers = asyncio.Event()
        self.written: list[str] = []

    def create(self, resource: str, namespace: str, body: JSON) -> Any:
        wait(self.etcd_answers.wait())
        self.written.append(body["message"])


async def test_a_recorder_drops_the_events_recorded_while_a_thousand_wait(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    work = Work(clock, storage_waits=True)
    work.start(asyncio.get_running_loop())
    client = SlowClient(clock)
    kubelet = EventRecorder(cast(Client, client), EventNames(clock), work, "kubelet", "node-1")
    for n in range(1005):
        kubelet.normal(POD, "Pulling", f"Pulling image nginx:{n}")
    assert caplog.text.count("Unable to record event: too many queued events, dropped event Pulling") == 5

    client.etcd_answers.set()
    for _ in range(100):
        if len(client.written) == 1000:
            break
        await asyncio.sleep(0.01)
    assert client.written == [f"Pulling image nginx:{n}" for n in range(1000)]  # in order, the first 1,000
    kubelet.normal(POD, "Pulled", "Pulled image nginx:0")  # room again
    await asyncio.sleep(0.05)
    assert client.written[-1] == "Pulled image nginx:0"
    work.stop()
