"""Server settings that the CLI and the in-process test server pass to create_app()."""

from __future__ import annotations

from dataclasses import dataclass, field

from fakeapi.http.requestlog import DEFAULT_REQUEST_LOG, DEFAULT_REQUEST_LOG_BYTES
from fakeapi.machinery.limits import MAX_BODY_BYTES
from fakeapi.storage.store import DEFAULT_HISTORY


@dataclass(frozen=True)
class ServerConfig:
    watch_history: int = DEFAULT_HISTORY  # change events kept for watches that resume from a version
    watch_history_age: float | None = None  # also forget changes older than this many seconds (None: never)
    bookmark_interval: float = 60.0  # seconds between BOOKMARK events (upstream: about a minute)
    seed: int | None = None  # seeds uids and generated names, for reproducible runs
    max_body_bytes: int = MAX_BODY_BYTES  # upstream's request body limit (3 MiB)
    request_log: int = DEFAULT_REQUEST_LOG  # requests kept in the request log (0: record nothing)
    request_log_bytes: int = DEFAULT_REQUEST_LOG_BYTES  # and the bytes it may hold (bodies are cut at 64 KiB)
    # admission plugins turned off, by upstream name (kube-apiserver's --disable-admission-plugins)
    disabled_admission_plugins: frozenset[str] = field(default_factory=frozenset)
