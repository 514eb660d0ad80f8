"""`fakeapi serve -v`: one line per answered request on stderr (method, path, status, duration, agent).

An aiohttp access logger: aiohttp calls it once a response is complete, so a watch is logged when it
ends. With the flag off the runner gets no access logger at all and requests pay nothing for it.
"""

from __future__ import annotations

import logging
from typing import TextIO

from aiohttp.abc import AbstractAccessLogger
from aiohttp.web import BaseRequest, StreamResponse


class RequestLine(AbstractAccessLogger):
    """`GET /api/v1/pods?limit=500 200 1.3ms "kubectl/v1.32.4 (linux/amd64) kubernetes/..."`."""

    def log(self, request: BaseRequest, response: StreamResponse, time: float) -> None:
        agent = request.headers.get("User-Agent", "-")
        self.logger.info('%s %s %d %.1fms "%s"', request.method, request.raw_path, response.status,
                         time * 1000, agent)


def stream_logger(stream: TextIO) -> logging.Logger:
    """A logger of its own that writes bare lines to `stream` (not registered with `logging`, so the
    process's logging configuration neither sees nor changes it)."""
    logger = logging.Logger("fakeapi.access", logging.INFO)
    logger.addHandler(logging.StreamHandler(stream))
    return logger
