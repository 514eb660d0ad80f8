"""The `kubernetes.io/kube-apiserver-client` signer (upstream pkg/controller/certificates/signer, kube-
controller-manager's csrsigning controller): an approved CertificateSigningRequest for that signer, neither
denied nor failed and not yet issued, gets `status.certificate`, a client certificate for the request's
subject signed by the cluster signing CA, valid from five minutes ago for spec.expirationSeconds (at most a
year, kube-controller-manager's --cluster-signing-duration). A request whose usages are not a client
certificate's gets upstream's Failed condition.

The CA is the one `--tls-self-signed` makes (whose client certificates the server accepts, so a certificate
issued here authenticates its subject), or else one made at the first certificate (the server trusts it only
if a --client-ca-file names it).
"""

from __future__ import annotations

import base64
import datetime
from typing import TYPE_CHECKING

import orjson

from fakeapi.controllers.serviceaccounts import MANAGER
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions
from fakeapi.storage.store import Event

if TYPE_CHECKING:
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric.types import CertificateIssuerPrivateKeyTypes

SIGNER = "kubernetes.io/kube-apiserver-client"
BACKDATE = datetime.timedelta(minutes=5)
MAX_DURATION = datetime.timedelta(days=365)  # --cluster-signing-duration's default
OPTIONAL_USAGES = ("digital signature", "key encipherment")
CLIENT_AUTH = "client auth"


class CSRSigningController:
    def __init__(self, requests: Registry, status: Registry, clock: Clock,
                 signing: tuple[bytes, bytes] | None = None) -> None:
        self.requests = requests
        self.status = status  # the /status subresource, where the certificate is written
        self.clock = clock
        self._signing = signing  # (CA certificate, its key), PEM
        self._ca: tuple[x509.Certificate, CertificateIssuerPrivateKeyTypes] | None = None

    def on_event(self, event: Event) -> None:
        """Store listener: a request came or changed."""
        key = event.key
        if key.resource == self.requests.storage_resource and event.type != "DELETED" \
                and b'"Approved"' in event.data and SIGNER.encode() in event.data:
            self.requests.store.after_delivery(lambda: self.sync(key.name))

    def resume(self) -> None:
        for data in self.requests.list_all():
            self.sync(orjson.loads(data)["metadata"]["name"])

    def sync(self, name: str) -> None:
        csr = self.requests.find("", name)
        if csr is None or not _to_issue(csr):
            return
        spec: JSON = csr["spec"]
        problem = _usage_problem(list(spec.get("usages") or []))
        status: JSON = csr.setdefault("status", {})
        if problem:
            status.setdefault("conditions", []).append({
                "type": "Failed", "status": "True", "reason": "SignerValidationFailure", "message": problem,
                "lastUpdateTime": self.clock.timestamp()})
        else:
            status["certificate"] = base64.b64encode(self._issue(spec)).decode()
        try:
            self.status.update("", name, csr, WriteOptions(field_manager=MANAGER))
        except StatusError:
            pass  # changed meanwhile: that change's event syncs it again

    def _issue(self, spec: JSON) -> bytes:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization

        ca, key = self._authority()
        request = x509.load_pem_x509_csr(base64.b64decode(spec["request"]))
        now = self.clock.now()
        seconds = spec.get("expirationSeconds")
        duration = min(datetime.timedelta(seconds=seconds), MAX_DURATION) if isinstance(seconds, int) \
            else MAX_DURATION
        not_after = min(now + duration, ca.not_valid_after_utc)
        usages = set(spec.get("usages") or [])
        ca_key_id = ca.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
        builder = (
            x509.CertificateBuilder()
            .subject_name(request.subject)
            .issuer_name(ca.subject)
            .public_key(request.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - BACKDATE)
            .not_valid_after(not_after)
        )
        if usages & set(OPTIONAL_USAGES):  # Go writes no KeyUsage extension when no bit is set
            builder = builder.add_extension(x509.KeyUsage(
                digital_signature="digital signature" in usages, content_commitment=False,
                key_encipherment="key encipherment" in usages, data_encipherment=False, key_agreement=False,
                key_cert_sign=False, crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        certificate = (
            builder
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_key_id), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(request.public_key()), critical=False)
            .sign(key, hashes.SHA256())
        )
        return certificate.public_bytes(serialization.Encoding.PEM)

    def _authority(self) -> tuple[x509.Certificate, CertificateIssuerPrivateKeyTypes]:
        if self._ca is None:
            from cryptography import x509
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import ec, rsa

            certificate, key = self._signing if self._signing is not None else _new_authority()
            loaded = serialization.load_pem_private_key(key, password=None)
            assert isinstance(loaded, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey)  # the CAs fakeapi makes
            self._ca = x509.load_pem_x509_certificate(certificate), loaded
            return self._ca
        return self._ca


def _to_issue(csr: JSON) -> bool:
    """Approved, for this signer, neither denied nor failed, without a certificate yet."""
    status: JSON = csr.get("status") or {}
    kinds = {item.get("type") for item in status.get("conditions") or [] if isinstance(item, dict)
             and item.get("status") == "True"}
    return ((csr.get("spec") or {}).get("signerName") == SIGNER and "Approved" in kinds
            and not kinds & {"Denied", "Failed"} and not status.get("certificate"))


def _usage_problem(usages: list[str]) -> str:
    """validAPIServerClientUsages: client auth, and optionally digital signature and key encipherment."""
    for usage in usages:
        if usage not in (*OPTIONAL_USAGES, CLIENT_AUTH):
            return f"invalid usage for client certificate: {usage}"
    if CLIENT_AUTH not in usages:
        return f"missing required usage for client certificate: {CLIENT_AUTH}"
    return ""


def _new_authority() -> tuple[bytes, bytes]:
    """A CA of the signer's own (EC P-256, valid from an hour ago for ten years)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"fakeapi-csr-signer@{int(now.timestamp())}")])
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return (certificate.public_bytes(serialization.Encoding.PEM),
            key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()))


