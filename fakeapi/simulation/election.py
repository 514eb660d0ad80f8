"""Leader election for the simulated cluster, when several servers share one store (etcd).

Only one server may run the simulated cluster's components, or every pod would be scheduled and started
once per server. They elect one through a Lease, `kube-system/fakeapi-simulation`, as kube-scheduler and
kube-controller-manager elect theirs (client-go's leaderelection, with their default durations): the
holder renews it every 2 s (the retry period); a candidate tries as often, and takes the lease over once
it has seen no renewal for the lease duration (15 s, on its own clock, as client-go judges by when it
observed the record change, not by the times written in it). A holder that cannot renew within the renew
deadline (10 s) stops its components (upstream's component exits) and becomes a candidate again. A
server that stops releases the lease (upstream's ReleaseOnCancel), so another takes over at once.

Everything runs on the server clock, through the API as a client.
"""

from __future__ import annotations

import logging
import socket
import uuid
from collections.abc import Callable

from fakeapi.machinery.clock import Clock, Timer, rfc3339_micro
from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON
from fakeapi.simulation.client import Client

LEASE_NAMESPACE = "kube-system"
LEASE_NAME = "fakeapi-simulation"
LEASE_DURATION = 15.0  # client-go's defaults for kube-scheduler and kube-controller-manager
RENEW_DEADLINE = 10.0
RETRY_PERIOD = 2.0
GROUP = "coordination.k8s.io"

log = logging.getLogger("fakeapi.simulation")


def identity() -> str:
    """A holder identity as upstream's components make theirs: the host name and a unique suffix."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


class LeaderElector:
    def __init__(self, client: Client, clock: Clock, on_started: Callable[[bool], None],
                 on_stopped: Callable[[], None], holder: str | None = None) -> None:
        """`on_started(first)`: this server leads now (`first`: the lease was new, the cluster starts);
        `on_stopped()`: it leads no more."""
        self.client = client
        self.clock = clock
        self.holder = holder or identity()
        self._on_started = on_started
        self._on_stopped = on_stopped
        self.leading = False
        self._observed: tuple[str, str] | None = None  # (holder, renewTime) of the record last seen
        self._observed_at = 0.0  # when it last changed, on the clock's monotonic scale
        self._renewed_at = 0.0  # when this server last renewed it
        self._timer: Timer | None = None
        self._first = False  # the last round created the lease

    def start(self) -> None:
        if self._timer is None:
            self._timer = self.clock.call_later(0, self._tick)

    def stop(self) -> None:
        """Stop electing; a leader releases the lease, so another server takes over at once."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.leading:
            self.leading = False
            self._on_stopped()
            self._release()

    # ---- one round, every retry period

    def _tick(self) -> None:
        self._timer = self.clock.call_later(RETRY_PERIOD, self._tick)
        now = self.clock.monotonic()
        try:
            acquired = self._try_acquire_or_renew(now)
        except StatusError as error:
            acquired = False
            log.debug("leader election: %s", error)
        if acquired:
            self._renewed_at = now
            if not self.leading:
                self.leading = True
                log.warning("fakeapi: this server (%s) leads the simulated cluster now", self.holder)
                self._on_started(self._first)
        elif self.leading and now - self._renewed_at > RENEW_DEADLINE:
            self.leading = False
            log.error("fakeapi: this server could not renew the lease of the simulated cluster for %gs; its "
                      "components stop", RENEW_DEADLINE)
            self._on_stopped()

    def _try_acquire_or_renew(self, now: float) -> bool:
        self._first = False
        lease = self.client.api.registry("leases", GROUP).find(LEASE_NAMESPACE, LEASE_NAME)
        stamp = rfc3339_micro(self.clock.now())
        if lease is None:
            self.client.create("leases", LEASE_NAMESPACE, {
                "apiVersion": f"{GROUP}/v1", "kind": "Lease", "metadata": {"name": LEASE_NAME},
                "spec": self._spec(stamp, stamp, 0)}, group=GROUP)
            self._first = True
            return True
        spec: JSON = lease.get("spec") or {}
        holder = spec.get("holderIdentity") or ""
        record = (holder, str(spec.get("renewTime") or ""))
        if record != self._observed:
            self._observed, self._observed_at = record, now
        duration = float(spec.get("leaseDurationSeconds") or LEASE_DURATION)
        if holder and holder != self.holder and now < self._observed_at + duration:
            return False  # another server holds it, and renews it
        transitions = int(spec.get("leaseTransitions") or 0)
        acquired = spec.get("acquireTime") or stamp
        if holder != self.holder:
            transitions, acquired = transitions + 1, stamp
        lease["spec"] = self._spec(acquired, stamp, transitions)
        updated = self.client.update("leases", LEASE_NAMESPACE, LEASE_NAME, lease, group=GROUP)
        self._observed, self._observed_at = (self.holder, updated["spec"]["renewTime"]), now
        return True

    def _spec(self, acquired: str, renewed: str, transitions: int) -> JSON:
        return {"holderIdentity": self.holder, "leaseDurationSeconds": int(LEASE_DURATION),
                "acquireTime": acquired, "renewTime": renewed, "leaseTransitions": transitions}

    def _release(self) -> None:
        try:
            lease = self.client.api.registry("leases", GROUP).find(LEASE_NAMESPACE, LEASE_NAME)
            if lease is None or (lease.get("spec") or {}).get("holderIdentity") != self.holder:
                return
            stamp = rfc3339_micro(self.clock.now())
            lease["spec"] = {**lease["spec"], "holderIdentity": "", "leaseDurationSeconds": 1, "renewTime": stamp,
                             "acquireTime": stamp}
            self.client.update("leases", LEASE_NAMESPACE, LEASE_NAME, lease, group=GROUP)
        except StatusError as error:
            log.warning("fakeapi: could not release the lease of the simulated cluster (%s)", error)
