"""The pytest plugin as users run it: pytest in a subprocess on tiny test files, found by its entry point."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fakeapi.testing.plugin import fakeapi_scope

SYNC_TESTS = '''
import json
import urllib.request

import pytest

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
       "spec": {"containers": [{"name": "app", "image": "nginx"}]}}


def pods(server):
    with urllib.request.urlopen(server.url + "/api/v1/namespaces/default/pods") as response:
        return [p["metadata"]["name"] for p in json.load(response)["items"]]


def test_first_gets_a_running_server(fakeapi):
    assert pods(fakeapi) == []
    fakeapi.seed(POD)
    assert pods(fakeapi) == ["web"]
    record(fakeapi)


def test_second_gets_an_empty_server(fakeapi):
    assert pods(fakeapi) == []
    record(fakeapi)


@pytest.mark.fakeapi(seed=3)
def test_seeded_uid_one(fakeapi):
    record(fakeapi, fakeapi.seed(POD)[0]["metadata"]["uid"])


@pytest.mark.fakeapi(seed=3)
def test_seeded_uid_two(fakeapi):
    record(fakeapi, fakeapi.seed(POD)[0]["metadata"]["uid"])


def record(server, extra=""):
    with open("record.txt", "a") as out:
        out.write(f"{server.port} {extra}\\n")
'''

ASYNC_TESTS = '''
import aiohttp


async def test_async_server_on_the_test_loop(async_fakeapi):
    async with aiohttp.ClientSession() as session:
        async with session.get(async_fakeapi.url + "/readyz") as response:
            assert await response.text() == "ok"
'''

PARAMETRIZED_ASYNC_TESTS = '''
import pytest


@pytest.mark.parametrize("namespace", ["default", "kube-system"])
async def test_each_case_on_the_test_loop(async_fakeapi, namespace):
    assert async_fakeapi.get("namespaces", namespace)["metadata"]["name"] == namespace
'''


SIMULATED_TESTS = '''
import pytest


def nodes(server):
    return [node["metadata"]["name"] for node in server.list("nodes")]


def test_no_nodes_without_the_marker(fakeapi):
    assert nodes(fakeapi) == []


@pytest.mark.fakeapi(nodes=2)
def test_the_marker_asks_for_simulated_nodes(fakeapi):
    assert nodes(fakeapi) == ["node-1", "node-2"]


def test_the_next_test_has_none_again(fakeapi):
    assert nodes(fakeapi) == []
'''


OTHER_PLUGINS = ("asyncio", "aiohttp", "anyio", "hypothesispytest")


def _run_pytest(directory: Path, *args: str, ini: str = "",
                keep: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """pytest on `directory` in a fresh interpreter, with every other installed plugin but `keep` blocked."""
    (directory / "pytest.ini").write_text("[pytest]\n" + ini)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    blocked = [arg for name in OTHER_PLUGINS if name not in keep for arg in ("-p", f"no:{name}")]
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *blocked, *args],
                          cwd=directory, env=env, capture_output=True, text=True, timeout=120)


def _record(directory: Path) -> list[list[str]]:
    return [line.split(" ") for line in (directory / "record.txt").read_text().splitlines()]


def test_the_entry_point_provides_fresh_servers_without_any_other_plugin(tmp_path: Path) -> None:
    (tmp_path / "test_sync.py").write_text(SYNC_TESTS)
    result = _run_pytest(tmp_path, "--trace-config")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 passed" in result.stdout
    assert "fakeapi.testing.plugin" in result.stdout  # registered through the pytest11 entry point
    record = _record(tmp_path)
    assert len({port for port, _uid in record}) == 4  # a fresh server per test
    assert record[2][1] == record[3][1] != ""  # the seed marker makes uids reproducible


def test_a_shared_scope_reuses_one_server_per_module_and_resets_it(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text(SYNC_TESTS)
    (tmp_path / "test_b.py").write_text(SYNC_TESTS)
    (tmp_path / "test_c_async.py").write_text(ASYNC_TESTS)
    result = _run_pytest(tmp_path, "--fakeapi-scope=module", ini="asyncio_mode = auto\n", keep=("asyncio",))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "9 passed" in result.stdout
    record = _record(tmp_path)
    ports = [port for port, _uid in record]
    assert len(set(ports[:4])) == len(set(ports[4:])) == 1 and ports[0] != ports[4]
    assert record[2][1] == record[3][1] != ""  # the reset re-seeds uids for each test


def test_a_shared_server_runs_the_simulated_cluster_a_tests_marker_asks_for(tmp_path: Path) -> None:
    (tmp_path / "test_simulated.py").write_text(SIMULATED_TESTS)
    result = _run_pytest(tmp_path, "--fakeapi-scope=session")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout


TLS_TESTS = '''
import pytest
from kubernetes import client

pytestmark = pytest.mark.fakeapi(tls=True, token="s3cr3t", anonymous_auth=False)


def whoami(server):
    api = client.AuthenticationV1Api(server.kubernetes_client())
    return api.create_self_subject_review(client.V1SelfSubjectReview()).status.user_info.username


def test_https_with_the_token(fakeapi):
    assert fakeapi.url.startswith("https://") and whoami(fakeapi) == "kubernetes-admin"
    record(fakeapi)


@pytest.mark.fakeapi(seed=3)
def test_a_seed_adds_to_the_modules_mark(fakeapi):
    assert fakeapi.url.startswith("https://") and whoami(fakeapi) == "kubernetes-admin"
    record(fakeapi)


@pytest.mark.fakeapi(tls=False)
def test_another_server(fakeapi):
    assert fakeapi.url.startswith("http://")
    record(fakeapi)


def record(server):
    with open("record.txt", "a") as out:
        out.write(f"{server.port} x\\n")
'''


def test_a_shared_server_keeps_the_https_and_credentials_of_its_modules_mark(tmp_path: Path) -> None:
    """(Each test's own server takes its marks too: tests/testing/test_tls.py runs them in-process.)"""
    (tmp_path / "test_tls.py").write_text(TLS_TESTS)
    result = _run_pytest(tmp_path, "--fakeapi-scope=module")
    ports = [port for port, _ in _record(tmp_path)]
    assert result.returncode == 1 and "2 passed, 1 error" in result.stdout, result.stdout
    assert ("this test asks @pytest.mark.fakeapi for {'tls': False, 'token': 's3cr3t', 'anonymous_auth': False}, "
            "but the server it shares (--fakeapi-scope) has {'tls': True, 'token': 's3cr3t', 'anonymous_auth': False}"
            ) in result.stdout
    assert len(ports) == 2 and len(set(ports)) == 1


def test_async_fakeapi_tests_run_with_pytest_asyncio_in_its_default_strict_mode(tmp_path: Path) -> None:
    """No `asyncio_mode` and no `@pytest.mark.asyncio`: the plugin marks the tests that ask for the fixture."""
    (tmp_path / "test_async.py").write_text(ASYNC_TESTS)
    (tmp_path / "test_parametrized.py").write_text(PARAMETRIZED_ASYNC_TESTS)
    result = _run_pytest(tmp_path, keep=("asyncio",))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout


class _Config:
    """Just what fakeapi_scope reads from a pytest.Config."""

    def __init__(self, option: str | None, ini: str) -> None:
        self.option, self.ini = option, ini

    def getoption(self, name: str) -> str | None:
        return self.option

    def getini(self, name: str) -> str:
        return self.ini


@pytest.mark.parametrize(("option", "ini", "scope"), [
    (None, "function", "function"), (None, "session", "session"), ("module", "session", "module")])
def test_the_command_line_scope_wins_over_the_ini_file(option: str | None, ini: str, scope: str) -> None:
    assert fakeapi_scope("fakeapi", _Config(option, ini)) == scope  # type: ignore[arg-type]


def test_an_unknown_ini_scope_is_a_usage_error() -> None:
    message = "fakeapi_scope must be one of function, module, session, not 'class'"
    with pytest.raises(pytest.UsageError, match=message):
        fakeapi_scope("fakeapi", _Config(None, "class"))  # type: ignore[arg-type]
