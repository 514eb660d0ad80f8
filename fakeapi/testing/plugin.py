"""The pytest plugin (entry point `pytest11`): fixtures `fakeapi` and `async_fakeapi`.

Each test gets a fresh, empty server by default. To share one server per module or per run, reset
between tests, choose a scope with `--fakeapi-scope=module|session` or the ini option
`fakeapi_scope = module`. Mark a test `@pytest.mark.fakeapi(seed=N)` for deterministic uids and names,
`@pytest.mark.fakeapi(nodes=N)` for a simulated cluster of N nodes that runs the test's pods, and
with FakeAPIServer's `tls=True`, `token="..."`, `user=UserInfo(...)` or `anonymous_auth=False` for
https and credentials; a test's marks add to its module's (`pytestmark`). A shared server takes the
https and credential options from the module's mark, and a test sharing it cannot ask for others.

`fakeapi` is thread-backed (for blocking clients like `kubernetes`); `async_fakeapi` serves on the
test's event loop and needs pytest-asyncio (with a shared scope it is the shared thread-backed server).
An async test that asks for `async_fakeapi` runs on pytest-asyncio's loop whatever its `asyncio_mode`.
Nothing heavy is imported until a fixture is used, so installing fakeapi costs other test runs nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Generator, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from fakeapi.config import ServerConfig
    from fakeapi.testing.server import FakeAPIServer

SCOPES = ("function", "module", "session")
CONFIG_OPTIONS = ("seed", "nodes", "simulate", "node_capacity", "node_labels", "controllers")  # a reset applies these
SERVER_OPTIONS = ("tls", "token", "user", "anonymous_auth")  # and not these
_shared_options = pytest.StashKey[dict[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fakeapi")
    group.addoption("--fakeapi-scope", choices=SCOPES, default=None,
                    help="share one fakeapi server per function (default), module or session; "
                         "a shared server is reset before each test")
    parser.addini("fakeapi_scope", "default scope of the fakeapi server: function, module or session",
                  default="function")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fakeapi(seed=None, nodes=None, simulate=None, node_capacity=None, "
                                       "node_labels=None, controllers=None, tls=False, token=None, user=None, "
                                       "anonymous_auth=None, authorization_mode=None): "
                                       "options of the test's fakeapi server")


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> Generator[None, Any, Any]:
    """Mark `asyncio` the async tests that ask for `async_fakeapi`, so that pytest-asyncio's default strict
    mode runs them too. trylast: this wrapper runs inside pytest-asyncio's, which reads the mark after."""
    collected = yield
    if collected and inspect.iscoroutinefunction(obj) and collector.config.pluginmanager.hasplugin("asyncio"):
        for item in collected if isinstance(collected, list) else [collected]:
            if isinstance(item, pytest.Function) and "async_fakeapi" in item.fixturenames \
                    and item.get_closest_marker("asyncio") is None:
                item.add_marker("asyncio")
    return collected


def fakeapi_scope(fixture_name: str, config: pytest.Config) -> str:
    scope = config.getoption("--fakeapi-scope") or config.getini("fakeapi_scope") or "function"
    if scope not in SCOPES:
        raise pytest.UsageError(f"fakeapi_scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    return str(scope)


def _options(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The options of the `fakeapi` marks of the requesting node and its parents, the closest winning."""
    options: dict[str, Any] = {}
    for marker in reversed(list(request.node.iter_markers("fakeapi"))):
        options.update(marker.kwargs)
    unknown = sorted(set(options) - {*CONFIG_OPTIONS, *SERVER_OPTIONS})
    if unknown:
        pytest.fail(f"@pytest.mark.fakeapi takes {', '.join((*CONFIG_OPTIONS, *SERVER_OPTIONS))}, not "
                    f"{', '.join(unknown)}", pytrace=False)
    return options


def _config(request: pytest.FixtureRequest) -> ServerConfig:
    """The server the test's `fakeapi` marks ask for: a seed, a simulated cluster."""
    from fakeapi.config import ServerConfig
    from fakeapi.testing.server import simulation_config

    options = _options(request)
    config = ServerConfig(seed=options.get("seed"))
    if any(options.get(name) is not None for name in ("nodes", "simulate", "controllers")):
        from dataclasses import replace

        simulation = simulation_config(options.get("nodes"), options.get("simulate"), options.get("node_capacity"),
                                       options.get("node_labels"), options.get("controllers"))
        config = replace(config, simulation=simulation)
    return config


def _server_options(request: pytest.FixtureRequest) -> dict[str, Any]:
    return {key: value for key, value in _options(request).items() if key in SERVER_OPTIONS}


def _new_server(request: pytest.FixtureRequest) -> FakeAPIServer:
    from fakeapi.testing.server import FakeAPIServer

    return FakeAPIServer(config=_config(request), **_server_options(request))


@pytest.fixture(scope=fakeapi_scope)  # type: ignore[arg-type]  # pytest accepts a callable scope
def fakeapi_shared_server(request: pytest.FixtureRequest) -> Iterator[FakeAPIServer]:
    """The thread-backed server behind `fakeapi`, living as long as `--fakeapi-scope` says."""
    request.config.stash[_shared_options] = _server_options(request)
    with _new_server(request) as server:
        yield server


def _fresh_for_test(server: FakeAPIServer, request: pytest.FixtureRequest) -> None:
    """A shared server starts each test as a fresh one would (a test's marker applies too)."""
    if fakeapi_scope("fakeapi", request.config) == "function":
        return
    shared, asked = request.config.stash[_shared_options], _server_options(request)
    if asked != shared:
        pytest.fail(f"this test asks @pytest.mark.fakeapi for {asked or 'no options'}, but the server it shares "
                    f"(--fakeapi-scope) has {shared or 'none'}: mark the module instead, or give the test a server "
                    f"of its own (fakeapi_scope = function)", pytrace=False)
    from dataclasses import replace

    server.config = replace(_config(request), authentication=server.config.authentication)
    server.reset()


@pytest.fixture
def fakeapi(fakeapi_shared_server: FakeAPIServer, request: pytest.FixtureRequest) -> FakeAPIServer:
    """A running, empty fakeapi server in a background thread: `fakeapi.url`, `fakeapi.kubeconfig`,
    `fakeapi.kubernetes_client()`, `fakeapi.seed(...)`, `fakeapi.inject(...)`, `fakeapi.clock`..."""
    _fresh_for_test(fakeapi_shared_server, request)
    return fakeapi_shared_server


def _async_fakeapi_fixture() -> Any:
    """`async_fakeapi` needs pytest-asyncio; without it, asking for the fixture says so."""
    try:
        import pytest_asyncio
    except ImportError:  # pragma: no cover - exercised where pytest-asyncio is absent
        def needs_pytest_asyncio() -> None:
            pytest.fail("the async_fakeapi fixture needs pytest-asyncio: pip install pytest-asyncio")

        return pytest.fixture(name="async_fakeapi")(needs_pytest_asyncio)

    @pytest_asyncio.fixture
    async def async_fakeapi(request: pytest.FixtureRequest) -> AsyncIterator[FakeAPIServer]:
        """A running, empty fakeapi server on the test's event loop (for asyncio clients); with a shared
        `--fakeapi-scope` it is the shared thread-backed server, reset for this test."""
        if fakeapi_scope("async_fakeapi", request.config) != "function":
            server: FakeAPIServer = request.getfixturevalue("fakeapi_shared_server")
            _fresh_for_test(server, request)
            yield server
            return
        async with _new_server(request) as server:
            yield server

    return async_fakeapi


async_fakeapi = _async_fakeapi_fixture()
