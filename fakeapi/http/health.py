"""/healthz, /livez and /readyz as upstream's healthz package answers them.

Each endpoint runs its checks: `ok` when they pass, the list of checks with `?verbose`, a check left
out with `?exclude=NAME`; each check also answers on its own path (`/readyz/ping`). fakeapi has the
checks every generic apiserver installs (`ping`, `log`) and, on /readyz, `shutdown`; all of them pass
while the server answers (it stops listening before it shuts down). A server on etcd also has upstream's
`etcd` and `etcd-readiness` checks on /readyz, which fail while etcd does not answer (a failed check
answers 500 with the list, `[-]etcd failed: reason withheld`, as upstream). /livez and /healthz leave
them out: the server itself is alive, and restarting it would not bring etcd back.
"""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web
from aiohttp.typedefs import Handler

from fakeapi.http.guard import GuardedRouter
from fakeapi.http.keys import api_key

ENDPOINTS: dict[str, tuple[str, ...]] = {
    "/healthz": ("ping", "log"),
    "/livez": ("ping", "log"),
    "/readyz": ("ping", "log", "etcd", "etcd-readiness", "shutdown"),
}
STORAGE_CHECKS = frozenset({"etcd", "etcd-readiness"})  # a server on etcd only
_ROOT_HEADERS = {"Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff"}
_CHECK_HEADERS = {"Content-Type": "text/plain; charset=utf-8"}

Check = Callable[[web.Request], str | None]  # None when it passes, else why not (logged, not answered)


def _storage(request: web.Request) -> str | None:
    return request.app[api_key].store.problem()


CHECKS: dict[str, Check] = {"etcd": _storage, "etcd-readiness": _storage}


def _checks_of(app: web.Application, checks: tuple[str, ...]) -> tuple[str, ...]:
    shared = app[api_key].store.shared
    return tuple(check for check in checks if shared or check not in STORAGE_CHECKS)


def health_paths(shared_storage: bool = False) -> list[str]:
    """Every path the health endpoints serve, as GET / lists them."""
    return [path for endpoint, checks in ENDPOINTS.items()
            for path in (endpoint, *(f"{endpoint}/{check}" for check in checks
                                     if shared_storage or check not in STORAGE_CHECKS))]


def _failed(request: web.Request, check: str) -> bool:
    run = CHECKS.get(check)
    return run is not None and run(request) is not None


def _root_handler(name: str, all_checks: tuple[str, ...]) -> Handler:
    async def handle(request: web.Request) -> web.Response:
        checks = _checks_of(request.app, all_checks)
        excluded = request.query.getall("exclude", [])
        lines = []
        failed = False
        for check in checks:
            if check in excluded:
                lines.append(f"[+]{check} excluded: ok\n")
            elif _failed(request, check):
                failed = True
                lines.append(f"[-]{check} failed: reason withheld\n")
            else:
                lines.append(f"[+]{check} ok\n")
        unknown = sorted(set(excluded) - set(checks))
        if unknown:
            names = ",".join(f'"{check}"' for check in unknown)
            lines.append(f"warn: some health checks cannot be excluded: no matches for {names}\n")
        if failed:
            return web.Response(status=500, body=("".join(lines) + f"{name} check failed\n").encode(),
                                headers=_ROOT_HEADERS)
        if "verbose" not in request.query:
            return web.Response(body=b"ok", headers=_ROOT_HEADERS)
        return web.Response(body=("".join(lines) + f"{name} check passed\n").encode(), headers=_ROOT_HEADERS)

    return handle


def _check_handler(check: str) -> Handler:
    async def handle(request: web.Request) -> web.Response:
        if check in STORAGE_CHECKS and not request.app[api_key].store.shared:
            raise web.HTTPNotFound()
        problem = CHECKS[check](request) if check in CHECKS else None
        if problem is not None:
            return web.Response(status=500, body=b"internal server error: " + problem.encode() + b"\n",
                                headers=_CHECK_HEADERS)
        return web.Response(body=b"ok", headers=_CHECK_HEADERS)

    return handle


def setup_health_routes(router: GuardedRouter) -> None:
    for endpoint, checks in ENDPOINTS.items():
        router.add_get(endpoint, _root_handler(endpoint.lstrip("/"), checks))
        for check in checks:
            router.add_get(f"{endpoint}/{check}", _check_handler(check))
