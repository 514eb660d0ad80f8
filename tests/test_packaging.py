"""The distribution and the compose file (no Docker engine on these machines); the CLI is in test_cli.py."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_compose_runs_fakeapi_serve_on_8080_with_readyz_healthcheck_and_a_durable_store() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    service = compose["services"]["fakeapi"]
    assert service["command"] == ["fakeapi", "serve", "--host", "0.0.0.0", "--port", "8080", "--allowed-hosts",
                                  "fakeapi", "--storage", "sqlite:/data/fakeapi.db"]
    assert service["volumes"] == ["fakeapi-data:/data"] and "fakeapi-data" in compose["volumes"]
    assert any(str(port).endswith(":8080") for port in service["ports"])
    assert "/readyz" in " ".join(service["healthcheck"]["test"])
    assert "fakeapi" in (ROOT / "Dockerfile").read_text()


def test_the_distribution_is_fakeapi_k8s_with_the_fakeapi_package_and_command() -> None:
    """`fakeapi` on the package index is an unrelated project: ours is `fakeapi-k8s`."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "fakeapi-k8s"
    assert project["scripts"] == {"fakeapi": "fakeapi.cli:main"}
    installed = importlib.metadata.distribution("fakeapi-k8s")
    assert [(entry.name, entry.value) for entry in installed.entry_points if entry.group == "console_scripts"] \
        == [("fakeapi", "fakeapi.cli:main")]


@pytest.mark.parametrize("doc", ["README.md", "docs/testing-controllers.md", "Dockerfile"])
def test_docs_install_the_distribution_by_its_name(doc: str) -> None:
    installed = re.findall(r"pip install ([^\n&#]*)", (ROOT / doc).read_text())  # up to `&&` or a comment
    assert installed
    for what in installed:
        assert not re.search(r"(?<![-\w])fakeapi(?![-\w])", what), what
