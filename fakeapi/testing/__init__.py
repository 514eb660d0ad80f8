"""fakeapi as a test backend: `FakeAPIServer` in-process (the pytest plugin's fixtures are built on it)."""

from __future__ import annotations

from fakeapi.http.control import Snapshot
from fakeapi.http.faults import FaultRule, FiredFault
from fakeapi.http.requestlog import RecordedRequest
from fakeapi.machinery.errors import Conflict, NotFound, StatusError
from fakeapi.machinery.users import UserInfo
from fakeapi.testing.server import FakeAPIServer, ServerClock, SimulatedNode

__all__ = [
    "Conflict",
    "FakeAPIServer",
    "FaultRule",
    "FiredFault",
    "NotFound",
    "RecordedRequest",
    "ServerClock",
    "SimulatedNode",
    "Snapshot",
    "StatusError",
    "UserInfo",
]
