"""What only the etcd store does: kube-apiserver's key layout and values without resourceVersion, lists at
a revision read from etcd once the history forgot it, 410 once etcd compacted it, and two stores on one
etcd seeing each other's writes in order."""

from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import orjson
import pytest
import requests

from fakeapi.cli import main
from fakeapi.machinery.errors import Expired
from fakeapi.machinery.types import ObjectKey
from fakeapi.pki import Authority, KeyPair
from fakeapi.storage.etcd.client import EtcdClient
from fakeapi.storage.etcd.compactor import Compactor
from fakeapi.storage.etcd.config import EtcdConfig, parse_endpoints
from fakeapi.storage.etcd.layout import KeyLayout
from fakeapi.storage.etcd.store import EtcdStore
from fakeapi.storage.store import Event, StorageError
from tests.etcdserver import SKIP_REASON, EtcdServer, etcd_binary, free_port


def etcd_value(config: EtcdConfig, key: str) -> dict[str, object] | None:
    request = urllib.request.Request(f"{config.endpoints[0]}/v3/kv/range",
                                     json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode())
    with urllib.request.urlopen(request, timeout=5) as response:
        kvs = json.loads(response.read()).get("kvs") or []
    return json.loads(base64.b64decode(kvs[0]["value"])) if kvs else None


@pytest.mark.parametrize(("key", "path"), [
    (ObjectKey("pods", "default", "web"), "/registry/pods/default/web"),
    (ObjectKey("namespaces", "", "default"), "/registry/namespaces/default"),
    (ObjectKey("nodes", "", "node-1"), "/registry/minions/node-1"),
    (ObjectKey("leases.coordination.k8s.io", "kube-node-lease", "node-1"), "/registry/leases/kube-node-lease/node-1"),
    (ObjectKey("customresourcedefinitions.apiextensions.k8s.io", "", "widgets.example.com"),
     "/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com"),
    (ObjectKey("widgets.example.com", "default", "w"), "/registry/example.com/widgets/default/w"),
    (ObjectKey("deployments.apps", "default", "d"), "/registry/deployments/default/d"),
])
def test_keys_follow_kube_apiservers_layout_and_read_back(key: ObjectKey, path: str) -> None:
    assert KeyLayout().key(key) == path
    assert KeyLayout().object_key(path) == key  # (a fresh layout: read back without having written it)
    assert KeyLayout("/other").key(key) == path.replace("/registry", "/other", 1)


def test_objects_are_kept_in_etcd_without_their_resource_version(etcd_config: EtcdConfig) -> None:
    store = EtcdStore(etcd_config)
    try:
        store.create(ObjectKey("pods", "default", "web"), {"metadata": {"name": "web"}, "spec": {}})
        stored = etcd_value(etcd_config, f"{etcd_config.prefix}/pods/default/web")
        assert stored == {"metadata": {"name": "web"}, "spec": {}}
    finally:
        store.close()


def test_a_list_at_a_revision_the_history_forgot_is_read_from_etcd_until_compacted(etcd_config: EtcdConfig) -> None:
    store = EtcdStore(etcd_config, history=1)
    try:
        key = ObjectKey("pods", "default", "web")
        store.create(key, {"metadata": {"name": "web"}, "spec": {"v": 1}})
        at = store.resource_version
        store.update(key, {"metadata": {"name": "web"}, "spec": {"v": 2}}, str(at))
        store.create(ObjectKey("pods", "default", "db"), {"metadata": {"name": "db"}})
        with pytest.raises(Expired):
            store.events_since(at)  # the watch cache forgot it ...
        then = store.objects_at("pods", "default", at)  # ... etcd has it
        assert {k.name: orjson.loads(v)["spec"] for k, v in then.items()} == {"web": {"v": 1}}
        EtcdClient(etcd_config).compact(store.resource_version)
        with pytest.raises(Expired, match=f"^too old resource version: {at}$"):
            store.objects_at("pods", "default", at)
    finally:
        store.close()


def test_two_stores_on_one_etcd_apply_each_others_writes_in_the_same_order(etcd_config: EtcdConfig) -> None:
    first, second = EtcdStore(etcd_config), EtcdStore(etcd_config)
    try:
        heard: dict[str, list[Event]] = {"first": [], "second": []}
        first.subscribe(heard["first"].append)
        second.subscribe(heard["second"].append)
        for index in range(20):
            store = first if index % 2 else second
            store.create(ObjectKey("pods", "default", f"p-{index}"), {"metadata": {"name": f"p-{index}"}})
        for index in range(0, 20, 3):  # runs of one store's writes: each applies its own at once
            key = ObjectKey("pods", "default", f"p-{index}")
            first.update(key, {"metadata": {"name": key.name}}, first.get(key)["metadata"]["resourceVersion"])
        asyncio.run(first.consistent_read())
        asyncio.run(second.consistent_read())
        assert first.list_bytes("pods") == second.list_bytes("pods")
        for events in heard.values():  # each change once (its own watch brings a store's writes again)
            assert [event.key.name for event in events] == [f"p-{index}" for index in range(20)] + [
                f"p-{index}" for index in range(0, 20, 3)]
            versions = [event.resource_version for event in events]
            assert versions == sorted(set(versions))
    finally:
        first.close()
        second.close()


def test_the_compactor_keeps_one_interval_of_history_and_servers_take_turns(etcd_config: EtcdConfig) -> None:
    one, other = Compactor(EtcdClient(etcd_config), 3600), Compactor(EtcdClient(etcd_config), 3600)
    try:
        assert one.compact_once() is None  # the first interval compacts nothing
        assert other.compact_once() is None  # the other server lost the turn; it learns the key's version
        assert other.compact_once() is not None  # its turn: to the revision it saw an interval before
    finally:
        one.stop()
        other.stop()


def test_a_store_reaches_etcd_over_tls_with_a_client_certificate(tmp_path: Path) -> None:
    binary = etcd_binary()
    if binary is None:
        pytest.skip(SKIP_REASON)
    authority = Authority.new("etcd")
    files = {}
    for name, content in (("ca.crt", authority.certificate), *_pair("server", etcd_certificate(authority)),
                          *_pair("client", authority.issue_client("fakeapi", ()))):
        files[name] = tmp_path / name
        files[name].write_bytes(content)
    etcd = EtcdServer(tmp_path / "data", binary, (files["ca.crt"], files["server.crt"], files["server.key"]))
    etcd.start()
    try:
        endpoints = parse_endpoints(etcd.url)
        config = EtcdConfig(endpoints, ca_file=files["ca.crt"], cert_file=files["client.crt"],
                            key_file=files["client.key"], compaction_interval=0)
        store = EtcdStore(config)
        try:
            store.create(ObjectKey("pods", "default", "web"), {"metadata": {"name": "web"}})
            assert store.get(ObjectKey("pods", "default", "web"))["metadata"]["name"] == "web"
        finally:
            store.close()
        refused = r"^cannot read from etcd at https://127\.0\.0\.1:\d+ \(the TLS handshake failed"
        with pytest.raises(StorageError, match=refused):  # no client certificate
            EtcdStore(EtcdConfig(endpoints, ca_file=files["ca.crt"], compaction_interval=0))
    finally:
        etcd.stop()


def etcd_certificate(authority: Authority) -> KeyPair:
    """etcd's own certificate: for serving, and as a client (etcd's gateway dials etcd with it)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    ca = x509.load_pem_x509_certificate(authority.certificate)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "etcd")]))
        .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                       critical=False)
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                       critical=False)
        .sign(authority._key, hashes.SHA256()))  # noqa: SLF001 (the test's own CA signs etcd's certificate)
    return KeyPair(certificate.public_bytes(serialization.Encoding.PEM),
                   key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption()))


def _pair(name: str, pair: KeyPair) -> tuple[tuple[str, bytes], tuple[str, bytes]]:
    return (f"{name}.crt", pair.certificate), (f"{name}.key", pair.key)


def test_a_server_whose_etcd_does_not_answer_stops_at_start_with_one_line() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = subprocess.run([sys.executable, "-m", "fakeapi", "serve", "--port", "0", "--storage", f"etcd:{url}"],
                            capture_output=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"fakeapi: cannot read from etcd at {url} (connection refused or lost); start etcd, or check the endpoints "
        f"given to --storage and the --etcd-* flags\n")


@pytest.mark.parametrize(("flag", "message"), [
    ("etcd:ftp://127.0.0.1:2379", "'ftp://127.0.0.1:2379' is not an etcd endpoint: give http://HOST:PORT or "
                                  "https://HOST:PORT"),
    ("etcd:http://127.0.0.1:2379/v3", "'http://127.0.0.1:2379/v3' is not an etcd endpoint: it has a path; give "
                                      "http://HOST:PORT"),
])
def test_an_etcd_url_of_another_form_is_a_usage_error(flag: str, message: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--storage", flag])
    assert exited.value.code == 2
    assert capsys.readouterr().err.endswith(f"error: argument --storage: {message}\n")


def test_a_list_at_a_compacted_revision_is_410_with_upstreams_message(etcd_config: EtcdConfig) -> None:
    from fakeapi.config import ServerConfig
    from fakeapi.testing import FakeAPIServer

    with FakeAPIServer(config=ServerConfig(etcd=etcd_config, watch_history=1)) as server:
        http = requests.Session()
        pods = f"{server.url}/api/v1/namespaces/default/configmaps"
        created = http.post(pods, json={"metadata": {"name": "a"}, "data": {"v": "1"}}, timeout=10).json()
        at = created["metadata"]["resourceVersion"]
        for name in ("b", "c"):  # the history (of one change) forgets the version the list asks for
            http.post(pods, json={"metadata": {"name": name}}, timeout=10)
        exact = {"resourceVersion": at, "resourceVersionMatch": "Exact"}
        listed = http.get(pods, params=exact, timeout=10).json()  # from etcd: the history kept one change
        assert [item["metadata"]["name"] for item in listed["items"]] == ["a", "kube-root-ca.crt"]
        EtcdClient(etcd_config).compact(int(listed["metadata"]["resourceVersion"]) + 1)
        gone = http.get(pods, params=exact, timeout=10)
        assert gone.status_code == 410
        assert gone.json()["message"] == "The resourceVersion for the provided list is too old."
        assert gone.json()["reason"] == "Expired"


def test_writes_run_waiting_overlap_and_every_change_is_heard_once_in_order(etcd_config: EtcdConfig) -> None:
    """Writes made with run_waiting (the kubelets' lease renewals) have their round trips in flight at once
    while the loop goes on; the store still applies each change once, in revision order, and each writer
    reads its own write."""
    from fakeapi.machinery.waiting import run_waiting

    store = EtcdStore(etcd_config)
    heard: list[Event] = []
    store.subscribe(heard.append)
    in_flight, most_in_flight = 0, 0

    def write(index: int) -> tuple[str, bytes | None]:
        nonlocal in_flight, most_in_flight
        key = ObjectKey("leases.coordination.k8s.io", "kube-node-lease", f"node-{index}")
        in_flight += 1
        most_in_flight = max(most_in_flight, in_flight)
        try:
            store.create(key, {"metadata": {"name": key.name}, "spec": {"holderIdentity": key.name}})
        finally:
            in_flight -= 1
        return key.name, store.get_bytes(key)

    async def main() -> list[tuple[str, bytes | None]]:
        store.start()
        return await asyncio.gather(*(run_waiting(lambda index=index: write(index)) for index in range(40)))

    try:
        written = asyncio.run(main())
        assert all(data is not None for _name, data in written)  # each writer read its write back
        assert most_in_flight > 1  # (blocking writes would have had one in flight at a time)
        assert sorted(event.key.name for event in heard) == sorted(f"node-{index}" for index in range(40))
        versions = [event.resource_version for event in heard]
        assert versions == sorted(set(versions))
    finally:
        store.close()
