"""Who may ask: the Host names a server answers.

A web page a developer opens can make the browser send requests to 127.0.0.1, and DNS rebinding (a
name of the page's own that turns into 127.0.0.1) lets it read the answers. fakeapi answers no CORS
preflight, so a page cannot read an answer from another site; rebinding makes it the same site. So a
server listening on loopback answers only Host names that name loopback (localhost, 127.0.0.1, [::1],
any port) or that `--allowed-hosts` lists, which ends rebinding (kube-apiserver checks no Host: its
requests are authenticated, which no page can be).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable

from aiohttp import web

from fakeapi.config import ServerConfig
from fakeapi.machinery.errors import Forbidden

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback(address: str) -> bool:
    """Whether a bind address (or a Host name) is this machine only: localhost, 127.0.0.0/8 or ::1."""
    name = address.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def answered_hosts(bind_host: str, allowed: Iterable[str] | None) -> frozenset[str] | None:
    """The Host names a server bound to `bind_host` answers besides loopback ones; None answers every name.
    Loopback binds check names; other binds check them once names are given (`--allowed-hosts`)."""
    names = frozenset(host_name(name) for name in allowed or ())
    return names if names or is_loopback(bind_host) else None


def host_name(host: str) -> str:
    """The name of a Host header without its port: `[::1]:8080` -> `::1`, `LocalHost:80` -> `localhost`."""
    if host.startswith("["):
        end = host.find("]")
        return host[1:end].lower() if end > 0 else host.lower()
    if host.count(":") > 1:  # an IPv6 address given without brackets (as --allowed-hosts may)
        return host.lower()
    return host.partition(":")[0].lower()


def access_check(config: ServerConfig) -> Callable[[web.Request], None] | None:
    """The check of the rules in force on a server (None when none is); it raises a StatusError."""
    extra_names = config.allowed_hosts
    if extra_names is None:
        return None
    answered = LOOPBACK_NAMES | extra_names

    def check(request: web.Request) -> None:
        _check_host(request, answered)

    return check


def _check_host(request: web.Request, answered: frozenset[str]) -> None:
    host = request.headers.get("Host")
    if not host:  # HTTP/1.0 clients may send none; browsers always do
        return
    name = host_name(host)
    if name in answered or is_loopback(name):
        return
    raise Forbidden(f'host "{host}" is not allowed: this server answers only localhost, 127.0.0.1, [::1] and the '
                    f"names given to --allowed-hosts, to keep web pages out; to allow this name, start it "
                    f"with --allowed-hosts={name}")
