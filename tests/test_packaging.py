"""The CLI, the kubeconfig it writes, and the compose file (no Docker engine on these machines)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
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


def test_serve_prints_url_writes_kubeconfig_and_stops_on_sigterm(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    process = subprocess.Popen(
        [sys.executable, "-m", "fakeapi", "serve", "--port", "0", "--kubeconfig", str(kubeconfig)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = line.strip().rsplit(" ", 1)[-1]
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "/readyz", timeout=5) as response:
            assert response.read() == b"ok"
        config = yaml.safe_load(kubeconfig.read_text())
        assert config["clusters"][0]["cluster"]["server"] == url
        assert config["current-context"] == config["contexts"][0]["name"]
        from kubernetes import client
        from kubernetes import config as kube_config

        api_client = kube_config.new_client_from_config(str(kubeconfig))
        namespaces = client.CoreV1Api(api_client).list_namespace()
        assert "default" in [n.metadata.name for n in namespaces.items]
        api_client.close()
    finally:
        os.kill(process.pid, signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        assert process.stdout is not None
        process.stdout.close()
