"""What only the etcd store does: kube-apiserver's key layout and values without resourceVersion, lists at
a revision read from etcd once the history forgot it, 410 once etcd compacted it, and two stores on one
etcd seeing each other's writes in order."""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.request

import orjson
import pytest

from fakeapi.machinery.errors import Expired
from fakeapi.machinery.types import ObjectKey
from fakeapi.storage.etcd.client import EtcdClient
from fakeapi.storage.etcd.compactor import Compactor
from fakeapi.storage.etcd.config import EtcdConfig
from fakeapi.storage.etcd.layout import KeyLayout
from fakeapi.storage.etcd.store import EtcdStore
from fakeapi.storage.store import Event


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
        heard: list[Event] = []
        second.subscribe(heard.append)
        for index in range(20):
            store = first if index % 2 else second
            store.create(ObjectKey("pods", "default", f"p-{index}"), {"metadata": {"name": f"p-{index}"}})
        asyncio.run(first.consistent_read())
        asyncio.run(second.consistent_read())
        assert first.list_bytes("pods") == second.list_bytes("pods")
        assert [event.key.name for event in heard] == [f"p-{index}" for index in range(20)]
        versions = [event.resource_version for event in heard]
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
