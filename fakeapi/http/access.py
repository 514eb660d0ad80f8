"""Who may ask: the Host names a server answers, and the control API's rule against web pages.

Both keep web pages out. A page a developer opens can make the browser send requests to 127.0.0.1:
"simple" ones (a POST with a text/plain or form body and no custom header) go out without a CORS
preflight, and DNS rebinding (a name of the page's own that turns into 127.0.0.1) lets it read the answers.
fakeapi answers no CORS preflight, so a page can neither add a custom header nor read an answer from
another site. Two rules close what is left:

- a server listening on loopback answers only Host names that name loopback (localhost, 127.0.0.1,
  [::1], any port) or that `--allowed-hosts` lists, which ends rebinding (kube-apiserver checks no Host:
  its requests are authenticated, which no page can be);
- a control API request that changes state must carry `X-Fakeapi-Control` and a JSON (or, for seed,
  YAML) body, which no page can send to another site without a preflight.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable

from aiohttp import web

from fakeapi.config import ServerConfig
from fakeapi.http.bodies import media_type
from fakeapi.http.requestlog import CONTROL_PREFIX
from fakeapi.machinery.errors import Forbidden, UnsupportedMediaType

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
CONTROL_HEADER = "X-Fakeapi-Control"
CONTROL_BODY_TYPES = ("application/json", "application/yaml")  # neither can be sent cross-site unasked
_CHANGES_STATE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


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
    """The check of the rules in force on a server (None when neither is); it raises a StatusError."""
    extra_names, control_api = config.allowed_hosts, config.control_api
    if extra_names is None and not control_api:
        return None
    answered = LOOPBACK_NAMES | extra_names if extra_names is not None else None

    def check(request: web.Request) -> None:
        if answered is not None:
            _check_host(request, answered)
        if control_api and request.method in _CHANGES_STATE and request.path.startswith(CONTROL_PREFIX):
            _check_control_request(request)

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


def _check_control_request(request: web.Request) -> None:
    if CONTROL_HEADER not in request.headers:
        raise Forbidden(f"control API requests that change state must carry the header {CONTROL_HEADER}: 1 "
                        f"(web pages cannot send it to another site)")
    if request.body_exists and media_type(request) not in CONTROL_BODY_TYPES:
        sent = media_type(request) or "no Content-Type"
        raise UnsupportedMediaType(f"the control API takes application/json bodies (seed also takes "
                                   f"application/yaml), not {sent}")
