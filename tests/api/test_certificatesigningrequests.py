"""CertificateSigningRequests over HTTP: create (the requester recorded), upstream's validation messages,
/approval and /status, the Table columns, and the kube-apiserver-client signer issuing an approved request.

Expected answers: upstream's pkg/apis/certificates/validation, pkg/registry/certificates and
pkg/controller/certificates/signer (v1.32)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from fakeapi.app import create_app
from fakeapi.config import Authentication, ServerConfig
from fakeapi.http.keys import api_key
from fakeapi.machinery.users import UserInfo

CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
SIGNER = "kubernetes.io/kube-apiserver-client"
NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
TOKENS = {"alice-token": UserInfo("alice", "1001", ("dev",))}
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def request_pem(name: str = "jane", groups: tuple[str, ...] = ("editors",)) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([*(x509.NameAttribute(NameOID.ORGANIZATION_NAME, g) for g in groups),
                         x509.NameAttribute(NameOID.COMMON_NAME, name)])
    request = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    return request.public_bytes(serialization.Encoding.PEM)


def csr(name: str = "jane", **spec: Any) -> dict[str, Any]:
    body = {"request": base64.b64encode(request_pem()).decode(), "signerName": SIGNER, "usages": ["client auth"],
            **spec}
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": name}, "spec": body}


@pytest.fixture
async def api(aiohttp_client: Any) -> Any:
    app = create_app(ServerConfig(authentication=Authentication(TOKENS)))
    app[api_key].clock.freeze(NOW)
    return await aiohttp_client(app)


ALICE = {"Authorization": "Bearer alice-token"}


async def test_a_request_records_who_asked_and_starts_pending(api: Any) -> None:
    body = csr(expirationSeconds=3600, username="mallory", groups=["system:masters"],
               status={"conditions": [{"type": "Approved", "status": "True"}]})
    response = await api.post(CSRS, json=body, headers=ALICE)
    created = await response.json()
    assert response.status == 201, created
    assert {key: created["spec"][key] for key in ("username", "uid", "groups")} == {
        "username": "alice", "uid": "1001", "groups": ["dev", "system:authenticated"]}
    assert created.get("status", {}) == {}
    table = await (await api.get(CSRS, headers={**ALICE, "Accept": TABLE})).json()
    assert [column["name"] for column in table["columnDefinitions"]] == [
        "Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"]
    assert table["rows"][0]["cells"] == ["jane", "0s", SIGNER, "alice", "60m", "Pending"]


@pytest.mark.parametrize(("spec", "message"), [
    ({"request": base64.b64encode(b"not a pem").decode()},
     "spec.request: Invalid value: []byte{0x6e, 0x6f, 0x74, 0x20, 0x61, 0x20, 0x70, 0x65, 0x6d}: PEM block type "
     "must be CERTIFICATE REQUEST"),
    ({"signerName": ""}, "spec.signerName: Required value: signerName must be provided"),
    ({"signerName": "example"}, "spec.signerName: Invalid value: \"example\": must be a fully qualified domain and "
                                "path of the form 'example.com/signer-name'"),
    ({"signerName": "example/signer"}, "spec.signerName: Invalid value: \"example\": should be a domain with at "
                                       "least two segments separated by dots"),
    ({"usages": []}, "spec.usages: Required value: usages must be provided"),
    ({"usages": ["client auth", "client auth"]}, 'spec.usages[1]: Duplicate value: "client auth"'),
    ({"expirationSeconds": 599}, "spec.expirationSeconds: Invalid value: 599: may not specify a duration less "
                                 "than 600 seconds (10 minutes)"),
    ({"signerName": "kubernetes.io/legacy-unknown"}, 'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown"'
                                                     ": the legacy signerName is not allowed via this API version"),
])
async def test_invalid_requests_get_upstreams_messages(api: Any, spec: dict[str, Any], message: str) -> None:
    response = await api.post(CSRS, json=csr(**spec))
    body = await response.json()
    assert (response.status, body["message"]) == (
        422, f'CertificateSigningRequest.certificates.k8s.io "jane" is invalid: {message}')
    assert (await api.get(f"{CSRS}/jane")).status == 404


async def test_an_unknown_usage_lists_the_supported_ones(api: Any) -> None:
    response = await api.post(CSRS, json=csr(usages=["flying"]))
    message = (await response.json())["message"]
    assert message.startswith('CertificateSigningRequest.certificates.k8s.io "jane" is invalid: spec.usages[0]: '
                              'Unsupported value: "flying": supported values: "any", "cert sign", "client auth",')


async def test_approval_is_set_through_approval_only_and_the_signer_issues_a_certificate(api: Any) -> None:
    assert (await api.post(CSRS, json=csr(expirationSeconds=86400))).status == 201
    stored = await (await api.get(f"{CSRS}/jane")).json()
    approved = {"type": "Approved", "status": "True", "reason": "Test", "message": "ok"}
    stored["status"] = {"conditions": [approved]}
    response = await api.put(f"{CSRS}/jane/status", json=stored)
    assert (await response.json())["status"].get("conditions") is None  # /status cannot approve
    stored = await (await api.get(f"{CSRS}/jane")).json()
    stored["status"] = {"conditions": [approved]}
    response = await api.put(f"{CSRS}/jane/approval", json=stored)
    assert response.status == 200
    issued = await (await api.get(f"{CSRS}/jane")).json()
    [condition] = issued["status"]["conditions"]
    assert condition["type"] == "Approved" and condition["lastUpdateTime"] and condition["lastTransitionTime"]
    certificate = x509.load_pem_x509_certificate(base64.b64decode(issued["status"]["certificate"]))
    assert certificate.subject.rfc4514_string() == "CN=jane,O=editors"
    assert (certificate.not_valid_after_utc - certificate.not_valid_before_utc).total_seconds() == 86400 + 300
    table = await (await api.get(CSRS, headers={"Accept": TABLE})).json()
    assert table["rows"][0]["cells"][-1] == "Approved,Issued"
    denied = dict(issued, status={"conditions": [{"type": "Denied", "status": "True"}]})
    response = await api.put(f"{CSRS}/jane/approval", json=denied)
    assert (response.status, (await response.json())["message"]) == (
        422, 'CertificateSigningRequest.certificates.k8s.io "jane" is invalid: status.conditions: Forbidden: '
             'updates may not remove a condition of type "Approved"')


async def test_a_request_for_server_usages_fails_in_the_signer(api: Any) -> None:
    assert (await api.post(CSRS, json=csr(usages=["server auth"]))).status == 201
    stored = await (await api.get(f"{CSRS}/jane")).json()
    stored["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
    assert (await api.put(f"{CSRS}/jane/approval", json=stored)).status == 200
    status = (await (await api.get(f"{CSRS}/jane")).json())["status"]
    assert "certificate" not in status
    assert [(c["type"], c.get("reason"), c.get("message")) for c in status["conditions"]] == [
        ("Approved", None, None),
        ("Failed", "SignerValidationFailure", "invalid usage for client certificate: server auth")]


async def test_a_request_made_by_server_side_apply_records_who_asked(api: Any) -> None:
    response = await api.patch(f"{CSRS}/jane", params={"fieldManager": "me"}, json=csr(),
                               headers={**ALICE, "Content-Type": "application/apply-patch+yaml"})
    assert response.status == 201
    assert (await response.json())["spec"]["username"] == "alice"


async def test_the_cluster_signing_ca_given_signs(aiohttp_client: Any) -> None:
    from fakeapi.pki import Authority

    authority = Authority.new("signer")
    client = await aiohttp_client(create_app(ServerConfig(cluster_signing=(authority.certificate, authority.key))))
    assert (await client.post(CSRS, json=csr())).status == 201
    stored = await (await client.get(f"{CSRS}/jane")).json()
    stored["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
    assert (await client.put(f"{CSRS}/jane/approval", json=stored)).status == 200
    issued = await (await client.get(f"{CSRS}/jane")).json()
    certificate = x509.load_pem_x509_certificate(base64.b64decode(issued["status"]["certificate"]))
    assert certificate.issuer == x509.load_pem_x509_certificate(authority.certificate).subject
    certificate.verify_directly_issued_by(x509.load_pem_x509_certificate(authority.certificate))


async def test_a_name_that_is_no_path_segment_is_refused_after_the_kinds_own_checks(api: Any) -> None:
    response = await api.post(CSRS, json=csr(name="a%b"))
    assert (response.status, (await response.json())["message"]) == (
        422, 'CertificateSigningRequest.certificates.k8s.io "a%b" is invalid: metadata.name: Invalid value: "a%b": '
             'may not contain \'%\'')
