"""Fixtures of the etcd tests: a real etcd server (skipped, with the reason, only when no etcd binary is
found on this machine), and a fresh key prefix per test so tests share one etcd without seeing each
other's objects."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeapi.storage.etcd.config import EtcdConfig, parse_endpoints
from tests.etcdserver import SKIP_REASON, EtcdServer, etcd_binary

_prefixes = itertools.count()


def _binary() -> str:
    binary = etcd_binary()
    if binary is None:
        pytest.skip(SKIP_REASON)
    return binary


@pytest.fixture(scope="session")
def etcd_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EtcdServer]:
    """One etcd for the session (tests keep to their own prefix)."""
    server = EtcdServer(tmp_path_factory.mktemp("etcd") / "data", _binary())
    server.start()
    yield server
    server.stop()


@pytest.fixture
def own_etcd(tmp_path: Path) -> Iterator[EtcdServer]:
    """An etcd of this test's own, which it may stop, kill and start again."""
    server = EtcdServer(tmp_path / "etcd-data", _binary())
    server.start()
    yield server
    server.stop()


@pytest.fixture
def etcd_config(etcd_server: EtcdServer) -> EtcdConfig:
    """Settings of a store on the session's etcd, under a prefix no other test uses."""
    return EtcdConfig(parse_endpoints(etcd_server.url), prefix=f"/test-{next(_prefixes)}/registry",
                      compaction_interval=0)
