"""A client-certificate user made through the API, with kubectl: a CertificateSigningRequest created, listed
with kubectl's columns, `kubectl certificate approve|deny`, the certificate the kube-apiserver-client signer
issues from the `--tls-self-signed` CA, and that certificate authenticating its subject (fails without
kubectl)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.kubectl.conftest import Kubectl, Server, kubectl_binary, start_server, stop_server

CSR = """apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {{name: {name}}}
spec:
  request: {request}
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [client auth]
"""


def rows(output: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in output.strip().splitlines()]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """--tls-self-signed: the kubeconfig holds the CA and a client certificate for kubernetes-admin."""
    kubectl_binary()
    started = start_server(tmp_path_factory.mktemp("fakeapi-csr"), "--simulate", "none", "--tls-self-signed")
    yield started
    stop_server(started)


def new_request(kubectl: Kubectl, name: str, groups: tuple[str, ...]) -> bytes:
    """Create a CSR for `name` in `groups`; the private key's PEM."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([*(x509.NameAttribute(NameOID.ORGANIZATION_NAME, group) for group in groups),
                         x509.NameAttribute(NameOID.COMMON_NAME, name)])
    request = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    encoded = base64.b64encode(request.public_bytes(serialization.Encoding.PEM)).decode()
    kubectl.ok("create", "-f", kubectl.write(f"{name}.yaml", CSR.format(name=name, request=encoded)))
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def kubeconfig_for(server: Server, certificate: bytes, key: bytes, path: Path) -> str:
    config = yaml.safe_load(server.kubeconfig.read_text())
    config["users"][0]["user"] = {"client-certificate-data": base64.b64encode(certificate).decode(),
                                  "client-key-data": base64.b64encode(key).decode()}
    path.write_text(yaml.safe_dump(config))
    return str(path)


def test_an_approved_request_gives_a_certificate_that_authenticates_its_subject(kubectl: Kubectl, server: Server,
                                                                                tmp_path: Path) -> None:
    key = new_request(kubectl, "jane", ("editors",))
    listed = rows(kubectl.ok("get", "csr"))
    assert listed[0] == ["NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"]
    assert listed[1][0] == "jane" and listed[1][2:] == ["kubernetes.io/kube-apiserver-client", "kubernetes-admin",
                                                        "24h", "Pending"]
    assert kubectl.ok("certificate", "approve", "jane") == \
        "certificatesigningrequest.certificates.k8s.io/jane approved\n"
    assert rows(kubectl.ok("get", "csr", "jane"))[1][-1] == "Approved,Issued"
    certificate = base64.b64decode(kubectl.ok("get", "csr", "jane", "-o", "jsonpath={.status.certificate}"))
    whoami = kubectl("--kubeconfig", kubeconfig_for(server, certificate, key, tmp_path / "jane.kubeconfig"),
                     "auth", "whoami", "-o", "json")
    assert whoami.rc == 0, str(whoami)
    user = json.loads(whoami.out)["status"]["userInfo"]
    assert (user["username"], user["groups"]) == ("jane", ["editors", "system:authenticated"])


def test_a_denied_request_gets_no_certificate(kubectl: Kubectl) -> None:
    new_request(kubectl, "joe", ())
    assert kubectl.ok("certificate", "deny", "joe") == "certificatesigningrequest.certificates.k8s.io/joe denied\n"
    assert rows(kubectl.ok("get", "csr", "joe"))[1][-1] == "Denied"
    assert kubectl.ok("get", "csr", "joe", "-o", "jsonpath={.status.certificate}") == ""
    result = kubectl("certificate", "approve", "joe")
    assert result.rc == 1 and "is already Denied" in result.err, str(result)
