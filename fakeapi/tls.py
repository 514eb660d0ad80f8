"""TLS for `fakeapi serve` and the in-process server: the serving certificate, the CAs whose client
certificates name users, and what clients must trust.

Two ways in: certificate and key files a user made (`--tls-cert-file`, `--tls-private-key-file`), or a
CA fakeapi makes at start with a certificate for the names clients use (`--tls-self-signed`). Only the
second can issue client certificates, so only it gives kubeconfigs a certificate to authenticate with;
its CA is trusted for client certificates besides any `--client-ca-file`.

The server asks for a client certificate without requiring one (upstream's RequestClientCert), and only
when client CAs are given. A difference from upstream: Python's TLS layer checks the certificate during
the handshake, so one that the client CAs did not sign ends the handshake (kubectl: "remote error: tls:
unknown certificate authority") where kube-apiserver completes it and answers 401.
"""

from __future__ import annotations

import ssl
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fakeapi.pki import Authority

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_HOSTS = ("", "0.0.0.0", "::")


class TLSError(ValueError):
    """Why the given certificates cannot serve, as one line naming the file and the flag."""


@dataclass(frozen=True)
class ServerTLS:
    certificate: bytes  # PEM: the serving certificate, then the rest of its chain
    key: bytes  # PEM
    client_cas: bytes = b""  # PEM: CAs whose client certificates name users (empty: none is asked for)
    trusted: bytes | None = None  # PEM: the CA clients must trust to reach the server (None: their own roots)
    authority: Authority | None = None  # the CA fakeapi made, which issued `certificate` (self-signed only)

    def signing_pair(self) -> tuple[bytes, bytes] | None:
        """The CA (certificate, key; PEM) that signs approved client CSRs: the self-signed CA, whose client
        certificates the server accepts (None with certificate files: fakeapi holds no CA key then)."""
        return (self.authority.certificate, self.authority.key) if self.authority is not None else None

    def context(self) -> ssl.SSLContext:
        """The server's TLS context: TLS 1.2 or later, HTTP/1.1 (the only protocol aiohttp serves)."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.set_alpn_protocols(["http/1.1"])
        with tempfile.TemporaryDirectory(prefix="fakeapi-tls-") as directory:  # load_cert_chain reads files
            certificate, key = Path(directory) / "tls.crt", Path(directory) / "tls.key"
            certificate.write_bytes(self.certificate)
            key.touch(mode=0o600)
            key.write_bytes(self.key)
            context.load_cert_chain(certificate, key, password=_no_password)
        if self.client_cas:
            context.load_verify_locations(cadata=self.client_cas.decode("ascii", "replace"))
            context.verify_mode = ssl.CERT_OPTIONAL
        return context


def self_signed(host: str, client_cas: bytes = b"", names: Iterable[str] = ()) -> ServerTLS:
    """A new CA and a certificate it signs for `host` (unless it is a wildcard address), loopback and
    `names` (the other names clients reach the server by); client certificates of that CA (and of
    `client_cas`, PEM) name users."""
    from fakeapi.pki import Authority

    hosts = list(dict.fromkeys([*([] if host in WILDCARD_HOSTS else [host]), *LOOPBACK_NAMES, *sorted(names)]))
    authority = Authority.new("fakeapi")
    try:
        serving = authority.issue_server(hosts)
    except ValueError as error:  # a name a certificate cannot hold (not ASCII: give its xn-- form)
        raise TLSError(f"cannot make a certificate for the names {', '.join(hosts)}: {error}") from None
    return ServerTLS(serving.certificate, serving.key, authority.certificate + client_cas, authority.certificate,
                     authority)


def from_files(certificate_file: Path, key_file: Path) -> ServerTLS:
    """The certificate chain and key a user gave; clients must trust the self-signed certificate ending
    the chain, if it ends with one (their own roots otherwise). TLSError when they cannot serve."""
    from fakeapi.pki import certificates, chain_root

    certificate = _read(certificate_file, "certificate file", "--tls-cert-file")
    key = _read(key_file, "private key file", "--tls-private-key-file")
    try:
        found = certificates(certificate)
    except ValueError as error:
        raise TLSError(f"the certificate file {certificate_file} holds a certificate that cannot be read ({error}); "
                       f"check --tls-cert-file") from None
    if not found:
        raise TLSError(f"the certificate file {certificate_file} holds no PEM certificate; check --tls-cert-file")
    tls = ServerTLS(certificate, key, trusted=chain_root(certificate))
    try:
        tls.context()
    except (ssl.SSLError, _EncryptedKey) as error:
        raise TLSError(f"cannot serve with the certificate file {certificate_file} and the private key file "
                       f"{key_file}: {_why(error)}; check --tls-cert-file and --tls-private-key-file") from None
    return tls


def client_cas_from_file(path: Path) -> bytes:
    """The CAs of `--client-ca-file` (PEM); TLSError when it holds none."""
    from fakeapi.pki import certificates

    cas = _read(path, "client CA file", "--client-ca-file")
    try:
        found = certificates(cas)
    except ValueError as error:
        raise TLSError(f"the client CA file {path} holds a certificate that cannot be read ({error}); check "
                       f"--client-ca-file") from None
    if not found:
        raise TLSError(f"the client CA file {path} holds no PEM certificate; check --client-ca-file")
    return cas


def _read(path: Path, what: str, flag: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise TLSError(f"cannot read the {what} {path}: {(error.strerror or str(error)).lower()}; check "
                       f"{flag}") from None


class _EncryptedKey(Exception):
    def __str__(self) -> str:
        return "the private key is encrypted (give it unencrypted, as kube-apiserver takes it)"


def _no_password() -> bytes:
    """Asked for only when the key is encrypted: without it, OpenSSL would prompt on the terminal."""
    raise _EncryptedKey


def _why(error: Exception) -> str:
    if isinstance(error, ssl.SSLError) and error.reason == "KEY_VALUES_MISMATCH":
        return "the private key does not match the certificate"
    if isinstance(error, ssl.SSLError) and error.reason:
        return f"not a PEM certificate and key OpenSSL takes ({error.reason})"
    return str(error)
