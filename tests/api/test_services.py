"""Services, Endpoints and EndpointSlices over HTTP: cluster IPs and node ports given from the ranges with the
allocators' errors, headless and ExternalName Services, type changes, the `kubernetes` Service, field
selectors and Table rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from fakeapi.app import create_app
from fakeapi.config import ServerConfig

SERVICES = "/api/v1/namespaces/default/services"
ENDPOINTS = "/api/v1/namespaces/default/endpoints"
SLICES = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
MERGE = {"Content-Type": "application/merge-patch+json"}


def service(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}], **spec}}


async def create(client: Any, body: dict[str, Any]) -> tuple[int, Any]:
    response = await client.post(SERVICES, json=body)
    return response.status, await response.json()


async def test_a_service_gets_an_address_from_the_range_and_its_defaults(client: Any) -> None:
    status, created = await create(client, service())
    assert status == 201
    spec = created["spec"]
    ip = spec["clusterIP"]
    assert spec == {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 80, "protocol": "TCP"}],
                    "sessionAffinity": "None", "type": "ClusterIP", "internalTrafficPolicy": "Cluster",
                    "ipFamilyPolicy": "SingleStack", "ipFamilies": ["IPv4"], "clusterIP": ip, "clusterIPs": [ip]}
    # above the band kept for addresses clients ask for (the first 256 of 10.96.0.0/12)
    octets = [int(part) for part in ip.split(".")]
    assert octets[0] == 10 and 96 <= octets[1] <= 111 and (octets[1], octets[2]) != (96, 0)
    assert created["status"] == {"loadBalancer": {}}
    assert "generation" not in created["metadata"]


async def test_taken_and_foreign_addresses_get_the_allocators_errors(client: Any) -> None:
    status, body = await create(client, service("dns", clusterIP="10.96.0.1"))
    assert (status, body["message"]) == (422, 'Service "dns" is invalid: spec.clusterIPs: Invalid value: '
                                              '[]string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is '
                                              "already allocated")
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.clusterIPs", "message":
                                          'Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: '
                                          "provided IP is already allocated"}]
    status, body = await create(client, service("far", clusterIP="192.168.0.1"))
    assert body["message"] == ('Service "far" is invalid: spec.clusterIPs: Invalid value: []string{"192.168.0.1"}: '
                               "failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid "
                               "range. The range of valid IPs is 10.96.0.0/12")
    assert (await create(client, service("dns", clusterIP="10.96.0.20")))[0] == 201
    assert (await client.delete(f"{SERVICES}/dns")).status == 200
    assert (await create(client, service("again", clusterIP="10.96.0.20")))[0] == 201  # freed by the delete


async def test_node_ports_are_given_checked_and_freed(client: Any) -> None:
    status, created = await create(client, service("np", type="NodePort", ports=[{"port": 80, "nodePort": 30080}]))
    assert status == 201
    assert created["spec"]["ports"] == [{"port": 80, "nodePort": 30080, "targetPort": 80, "protocol": "TCP"}]
    assert created["spec"]["externalTrafficPolicy"] == "Cluster"
    status, body = await create(client, service("np2", type="NodePort", ports=[{"port": 80, "nodePort": 30080}]))
    assert body["message"] == ('Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided '
                               "port is already allocated")
    status, body = await create(client, service("np3", type="NodePort", ports=[{"port": 80, "nodePort": 80}]))
    assert body["message"] == ('Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port '
                               "is not in the valid range. The range of valid ports is 30000-32767")
    status, auto = await create(client, service("auto", type="NodePort"))
    assert 30086 <= auto["spec"]["ports"][0]["nodePort"] <= 32767  # above the kept band
    rows = (await (await client.get(SERVICES, headers={"Accept": TABLE})).json())["rows"]
    cells = {row["cells"][0]: row["cells"] for row in rows}
    assert cells["np"][1:5] == ["NodePort", created["spec"]["clusterIP"], "<none>", "80:30080/TCP"]
    # back to ClusterIP: the node port goes (and is free again)
    changed = await client.patch(f"{SERVICES}/np", json={"spec": {"type": "ClusterIP"}}, headers=MERGE)
    assert (await changed.json())["spec"]["ports"] == [{"port": 80, "targetPort": 80, "protocol": "TCP"}]
    assert "externalTrafficPolicy" not in (await changed.json())["spec"]
    assert (await create(client, service("np2", type="NodePort", ports=[{"port": 80, "nodePort": 30080}])))[0] == 201


async def test_a_replace_without_the_allocated_values_keeps_them_and_addresses_do_not_change(client: Any) -> None:
    _, created = await create(client, service(type="NodePort"))
    again = await client.put(f"{SERVICES}/web", json=service(type="NodePort"))
    assert again.status == 200, await again.text()
    assert (await again.json())["spec"]["clusterIP"] == created["spec"]["clusterIP"]
    assert (await again.json())["spec"]["ports"] == created["spec"]["ports"]
    moved = await client.put(f"{SERVICES}/web", json=service(type="NodePort", clusterIP="10.96.0.99",
                                                             clusterIPs=["10.96.0.99"]))
    assert (await moved.json())["message"] == (
        'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.99"}: may not change once '
        "set")


async def test_headless_and_external_name_services(client: Any) -> None:
    status, headless = await create(client, service("db", clusterIP="None"))
    assert (status, headless["spec"]["clusterIPs"], headless["spec"]["ipFamilies"]) == (201, ["None"], ["IPv4"])
    status, external = await create(client, {"metadata": {"name": "ext"},
                                             "spec": {"type": "ExternalName", "externalName": "db.example.com."}})
    assert status == 201
    assert external["spec"] == {"type": "ExternalName", "externalName": "db.example.com.", "sessionAffinity": "None"}
    status, body = await create(client, service("ln", type="LoadBalancer", clusterIP="None"))
    assert body["message"] == ('Service "ln" is invalid: spec.clusterIPs[0]: Invalid value: "None": may not be set to '
                               "'None' for LoadBalancer services")
    rows = (await (await client.get(SERVICES, headers={"Accept": TABLE})).json())["rows"]
    cells = {row["cells"][0]: row["cells"][1:5] for row in rows}
    assert cells["db"] == ["ClusterIP", "None", "<none>", "80/TCP"]
    assert cells["ext"] == ["ExternalName", "<none>", "db.example.com.", "<none>"]


@pytest.mark.parametrize(("spec", "message"), [
    ({"ports": []}, "spec.ports: Required value"),
    ({"ports": [{"port": 80}, {"port": 81}]},
     "[spec.ports[0].name: Required value, spec.ports[1].name: Required value]"),
    ({"ports": [{"port": 80, "protocol": "HTTP"}]},
     'spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"'),
    ({"type": "Magic"},
     'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", '
     '"NodePort"'),
    ({"ports": [{"port": 80, "nodePort": 30001}]},
     "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"),
    ({"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 0}}},
     "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than "
     "86400"),
    ({"externalIPs": ["127.0.0.1"]},
     'spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'),
    ({"clusterIP": "10.96.0.300"},
     'spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'),
    ({"clusterIP": "10.96.0.5", "clusterIPs": ["10.96.0.6"]},
     'spec.clusterIPs: Invalid value: []string{"10.96.0.6"}: first value must match `clusterIP`'),
    ({"ports": [{"port": 80, "name": "a"}, {"port": 80, "name": "b"}]},
     'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, '
     'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}'),
    ({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30001, "name": "a"},
                                    {"port": 81, "nodePort": 30001, "name": "b"}]},
     # the allocator comes before validation, as upstream's
     "spec.ports[1].nodePort: Invalid value: 30001: provided port is already allocated"),
    ({"type": "ExternalName", "ports": []}, "spec.externalName: Required value"),
    ({"externalTrafficPolicy": "Local"},
     'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services'),
    # upstream's path is capitalised so
    ({"loadBalancerSourceRanges": ["10.0.0.0/8"]},
     "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'"),
    ({"ipFamilies": ["IPv5"]}, 'spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"'),
    ({"ipFamilyPolicy": "RequireDualStack"},
     'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack '
     "services"),
])
async def test_invalid_services_get_upstreams_messages(client: Any, spec: dict[str, Any], message: str) -> None:
    status, body = await create(client, service("bad", **spec))
    assert (status, body["message"]) == (422, f'Service "bad" is invalid: {message}')


async def test_a_service_name_must_be_a_dns_1035_label(client: Any) -> None:
    status, body = await create(client, service("1web"))
    assert body["details"]["causes"][0]["message"] == (
        'Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start '
        "with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex "
        "used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")


async def test_the_kubernetes_service_and_its_endpoints(client: Any) -> None:
    kubernetes = await (await client.get(f"{SERVICES}/kubernetes")).json()
    assert kubernetes["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}
    assert kubernetes["spec"]["clusterIP"] == "10.96.0.1"
    assert kubernetes["spec"]["ports"] == [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]
    endpoints = await (await client.get(f"{ENDPOINTS}/kubernetes")).json()
    assert endpoints["subsets"] == [{"addresses": [{"ip": "172.18.0.1"}],
                                     "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]
    rows = (await (await client.get(SLICES, headers={"Accept": TABLE})).json())["rows"]
    assert rows[0]["cells"][:4] == ["kubernetes", "IPv4", "6443", "172.18.0.1"]
    # deleted, it comes back (as upstream's bootstrap controller makes it again)
    assert (await client.delete(f"{SERVICES}/kubernetes")).status == 200
    assert (await client.get(f"{SERVICES}/kubernetes")).status == 200
    selected = await (await client.get(f"{SERVICES}?fieldSelector=spec.clusterIP=10.96.0.1")).json()
    assert [item["metadata"]["name"] for item in selected["items"]] == ["kubernetes"]


async def test_the_ranges_come_from_the_configuration(aiohttp_client: Any) -> None:
    client: TestClient[Any, Any] = await aiohttp_client(create_app(ServerConfig(
        service_cluster_ip_range="10.0.0.0/24", service_node_port_range="31000-31001")))
    assert (await (await client.get(f"{SERVICES}/kubernetes")).json())["spec"]["clusterIP"] == "10.0.0.1"
    for name in ("a", "b"):
        assert (await create(client, service(name, type="NodePort")))[0] == 201
    status, body = await create(client, service("c", type="NodePort"))
    assert (status, body["message"]) == (500, "Internal error occurred: failed to allocate a nodePort: range is full")


async def test_endpoints_and_slices_are_validated(client: Any) -> None:
    bad = await client.post(ENDPOINTS, json={"metadata": {"name": "web"}, "subsets": [
        {"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": 80}, {"port": 81}]}]})
    assert (await bad.json())["message"] == (
        'Endpoints "web" is invalid: [subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the '
        "loopback range (127.0.0.0/8, ::1/128), subsets[0].ports[0].name: Required value, subsets[0].ports[1].name: "
        "Required value]")
    good = await client.post(ENDPOINTS, json={"metadata": {"name": "web"}, "subsets": [
        {"addresses": [{"ip": "10.244.0.5"}, {"ip": "10.244.0.6"}], "ports": [{"port": 8080}]}]})
    assert good.status == 201
    assert (await good.json())["subsets"][0]["ports"] == [{"port": 8080, "protocol": "TCP"}]
    rows = (await (await client.get(ENDPOINTS, headers={"Accept": TABLE})).json())["rows"]
    assert {row["cells"][0]: row["cells"][1] for row in rows}["web"] == "10.244.0.5:8080,10.244.0.6:8080"
    created = await client.post(SLICES, json={"metadata": {"name": "web-abc"}, "addressType": "IPv4",
                                              "endpoints": [{"addresses": ["10.244.0.5"]}], "ports": [{"port": 80}]})
    assert (await created.json())["ports"] == [{"port": 80, "name": "", "protocol": "TCP"}]
    assert (await created.json())["metadata"]["generation"] == 1
    changed = await client.patch(f"{SLICES}/web-abc", json={"addressType": "IPv6"}, headers=MERGE)
    assert (await changed.json())["message"] == (
        'EndpointSlice.discovery.k8s.io "web-abc" is invalid: [endpoints[0].addresses[0]: Invalid value: '
        '"10.244.0.5": must be a valid IPv6 address, addressType: Invalid value: "IPv6": field is immutable]')


async def test_allocations_survive_a_restart_on_a_storage_file(aiohttp_client: Any, tmp_path: Path) -> None:
    config = ServerConfig(storage_file=tmp_path / "fakeapi.db", service_node_port_range="30000-30001")
    first: TestClient[Any, Any] = await aiohttp_client(create_app(config))
    status, created = await create(first, service(type="NodePort", clusterIP="10.96.0.20"))
    assert status == 201
    port = created["spec"]["ports"][0]["nodePort"]
    await first.close()
    second: TestClient[Any, Any] = await aiohttp_client(create_app(config))
    status, body = await create(second, service("again", clusterIP="10.96.0.20"))
    assert (status, body["details"]["causes"][0]["field"]) == (422, "spec.clusterIPs")
    status, body = await create(second, service("taken", type="NodePort", ports=[{"port": 80, "nodePort": port}]))
    assert body["message"] == (f'Service "taken" is invalid: spec.ports[0].nodePort: Invalid value: {port}: '
                               "provided port is already allocated")
    status, other = await create(second, service("other", type="NodePort"))
    assert other["spec"]["ports"][0]["nodePort"] == 30001 - (port - 30000)  # the one left
