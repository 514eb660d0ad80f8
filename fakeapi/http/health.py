"""/healthz, /livez and /readyz as upstream's healthz package answers them.

Each endpoint runs its checks: `ok` when they pass, the list of checks with `?verbose`, a check left
out with `?exclude=NAME`; each check also answers on its own path (`/readyz/ping`). fakeapi has the
checks every generic apiserver installs (`ping`, `log`) and, on /readyz, `shutdown`; all of them pass
while the server answers (it stops listening before it shuts down).
"""

from __future__ import annotations

from aiohttp import web
from aiohttp.typedefs import Handler

from fakeapi.http.guard import GuardedRouter

ENDPOINTS: dict[str, tuple[str, ...]] = {
    "/healthz": ("ping", "log"),
    "/livez": ("ping", "log"),
    "/readyz": ("ping", "log", "shutdown"),
}
_ROOT_HEADERS = {"Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff"}
_CHECK_HEADERS = {"Content-Type": "text/plain; charset=utf-8"}


def health_paths() -> list[str]:
    """Every path the health endpoints serve, as GET / lists them."""
    return [path for endpoint, checks in ENDPOINTS.items()
            for path in (endpoint, *(f"{endpoint}/{check}" for check in checks))]


def _root_handler(name: str, checks: tuple[str, ...]) -> Handler:
    async def handle(request: web.Request) -> web.Response:
        excluded = request.query.getall("exclude", [])
        lines = []
        for check in checks:
            if check in excluded:
                lines.append(f"[+]{check} excluded: ok\n")
            else:
                lines.append(f"[+]{check} ok\n")
        unknown = sorted(set(excluded) - set(checks))
        if unknown:
            names = ",".join(f'"{check}"' for check in unknown)
            lines.append(f"warn: some health checks cannot be excluded: no matches for {names}\n")
        if "verbose" not in request.query:
            return web.Response(body=b"ok", headers=_ROOT_HEADERS)
        return web.Response(body=("".join(lines) + f"{name} check passed\n").encode(), headers=_ROOT_HEADERS)

    return handle


async def _check(request: web.Request) -> web.Response:
    return web.Response(body=b"ok", headers=_CHECK_HEADERS)


def setup_health_routes(router: GuardedRouter) -> None:
    for endpoint, checks in ENDPOINTS.items():
        router.add_get(endpoint, _root_handler(endpoint.lstrip("/"), checks))
        for check in checks:
            router.add_get(f"{endpoint}/{check}", _check)
