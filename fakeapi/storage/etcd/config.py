"""The settings of an etcd store: `--storage etcd:http://HOST:PORT[,...]` and kube-apiserver's `--etcd-*`
flags."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_PREFIX = "/registry"
DEFAULT_COMPACTION_INTERVAL = 300.0  # kube-apiserver's --etcd-compaction-interval (5m)


class EtcdConfigError(ValueError):
    """A storage URL that cannot be used, in words."""


@dataclass(frozen=True)
class Endpoint:
    scheme: str  # http | https
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


@dataclass(frozen=True)
class EtcdConfig:
    endpoints: tuple[Endpoint, ...]
    prefix: str = DEFAULT_PREFIX  # --etcd-prefix
    ca_file: Path | None = None  # --etcd-cafile: verifies etcd's serving certificate
    cert_file: Path | None = None  # --etcd-certfile and --etcd-keyfile: the client certificate
    key_file: Path | None = None
    compaction_interval: float = DEFAULT_COMPACTION_INTERVAL  # 0: never compact

    def __str__(self) -> str:
        return ",".join(str(endpoint) for endpoint in self.endpoints)


def parse_endpoints(text: str) -> tuple[Endpoint, ...]:
    """`http://127.0.0.1:2379,https://etcd-2:2379` -> endpoints (the port defaults to 2379)."""
    endpoints = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        parts = urlsplit(item)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise EtcdConfigError(f"{item!r} is not an etcd endpoint: give http://HOST:PORT or https://HOST:PORT")
        if parts.path not in ("", "/") or parts.query:
            raise EtcdConfigError(f"{item!r} is not an etcd endpoint: it has a path; give http://HOST:PORT")
        try:
            port = parts.port or 2379
        except ValueError:
            raise EtcdConfigError(f"{item!r} is not an etcd endpoint: its port is not a number") from None
        endpoints.append(Endpoint(parts.scheme, parts.hostname, port))
    if not endpoints:
        raise EtcdConfigError("no etcd endpoint given: give etcd:http://HOST:PORT[,...]")
    return tuple(endpoints)
