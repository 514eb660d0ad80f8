"""AppKeys: every piece of server state lives on the aiohttp app under one of these."""

from __future__ import annotations

from typing import Protocol

from aiohttp import web

from fakeapi.cluster import Api
from fakeapi.config import ServerConfig
from fakeapi.http.faults import Faults
from fakeapi.http.limits import Deadlines, InFlight
from fakeapi.http.requestlog import RequestLog
from fakeapi.http.watchstream import WatchWriter
from fakeapi.kinds.kind import ResourceInfo
from fakeapi.processes.containers import Containers
from fakeapi.storage.watch import WatchHub

api_key = web.AppKey("api", Api)
config_key = web.AppKey("config", ServerConfig)
watch_hub_key = web.AppKey("watch_hub", WatchHub)
watch_writer_key = web.AppKey("watch_writer", WatchWriter)
faults_key = web.AppKey("faults", Faults)  # fault rules and the faults they fired
request_log_key = web.AppKey("request_log", RequestLog)  # what clients sent, and what they got
inflight_key = web.AppKey("inflight", InFlight)  # the requests being handled, against their limits
deadlines_key = web.AppKey("deadlines", Deadlines)  # when each request being handled must be done
# the resources only ever created, never stored (reviews, bindings): served beside the kinds
create_only_key = web.AppKey("create_only", list[ResourceInfo])
containers_key = web.AppKey("containers", Containers)  # what runs in containers: exec, files, port targets


class StateFollower(Protocol):
    """Something that keeps state derived from the stored objects (the simulated cluster): told when a
    reset or a snapshot restore replaced them all at once, which no change event announces."""

    def after_reset(self) -> None: ...

    def after_restore(self) -> None: ...


state_followers_key = web.AppKey("state_followers", list[StateFollower])


class Kubelets(Protocol):
    """The simulated kubelets, to stop and start again (KeyError for a node no kubelet runs)."""

    def fail_node(self, name: str) -> None: ...

    def recover_node(self, name: str) -> None: ...


kubelets_key = web.AppKey("kubelets", Kubelets)
