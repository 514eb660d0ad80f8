"""Certificates: a CA of fakeapi's own, the server certificate and the client certificates it issues, and
reading the certificates a user gives. Made with `cryptography`, imported only where certificates are.

The layout is upstream's self-signed one (client-go's GenerateSelfSignedCertKey): a CA and a serving
certificate it signs, both valid from an hour ago for a year, the serving one for server authentication
with the names and addresses clients use. Keys are EC P-256 rather than upstream's RSA-2048: every TLS
client takes them, and making one takes well under a millisecond where an RSA key takes tens.
Client certificates name the user as upstream's x509 authenticator reads them: CN the user name, one O
per group.
"""

from __future__ import annotations

import datetime
import ipaddress
import re
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALIDITY = datetime.timedelta(days=365)
BACKDATE = datetime.timedelta(hours=1)  # clocks a little behind still accept a certificate made now
_PEM_CERTIFICATE = re.compile(rb"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----\s*", re.DOTALL)


@dataclass(frozen=True)
class KeyPair:
    """A certificate (PEM; a chain, leaf first, for a server) and its private key (PEM, PKCS#8)."""

    certificate: bytes
    key: bytes


class Authority:
    """A CA that issues the server's certificate and client certificates."""

    def __init__(self, certificate: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> None:
        self._certificate = certificate
        self._key = key

    @classmethod
    def new(cls, name: str) -> Authority:
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name}-ca@{_unix_now()}")])
        certificate = (
            _builder(subject, subject, key.public_key())
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(_key_usage(cert_sign=True), critical=True)
            .sign(key, hashes.SHA256())
        )
        return cls(certificate, key)

    @property
    def certificate(self) -> bytes:
        """The CA's certificate (PEM): what clients trust."""
        return self._certificate.public_bytes(serialization.Encoding.PEM)

    @property
    def key(self) -> bytes:
        """The CA's private key (PEM, PKCS#8): what signs the certificates approved CSRs get."""
        return _key_pem(self._key)

    def issue_server(self, hosts: list[str]) -> KeyPair:
        """A serving certificate for `hosts` (addresses become IP names, the rest DNS names), followed by
        the CA's certificate as upstream's self-signed .crt is."""
        names: list[x509.GeneralName] = []
        for host in dict.fromkeys(hosts):
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                names.append(x509.DNSName(host))
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{hosts[0]}@{_unix_now()}")])
        pair = self._issue(subject, ExtendedKeyUsageOID.SERVER_AUTH, x509.SubjectAlternativeName(names))
        return KeyPair(pair.certificate + self.certificate, pair.key)

    def issue_client(self, username: str, groups: tuple[str, ...]) -> KeyPair:
        """A client certificate naming the user: CN `username`, an O for each group (empty ones left out:
        a certificate cannot hold them)."""
        attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, group) for group in groups if group]
        subject = x509.Name([*attributes, x509.NameAttribute(NameOID.COMMON_NAME, username)])
        return self._issue(subject, ExtendedKeyUsageOID.CLIENT_AUTH, None)

    def _issue(self, subject: x509.Name, usage: x509.ObjectIdentifier,
               names: x509.SubjectAlternativeName | None) -> KeyPair:
        key = ec.generate_private_key(ec.SECP256R1())
        issuer_key_id = self._certificate.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
        builder = (
            _builder(subject, self._certificate.subject, key.public_key())
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(_key_usage(cert_sign=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(issuer_key_id),
                           critical=False)
        )
        if names is not None:
            builder = builder.add_extension(names, critical=False)
        certificate = builder.sign(self._key, hashes.SHA256())
        return KeyPair(certificate.public_bytes(serialization.Encoding.PEM), _key_pem(key))


def chain_root(pem: bytes) -> bytes | None:
    """The self-signed certificate that ends the chain in `pem` (PEM), if it ends with one: what a client
    must trust to reach a server using that chain (None: the chain leans on roots the client has)."""
    blocks = _PEM_CERTIFICATE.findall(pem)
    if not blocks:
        return None
    last = x509.load_pem_x509_certificate(blocks[-1])
    return blocks[-1].strip() + b"\n" if last.issuer == last.subject else None


def certificates(pem: bytes) -> int:
    """How many certificates `pem` holds (each checked to parse; ValueError for one that does not)."""
    blocks = _PEM_CERTIFICATE.findall(pem)
    for block in blocks:
        x509.load_pem_x509_certificate(block)
    return len(blocks)


def _builder(subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now + VALIDITY)
        # OpenSSL's strict checks (Python 3.13's default) want key identifiers on every certificate
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
    )


def _key_usage(cert_sign: bool) -> x509.KeyUsage:
    return x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                         data_encipherment=False, key_agreement=False, key_cert_sign=cert_sign,
                         crl_sign=cert_sign, encipher_only=False, decipher_only=False)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _unix_now() -> int:
    return int(datetime.datetime.now(datetime.UTC).timestamp())
