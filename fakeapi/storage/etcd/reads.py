"""Consistent reads, batched: one quorum read of etcd's revision at a time, made in a thread of its own.

A read that must reflect every write acknowledged before it arrived needs a quorum read that *starts* after
it arrived. Reads that arrive while one is in flight share the next one, which starts when that one ends:
under load, one round trip to etcd serves many GETs and LISTs, and the event loop never waits for it.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from fakeapi.storage.etcd.client import EtcdClient


class QuorumReads:
    def __init__(self, client: EtcdClient) -> None:
        self._client = client  # used from the executor's one thread only
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fakeapi-etcd-reads")
        self._running: asyncio.Future[int] | None = None
        self._next: asyncio.Future[int] | None = None

    async def revision(self) -> int:
        """etcd's revision, read by a quorum read that started after this call."""
        loop = asyncio.get_running_loop()
        if self._running is None:
            self._running = self._start(loop)
            waited = self._running
        else:
            if self._next is None:
                self._next = loop.create_future()
            waited = self._next
        return await asyncio.shield(waited)

    def _start(self, loop: asyncio.AbstractEventLoop) -> asyncio.Future[int]:
        running = loop.run_in_executor(self._executor, self._client.revision)
        running.add_done_callback(lambda _done: self._finished(loop))
        return running

    def _finished(self, loop: asyncio.AbstractEventLoop) -> None:
        self._running = None
        waiting, self._next = self._next, None
        if waiting is None:
            return
        self._running = running = self._start(loop)

        def settle(done: asyncio.Future[int]) -> None:
            if waiting.done():
                return
            error = done.exception()
            if error is not None:
                waiting.set_exception(error)
            else:
                waiting.set_result(done.result())

        running.add_done_callback(settle)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._client.close()
