"""Compacting etcd's history every `--etcd-compaction-interval`, as kube-apiserver's compactor does.

Each server runs one; they agree through etcd which of them compacts in each interval: a transaction
bumps the version of the key `compact_rev_key` only if it is still the version this server saw at the
last interval (another server that got there first wins it, and this one just learns the new version).
The winner compacts to the revision it saw one interval earlier, so etcd keeps at least an interval of
history: a watch or a list at a revision older than that gets 410 Gone.
"""

from __future__ import annotations

import logging
import threading

from fakeapi.storage.etcd.client import EtcdClient, EtcdCompacted, EtcdError, EtcdUnavailable

log = logging.getLogger("fakeapi.storage")

COMPACT_REV_KEY = "compact_rev_key"


class Compactor:
    def __init__(self, client: EtcdClient, interval: float) -> None:
        self._client = client
        self.interval = interval
        self._stopping = threading.Event()
        self._seen_version = 0  # of compact_rev_key, at the last interval
        self._last_revision = 0  # etcd's revision at the last interval (0: none yet, nothing to compact)
        self._thread = threading.Thread(target=self._run, name="fakeapi-etcd-compactor", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._client.close()

    def _run(self) -> None:
        while not self._stopping.wait(self.interval):
            try:
                self.compact_once()
            except (EtcdUnavailable, EtcdError, EtcdCompacted) as error:
                log.warning("fakeapi: compacting etcd failed (%s); trying again in %gs", error, self.interval)

    def compact_once(self) -> int | None:
        """One interval: returns the revision compacted to, or None (another server's turn, or the first)."""
        result = self._client.put_if_version(COMPACT_REV_KEY, str(self._last_revision).encode(), self._seen_version)
        compact_to = self._last_revision
        self._last_revision = result.revision
        if not result.succeeded:
            self._seen_version = result.current.version if result.current is not None else 0
            return None
        self._seen_version += 1
        if compact_to == 0:
            return None  # (nothing at the first interval, as upstream)
        self._client.compact(compact_to)
        log.info("fakeapi: compacted etcd to revision %d", compact_to)
        return compact_to
