"""`fakeapi` as a user runs it: a subprocess on 127.0.0.1, its start lines, access log and one-line errors."""

from __future__ import annotations

import base64
import importlib.metadata
import json
import os
import re
import select
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import fakeapi
from fakeapi.cli import main, parser

FAKEAPI = [sys.executable, "-m", "fakeapi"]
SECONDS = 30  # bound on every wait for the process: a start takes about half a second


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """fakeapi with `args`, expected to exit by itself (subprocess.run kills it on timeout)."""
    return subprocess.run([*FAKEAPI, *args], capture_output=True, text=True, timeout=SECONDS)


def read_line(process: subprocess.Popen[str]) -> str:
    """The next line of stdout, read unbuffered so that each wait is bounded by select."""
    assert process.stdout is not None
    line, deadline = b"", time.monotonic() + SECONDS
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"fakeapi printed no whole line in {SECONDS} s: {line!r}"
        byte = os.read(process.stdout.fileno(), 1)
        assert byte, f"fakeapi closed its stdout after {line!r}"
        line += byte
    return line.decode()


def stop(process: subprocess.Popen[str]) -> str:
    """SIGTERM by PID; the exit code must be 0; returns what it wrote to stderr."""
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
    try:
        _, stderr = process.communicate(timeout=SECONDS)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.communicate(timeout=SECONDS)
        raise
    assert process.returncode == 0, stderr
    return stderr


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def test_version_prints_the_installed_version() -> None:
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout == f"fakeapi {fakeapi.__version__}\n"
    assert fakeapi.__version__ == importlib.metadata.version("fakeapi-k8s")


def test_start_lines_name_the_url_and_how_to_use_the_kubeconfig(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "fakeapi kube config"
    process = subprocess.Popen([*FAKEAPI, "serve", "--port", "0", "--kubeconfig", str(kubeconfig)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = read_line(process)
        url = first.removeprefix("fakeapi serving on ").strip()
        assert first == f"fakeapi serving on {url}\n" and url.startswith("http://127.0.0.1:")
        assert read_line(process) == (f"kubeconfig written to {kubeconfig}; use it with: "
                                      f"export KUBECONFIG='{kubeconfig}'\n")
        with urllib.request.urlopen(url + "/readyz", timeout=SECONDS) as response:
            assert response.read() == b"ok"
        config = yaml.safe_load(kubeconfig.read_text())
        assert config["clusters"][0]["cluster"]["server"] == url
        from kubernetes import client
        from kubernetes import config as kube_config

        api_client = kube_config.new_client_from_config(str(kubeconfig))
        namespaces = client.CoreV1Api(api_client).list_namespace()
        assert "default" in [n.metadata.name for n in namespaces.items]
        api_client.close()
    finally:
        stderr = stop(process)
    assert stderr == ""  # no access log unless asked for


def test_without_kubeconfig_the_start_lines_say_how_to_get_one() -> None:
    process = subprocess.Popen([*FAKEAPI, "serve", "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert read_line(process).startswith("fakeapi serving on http://127.0.0.1:")
        assert read_line(process) == ("no kubeconfig written; pass --kubeconfig PATH to write one for kubectl "
                                      "and other clients\n")
    finally:
        stop(process)


def test_log_requests_writes_one_line_per_request_to_stderr() -> None:
    process = subprocess.Popen([*FAKEAPI, "serve", "--port", "0", "-v"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        url = read_line(process).strip().rsplit(" ", 1)[-1]
        headers = {"User-Agent": "my-controller/1.0"}
        listing = urllib.request.Request(url + "/api/v1/namespaces/default/pods?limit=1&labelSelector=app%3Dweb",
                                         headers=headers)
        with urllib.request.urlopen(listing, timeout=SECONDS) as response:
            assert response.status == 200
        missing = urllib.request.Request(url + "/api/v1/namespaces/default/pods/web", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as not_found:
            urllib.request.urlopen(missing, timeout=SECONDS)
        not_found.value.close()
    finally:
        stderr = stop(process)
    lines = stderr.splitlines()
    assert len(lines) == 2, stderr
    duration = r"\d+\.\dms"
    assert re.fullmatch(rf'GET /api/v1/namespaces/default/pods\?limit=1&labelSelector=app%3Dweb 200 {duration} '
                        r'"my-controller/1.0"', lines[0]), lines[0]
    assert re.fullmatch(rf'GET /api/v1/namespaces/default/pods/web 404 {duration} "my-controller/1.0"',
                        lines[1]), lines[1]


def assert_one_line_failure(done: subprocess.CompletedProcess[str], line: str) -> None:
    assert (done.returncode, done.stderr, done.stdout) == (1, line + "\n", "")


def test_a_port_in_use_is_one_line(busy_port: int) -> None:
    done = run("serve", "--host", "127.0.0.1", "--port", str(busy_port))
    assert_one_line_failure(done, f"fakeapi: port {busy_port} is in use; pick another with --port "
                                  f"(0 picks a free one)")


@pytest.mark.parametrize(("host", "line"), [
    # a name with a space fails in the resolver library itself, before any DNS query
    ("no such host", "fakeapi: cannot resolve the host 'no such host'; pass an address of this machine with "
                     "--host (e.g. 127.0.0.1, or 0.0.0.0 for every interface)"),
    # TEST-NET-1, reserved for documentation: never an address of this machine (binding sends nothing)
    ("192.0.2.1", "fakeapi: 192.0.2.1 is not an address of this machine; pass one with --host "
                  "(e.g. 127.0.0.1, or 0.0.0.0 for every interface)"),
])
def test_a_bad_host_is_one_line(host: str, line: str) -> None:
    assert_one_line_failure(run("serve", "--host", host, "--port", "0"), line)


def test_a_missing_seed_file_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "objects.yaml"
    assert_one_line_failure(run("serve", "--port", "0", "--seed-file", str(missing)),
                            f"fakeapi: cannot read the seed file {missing}: no such file or directory; "
                            f"check the path given to --seed-file")


@pytest.mark.parametrize(("content", "cause"), [
    # go-yaml's (and libyaml's) words
    ("kind: Pod\n  name: [\n",
     "error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {}\n",
     'Pod "web" is invalid: spec.containers: Required value'),
    ("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\n",
     'no matches for kind "Ingress" in version "networking.k8s.io/v1"'),
])
def test_a_seed_file_with_invalid_content_is_one_line(tmp_path: Path, content: str, cause: str) -> None:
    seed_file = tmp_path / "objects.yaml"
    seed_file.write_text(content)
    assert_one_line_failure(run("serve", "--port", "0", "--seed-file", str(seed_file)),
                            f"fakeapi: the seed file {seed_file} cannot be seeded: {cause}; fix the file or "
                            f"leave it out")


def test_an_unwritable_kubeconfig_path_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    kubeconfig = tmp_path / "file" / "kubeconfig"
    assert_one_line_failure(run("serve", "--port", "0", "--kubeconfig", str(kubeconfig)),
                            f"fakeapi: cannot write the kubeconfig {kubeconfig}: {tmp_path / 'file'} is not a "
                            f"folder; pass a writable path with --kubeconfig")


@pytest.mark.parametrize(("flag", "value", "why"), [
    ("--port", "65536", "65536 is not a port: pick one in 0..65535 (0 picks a free one)"),
    ("--port", "-1", "-1 is not a port: pick one in 0..65535 (0 picks a free one)"),
    ("--port", "http", "'http' is not a port number"),
    ("--watch-history", "-1", "-1 is negative: give 0 or more"),
    ("--request-log", "-5", "-5 is negative: give 0 or more"),
    ("--request-log-bytes", "-1", "-1 is negative: give 0 or more"),
    ("--watch-history-age", "-1", "-1 is not a duration: give 0 or more seconds"),
    ("--bookmark-interval", "-1", "-1 is not a duration: give more than 0 seconds"),
    ("--bookmark-interval", "0", "0 is not a duration: give more than 0 seconds"),
    ("--event-ttl", "0", "0 is not a duration: give more than 0 seconds"),
    ("--disable-admission-plugins", "Priority,NoSuchPlugin",
     'disable-admission-plugins plugin "NoSuchPlugin" is unknown'),
    ("--nodes", "-1", "-1 is negative: give 0 or more"),
    ("--node-capacity", "cpu=lots", "cpu=lots: 'lots' is not a quantity (e.g. 8, 500m, 32Gi)"),
    ("--node-capacity", "cpu", "'cpu' is not RESOURCE=VALUE"),
    ("--node-labels", "disk=s s", "disk=s s: a valid label must be an empty string or consist of alphanumeric "
                                 "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                                 "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation "
                                 "is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    ("--simulate", "kubelet", "invalid choice: 'kubelet' (choose from 'cluster', 'scheduler', 'none')"),
    ("--controllers", "*,-deploymentcontroller", '"deploymentcontroller" is not in the list of known controllers'),
    ("--max-requests-inflight", "-1", "-1 is negative: give 0 or more"),
    ("--max-mutating-requests-inflight", "many", "'many' is not a whole number"),
    ("--request-timeout", "0", "0 is not a duration: give more than 0 seconds"),
    ("--idle-timeout", "1m", "'1m' is not a number of seconds"),
    ("--read-header-timeout", "-1", "-1 is not a duration: give more than 0 seconds"),
    ("--allowed-hosts", "fakeapi:8080", "'fakeapi:8080' has a port: give the name alone (every port is answered)"),
    ("--allowed-hosts", "[::1]:80", "'[::1]:80' has a port: give the name alone (every port is answered)"),
    ("--allowed-hosts", "http://fakeapi", "'http://fakeapi' is not a host name: give the name alone, such as "
                                          "fakeapi.example"),
    ("--allowed-hosts", ",", "give one or more host names, separated by commas"),
    ("--control-api", "no", "'no' is not true or false"),
    ("--authorization-mode", "Node,Webhook", 'authorization-mode "Webhook" is not a valid mode'),
    ("--authorization-mode", "RBAC,RBAC", 'authorization-mode ["RBAC" "RBAC"] has mode specified more than once'),
    ("--authorization-mode", ",", "at least one authorization-mode must be passed"),
])
def test_invalid_flag_values_are_rejected_by_the_parser(flag: str, value: str, why: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", f"{flag}={value}"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"fakeapi serve: error: argument {flag}: {why}"


def test_the_simulation_flags_make_its_settings() -> None:
    args = parser().parse_args(["serve", "--nodes", "3", "--node-capacity", "cpu=2, memory=4Gi",
                                "--node-labels", "disk=ssd", "--simulate", "scheduler"])
    assert (args.nodes, args.node_capacity, args.node_labels, args.simulate) == (
        3, {"cpu": "2", "memory": "4Gi"}, {"disk": "ssd"}, "scheduler")
    defaults = parser().parse_args(["serve"])
    assert (defaults.nodes, defaults.simulate) == (1, "cluster")


def test_a_rejected_flag_exits_2_with_usage_and_no_traceback() -> None:
    done = run("serve", "--watch-history", "-1")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("usage: fakeapi serve ")
    assert done.stderr.splitlines()[-1] == ("fakeapi serve: error: argument --watch-history: -1 is negative: "
                                            "give 0 or more")


def test_openapi_to_an_unwritable_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    output = tmp_path / "file" / "openapi"
    assert_one_line_failure(run("openapi", "--output-dir", str(output)),
                            f"fakeapi: cannot write the OpenAPI documents: {output / 'v3'}: not a directory; "
                            f"pass a writable folder with --output-dir")



def test_disabled_admission_plugins_do_not_run() -> None:
    """`--disable-admission-plugins` takes kube-apiserver's names: a pod then gets no default tolerations."""
    process = subprocess.Popen([*FAKEAPI, "serve", "--port", "0", "--disable-admission-plugins",
                                "DefaultTolerationSeconds,Priority"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        url = read_line(process).strip().rsplit(" ", 1)[-1]
        pod = {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}
        request = urllib.request.Request(url + "/api/v1/namespaces/default/pods", method="POST",
                                         data=json.dumps(pod).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=SECONDS) as response:
            created = json.loads(response.read())
    finally:
        stop(process)
    assert "tolerations" not in created["spec"] and "priority" not in created["spec"]


def _status(url: str, path: str, host: str, method: str = "GET") -> int:
    request = urllib.request.Request(url + path, method=method, headers={"Host": host, "X-Fakeapi-Control": "1"})
    try:
        with urllib.request.urlopen(request, timeout=SECONDS) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


def test_a_loopback_server_answers_loopback_names_only() -> None:
    """A web page that rebinds its own name to 127.0.0.1 is refused: its requests carry its name."""
    process = subprocess.Popen([*FAKEAPI, "serve", "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        url = read_line(process).strip().rsplit(" ", 1)[-1]
        assert _status(url, "/api/v1/namespaces", "localhost:8080") == 200
        assert _status(url, "/api/v1/namespaces", "attacker.example:8080") == 403
    finally:
        stop(process)


def test_allowed_hosts_and_the_control_api_turned_off() -> None:
    process = subprocess.Popen([*FAKEAPI, "serve", "--port", "0", "--allowed-hosts", "fakeapi,api.test",
                                "--control-api=false"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = read_line(process).strip().rsplit(" ", 1)[-1]
        assert [_status(url, "/version", host) for host in ("fakeapi:8080", "api.test", "127.0.0.1", "other")] \
            == [200, 200, 200, 403]
        assert _status(url, "/fakeapi/v1/requests", "fakeapi") == 404
        assert _status(url, "/fakeapi/v1/reset", "fakeapi", "POST") == 404
    finally:
        stop(process)


# ---- authentication and TLS flags


@pytest.mark.parametrize(("flags", "why"), [
    (["--tls-self-signed", "--tls-cert-file=a.crt", "--tls-private-key-file=a.key"],
     "--tls-self-signed makes its own certificate: leave out --tls-cert-file and --tls-private-key-file"),
    (["--tls-cert-file=a.crt"], "--tls-cert-file and --tls-private-key-file go together: give both"),
    (["--tls-private-key-file=a.key"], "--tls-cert-file and --tls-private-key-file go together: give both"),
    (["--client-ca-file=ca.crt"],
     "--client-ca-file needs https: add --tls-self-signed, or --tls-cert-file and --tls-private-key-file"),
    (["--anonymous-auth=maybe"], "argument --anonymous-auth: 'maybe' is not true or false"),
])
def test_auth_and_tls_flags_that_do_not_go_together_are_rejected(flags: list[str], why: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", *flags])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"fakeapi serve: error: {why}"


@pytest.mark.parametrize(("value", "anonymous"), [("false", False), ("0", False), ("F", False), ("TRUE", True),
                                                  ("t", True)])
def test_anonymous_auth_takes_gos_booleans(value: str, anonymous: bool) -> None:
    assert parser().parse_args(["serve", f"--anonymous-auth={value}"]).anonymous_auth is anonymous
    assert parser().parse_args(["serve", "--anonymous-auth"]).anonymous_auth is True
    assert parser().parse_args(["serve"]).anonymous_auth is True


def _pem_files(directory: Path) -> dict[str, Path]:
    """A CA, a serving certificate chain and key it issued, and a key of another."""
    from fakeapi.pki import Authority

    authority = Authority.new("test")
    serving, other = authority.issue_server(["127.0.0.1"]), authority.issue_client("x", ())
    files = {"ca": authority.certificate, "chain": serving.certificate, "key": serving.key, "other_key": other.key,
             "not_pem": b"hello\n", "encrypted_key": _encrypted(serving.key)}
    for name, content in files.items():
        (directory / name).write_bytes(content)
    return {name: directory / name for name in files}


def _encrypted(key_pem: bytes) -> bytes:
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(key_pem, None)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.BestAvailableEncryption(b"secret"))


@pytest.mark.parametrize(("flags", "line"), [
    (["--token-auth-file", "{dir}/missing.csv"],
     "cannot read the token file {dir}/missing.csv: no such file or directory; check the path given to "
     "--token-auth-file"),
    (["--token-auth-file", "{dir}/not_pem"],
     "the token file {dir}/not_pem cannot be used: token file '{dir}/not_pem' must have at least 3 columns "
     "(token, user name, user uid), found 1; fix the file"),
    (["--tls-cert-file", "{dir}/missing.crt", "--tls-private-key-file", "{dir}/key"],
     "cannot read the certificate file {dir}/missing.crt: no such file or directory; check --tls-cert-file"),
    (["--tls-cert-file", "{dir}/not_pem", "--tls-private-key-file", "{dir}/key"],
     "the certificate file {dir}/not_pem holds no PEM certificate; check --tls-cert-file"),
    (["--tls-cert-file", "{dir}/chain", "--tls-private-key-file", "{dir}/other_key"],
     "cannot serve with the certificate file {dir}/chain and the private key file {dir}/other_key: the private key "
     "does not match the certificate; check --tls-cert-file and --tls-private-key-file"),
    (["--tls-cert-file", "{dir}/chain", "--tls-private-key-file", "{dir}/encrypted_key"],
     "cannot serve with the certificate file {dir}/chain and the private key file {dir}/encrypted_key: the private "
     "key is encrypted (give it unencrypted, as kube-apiserver takes it); check --tls-cert-file and "
     "--tls-private-key-file"),
    (["--tls-self-signed", "--client-ca-file", "{dir}/not_pem"],
     "the client CA file {dir}/not_pem holds no PEM certificate; check --client-ca-file"),
    (["--service-account-signing-key-file", "{dir}/missing.key"],
     "cannot read {dir}/missing.key: no such file or directory; check the path given to "
     "--service-account-signing-key-file"),
    (["--service-account-signing-key-file", "{dir}/not_pem"],
     "the service account key file {dir}/not_pem cannot be used: it holds no PEM private key; check "
     "--service-account-signing-key-file"),
    (["--cluster-signing-cert-file", "{dir}/ca", "--cluster-signing-key-file", "{dir}/other_key"],
     "the key {dir}/other_key is not the key of the certificate {dir}/ca; check --cluster-signing-cert-file and "
     "--cluster-signing-key-file"),
    (["--cluster-signing-cert-file", "{dir}/not_pem", "--cluster-signing-key-file", "{dir}/key"],
     "the cluster signing files {dir}/not_pem and {dir}/key hold no PEM certificate and unencrypted key; check "
     "--cluster-signing-cert-file and --cluster-signing-key-file"),
    (["--service-account-key-file", "{dir}/not_pem"],
     "the service account key file {dir}/not_pem cannot be used: it holds no PEM key or certificate; check "
     "--service-account-key-file"),
])
def test_unusable_credential_files_are_one_line(tmp_path: Path, flags: list[str], line: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    _pem_files(tmp_path)
    assert main(["serve", "--port", "0", *(flag.format(dir=tmp_path) for flag in flags)]) == 1
    captured = capsys.readouterr()
    assert (captured.err, captured.out) == (f"fakeapi: {line.format(dir=tmp_path)}\n", "")


def test_a_bad_token_file_line_is_named_as_upstream_names_it(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('good,alice,1\nbad,bo"b,2\n')
    assert main(["serve", "--token-auth-file", str(tokens)]) == 1
    assert capsys.readouterr().err == (f"fakeapi: the token file {tokens} cannot be used: parse error on line 2, "
                                       f'column 7: bare " in non-quoted-field; fix the file\n')


def test_https_with_given_certificate_files_and_upstreams_token_file_warnings(tmp_path: Path) -> None:
    files = _pem_files(tmp_path)
    tokens = tmp_path / "tokens.csv"
    tokens.write_text(",nobody,0\ns3cr3t,alice,1001\n")
    kubeconfig = tmp_path / "kubeconfig"
    process = subprocess.Popen([*FAKEAPI, "serve", "--port", "0", "--tls-cert-file", str(files["chain"]),
                                "--tls-private-key-file", str(files["key"]), "--token-auth-file", str(tokens),
                                "--kubeconfig", str(kubeconfig)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = read_line(process).strip().rsplit(" ", 1)[-1]
        assert url.startswith("https://127.0.0.1:")
        context = ssl.create_default_context(cafile=str(files["ca"]))
        request = urllib.request.Request(url + "/version", headers={"Authorization": "Bearer s3cr3t"})
        with urllib.request.urlopen(request, context=context, timeout=SECONDS) as response:
            assert json.loads(response.read())["minor"] == "32"
    finally:
        stderr = stop(process)
    assert stderr == (f"fakeapi: warning: empty token has been found in token file '{tokens}', record number '1'\n")
    config = yaml.safe_load(kubeconfig.read_text())
    assert config["users"][0]["user"] == {"token": "s3cr3t"}
    assert config["clusters"][0]["cluster"]["certificate-authority-data"] == \
        base64.b64encode(files["ca"].read_bytes()).decode()


def test_a_self_signed_certificate_names_the_allowed_hosts_too(tmp_path: Path) -> None:
    """A client reaching the server by a name of --allowed-hosts verifies the certificate against the CA
    of the kubeconfig, and that name is answered."""
    kubeconfig = tmp_path / "kubeconfig"
    process = subprocess.Popen([*FAKEAPI, "serve", "--port", "0", "--tls-self-signed", "--allowed-hosts",
                                "fakeapi.test", "--kubeconfig", str(kubeconfig)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(read_line(process).strip().rsplit(":", 1)[-1])
        config = yaml.safe_load(kubeconfig.read_text())
        ca = base64.b64decode(config["clusters"][0]["cluster"]["certificate-authority-data"]).decode()
        context = ssl.create_default_context(cadata=ca)
        with socket.create_connection(("127.0.0.1", port), timeout=SECONDS) as raw, \
                context.wrap_socket(raw, server_hostname="fakeapi.test") as tls:
            tls.sendall(b"GET /version HTTP/1.1\r\nHost: fakeapi.test\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := tls.recv(65536):
                answer += chunk
    finally:
        stop(process)
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and b'"minor": "32"' in answer


def test_the_service_account_flags_name_the_issuer_keys_and_lifetimes(tmp_path: Path) -> None:
    from fakeapi.cli import parser
    from fakeapi.serve import service_account_settings

    files = _pem_files(tmp_path)
    args = parser().parse_args([
        "serve", "--service-account-issuer", "https://new.example", "--service-account-issuer", "https://old.example",
        "--service-account-signing-key-file", str(files["key"]), "--service-account-key-file", str(files["ca"]),
        "--api-audiences", "api,vault", "--service-account-max-token-expiration", "7200",
        "--service-account-extend-token-expiration=false"])
    settings = service_account_settings(args.service_account_issuer, args.service_account_signing_key_file,
                                        args.service_account_key_file, args.api_audiences,
                                        args.service_account_max_token_expiration,
                                        args.service_account_extend_token_expiration)
    assert (settings.issuers, settings.api_audiences, settings.max_expiration, settings.extend_expiration) == (
        ("https://new.example", "https://old.example"), ("api", "vault"), 7200, False)
    assert settings.signing_key == files["key"].read_bytes()
    assert settings.verifying_keys == files["ca"].read_bytes() + b"\n"
