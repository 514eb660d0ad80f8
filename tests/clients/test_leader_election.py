"""Leader election as client-go's leaderelection does it, through the Python clients, on the server's clock:
get or create the Lease, compare renewTime + leaseDurationSeconds with now, then update with the
resourceVersion that was read, so that losing a race is a 409."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from fakeapi.testing import FakeAPIServer

NAMESPACE = "kube-system"
NAME = "controller-leader"
DURATION = 15  # leaseDurationSeconds
NOON = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)


@dataclass
class Candidate:
    """One replica that wants to lead: client-go's tryAcquireOrRenew over the official client."""

    identity: str
    leases: Any  # CoordinationV1Api
    now: Callable[[], datetime]  # the server's clock: leases expire by it

    def try_acquire_or_renew(self, between: Callable[[], object] = lambda: None) -> bool:
        """True when this candidate leads afterwards. `between` runs after the read, before the write."""
        now = self.now()
        try:
            current = self.leases.read_namespaced_lease(NAME, NAMESPACE)
        except ApiException as error:
            if error.status != 404:
                raise
            return self._create(now)
        spec = current.spec
        expires = spec.renew_time + timedelta(seconds=spec.lease_duration_seconds)
        if spec.holder_identity not in (None, self.identity) and expires > now:
            return False  # another candidate holds a lease that has not expired
        renewing = spec.holder_identity == self.identity
        current.spec = k8s.V1LeaseSpec(
            holder_identity=self.identity, lease_duration_seconds=DURATION, renew_time=now,
            acquire_time=spec.acquire_time if renewing else now,
            lease_transitions=spec.lease_transitions if renewing else (spec.lease_transitions or 0) + 1)
        between()
        try:
            self.leases.replace_namespaced_lease(NAME, NAMESPACE, current)  # with the resourceVersion read
        except ApiException as error:
            if error.status == 409:
                return False  # someone wrote the lease after we read it
            raise
        return True

    def _create(self, now: datetime) -> bool:
        lease = k8s.V1Lease(metadata=k8s.V1ObjectMeta(name=NAME, namespace=NAMESPACE), spec=k8s.V1LeaseSpec(
            holder_identity=self.identity, lease_duration_seconds=DURATION, acquire_time=now, renew_time=now,
            lease_transitions=0))
        try:
            self.leases.create_namespaced_lease(NAMESPACE, lease)
        except ApiException as error:
            if error.status == 409:
                return False  # another candidate created it first
            raise
        return True


def test_a_lease_is_acquired_renewed_and_taken_over_once_it_expires(fakeapi: FakeAPIServer) -> None:
    fakeapi.clock.freeze(NOON)
    leases = k8s.CoordinationV1Api(fakeapi.kubernetes_client())
    a, b = (Candidate(name, leases, fakeapi.clock.now) for name in ("replica-a", "replica-b"))

    assert a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()
    acquired = leases.read_namespaced_lease(NAME, NAMESPACE).spec
    assert (acquired.holder_identity, acquired.lease_transitions) == ("replica-a", 0)
    assert acquired.acquire_time == acquired.renew_time == NOON

    fakeapi.clock.advance(10)
    assert a.try_acquire_or_renew()  # renewed: the same holder, a new renewTime
    renewed = leases.read_namespaced_lease(NAME, NAMESPACE).spec
    assert (renewed.acquire_time, renewed.renew_time, renewed.lease_transitions) == (
        NOON, NOON + timedelta(seconds=10), 0)

    fakeapi.clock.advance(DURATION - 1)
    assert not b.try_acquire_or_renew()  # renewed 14s ago: still a's

    fakeapi.clock.advance(2)  # 16s after the renewal: expired. b reads it, but a renews before b writes
    assert not b.try_acquire_or_renew(between=a.try_acquire_or_renew)
    assert leases.read_namespaced_lease(NAME, NAMESPACE).spec.holder_identity == "replica-a"

    fakeapi.clock.advance(DURATION + 1)  # a stopped renewing
    assert b.try_acquire_or_renew()
    taken = leases.read_namespaced_lease(NAME, NAMESPACE).spec
    now = fakeapi.clock.now()
    assert (taken.holder_identity, taken.lease_transitions, taken.acquire_time, taken.renew_time) == (
        "replica-b", 1, now, now)
    assert not a.try_acquire_or_renew()  # a has lost the lead


async def test_candidates_racing_with_kubernetes_asyncio_get_one_winner(async_fakeapi: FakeAPIServer) -> None:
    """Both create at once, then both take over the same version at once: each time one write wins and the
    other is a 409 (AlreadyExists, then Conflict) naming the lease with its group."""
    from kubernetes_asyncio import client as aio
    from kubernetes_asyncio.client.rest import ApiException as AioApiException

    leases = aio.CoordinationV1Api(async_fakeapi.kubernetes_asyncio_client())

    def spec(holder: str) -> Any:
        return aio.V1LeaseSpec(holder_identity=holder, lease_duration_seconds=DURATION,
                               renew_time=async_fakeapi.clock.now())

    async def outcome(write: Any) -> int:
        try:
            await write
        except AioApiException as error:
            status = json.loads(error.body)
            assert f'leases.coordination.k8s.io "{NAME}"' in status["message"]
            assert status["details"]["group"] == "coordination.k8s.io"
            return int(error.status)
        return 200

    creates = [leases.create_namespaced_lease(NAMESPACE, aio.V1Lease(
        metadata=aio.V1ObjectMeta(name=NAME), spec=spec(holder))) for holder in ("replica-a", "replica-b")]
    assert sorted(await asyncio.gather(*(outcome(write) for write in creates))) == [200, 409]
    seen = await leases.read_namespaced_lease(NAME, NAMESPACE)
    takeovers = []
    for holder in ("replica-a", "replica-b"):
        claim = aio.V1Lease(metadata=aio.V1ObjectMeta(name=NAME, resource_version=seen.metadata.resource_version),
                            spec=spec(holder))
        takeovers.append(leases.replace_namespaced_lease(NAME, NAMESPACE, claim))
    assert sorted(await asyncio.gather(*(outcome(write) for write in takeovers))) == [200, 409]
