"""The distribution and the compose file (no Docker engine on these machines); the CLI is in test_cli.py."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_compose_runs_fakeapi_serve_on_8080_with_readyz_healthcheck() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    service = compose["services"]["fakeapi"]
    assert service["command"] == ["fakeapi", "serve", "--host", "0.0.0.0", "--port", "8080"]
    assert any(str(port).endswith(":8080") for port in service["ports"])
    assert "/readyz" in " ".join(service["healthcheck"]["test"])
    assert "fakeapi" in (ROOT / "Dockerfile").read_text()
