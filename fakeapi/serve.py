"""`fakeapi serve`: read the credentials files, seed, bind, write the kubeconfig, announce, serve until
SIGINT or SIGTERM.

What can stop a start (a storage file that cannot be used, a port in use, an unknown host, an
unreadable seed, token or certificate file, an unwritable kubeconfig path) is raised as a StartupError:
one line that names the cause and the fix, which the CLI prints instead of a traceback.
"""

from __future__ import annotations

import asyncio
import errno
import gc
import shlex
import signal
import socket
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from fakeapi.app import create_app
from fakeapi.cluster import Api
from fakeapi.config import ServerConfig
from fakeapi.http.accesslog import stream_logger
from fakeapi.http.keys import api_key
from fakeapi.kubeconfig import credentials_for, write_kubeconfig
from fakeapi.listener import Listener, app_runner
from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.serviceaccountsettings import DEFAULT_ISSUER, ServiceAccountSettings
from fakeapi.machinery.users import UserInfo
from fakeapi.seeding import seed
from fakeapi.storage.store import StorageError
from fakeapi.tls import ServerTLS, TLSError, client_cas_from_file, from_files, self_signed
from fakeapi.tokenfile import TokenFileError, parse_token_file

GC_THRESHOLD = 20_000  # allocations between young-generation collections (CPython's default: 700)


class StartupError(Exception):
    """Why the server cannot start, as one line naming the cause and the fix."""


async def serve(config: ServerConfig, host: str, port: int, kubeconfig: Path | None,
                seed_files: list[Path] | None = None, log_requests: bool = False, tls: ServerTLS | None = None) -> None:
    try:
        app = create_app(config)
    except StorageError as error:
        raise StartupError(str(error)) from None
    api = app[api_key]
    for seed_file in [] if api.restarted else seed_files or []:  # seed files fill a new store only
        seed_from_file(api, seed_file)
    # Everything built so far (modules, schemas, plans) lives as long as the server: keep it out of
    # the collector's way, and collect young objects less often (each request allocates thousands).
    # (No gc.collect() first: it finds nothing after the imports and would slow every start.)
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    runner = app_runner(app, stream_logger(sys.stderr) if log_requests else None)
    await runner.setup()
    try:
        site = Listener(runner, host, port, tls.context() if tls is not None else None)
        try:
            await site.start()
        except (OSError, UnicodeError) as error:  # UnicodeError: a host name IDNA cannot encode
            raise bind_error(error, host, port) from None
        url = f"{'https' if tls is not None else 'http'}://{_url_host(host)}:{site.port}"
        api.publish_address(host, site.port)
        if kubeconfig is not None:
            try:
                write_kubeconfig(kubeconfig, url, tls.trusted if tls is not None else None,
                                 credentials_for(tls, config.authentication.tokens))
            except OSError as error:  # FileExistsError: a folder on the path is a file
                reason = f"{error.filename} is not a folder" if isinstance(error, FileExistsError) else \
                    _reason(error)
                raise StartupError(f"cannot write the kubeconfig {kubeconfig}: {reason}; "
                                   f"pass a writable path with --kubeconfig") from None
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        print(f"fakeapi serving on {url}", flush=True)
        print(kubeconfig_hint(kubeconfig), flush=True)
        print(f"authorization mode: {','.join(config.authorization_modes)}", flush=True)
        await stop.wait()
    finally:
        await runner.cleanup()


def service_account_settings(issuers: list[str] | None, signing_key_file: Path | None, key_files: list[Path] | None,
                             api_audiences: tuple[str, ...], max_expiration: int,
                             extend_expiration: bool = True) -> ServiceAccountSettings:
    """The --service-account-* flags, their files read and checked (StartupError naming the file and flag)."""
    from fakeapi.machinery.jws import KeyFileError, SigningKey, verifying_keys_from_pem

    signing_key = verifying = None
    checks: list[tuple[Path, str, Callable[[bytes], object]]] = []
    if signing_key_file is not None:
        checks.append((signing_key_file, "--service-account-signing-key-file", SigningKey.from_pem))
    checks.extend((path, "--service-account-key-file", verifying_keys_from_pem) for path in key_files or ())
    for path, flag, check in checks:
        pem = _read(path, flag)
        try:
            check(pem)
        except KeyFileError as error:
            raise StartupError(f"the service account key file {path} cannot be used: {error}; check {flag}") from None
        if flag == "--service-account-signing-key-file":
            signing_key = pem
        else:
            verifying = (verifying or b"") + pem + b"\n"
    if max_expiration < 0:
        raise StartupError("--service-account-max-token-expiration must be 0 (none) or more seconds")
    return ServiceAccountSettings(issuers=tuple(issuers) if issuers else (DEFAULT_ISSUER,), api_audiences=api_audiences,
                                  signing_key=signing_key, verifying_keys=verifying, max_expiration=max_expiration,
                                  extend_expiration=extend_expiration)


def cluster_signing(certificate_file: Path | None, key_file: Path | None,
                    tls: ServerTLS | None) -> tuple[bytes, bytes] | None:
    """The CA that signs approved client CSRs: the --cluster-signing-* files (checked to be a CA certificate
    and its key), else the --tls-self-signed CA, else None (the signer makes one)."""
    if certificate_file is None or key_file is None:
        return tls.signing_pair() if tls is not None else None
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    certificate = _read(certificate_file, "--cluster-signing-cert-file")
    key = _read(key_file, "--cluster-signing-key-file")
    try:
        public = x509.load_pem_x509_certificate(certificate).public_key()
        private = serialization.load_pem_private_key(key, password=None)
    except (ValueError, TypeError):
        raise StartupError(f"the cluster signing files {certificate_file} and {key_file} hold no PEM certificate "
                           "and unencrypted key; check --cluster-signing-cert-file and --cluster-signing-key-file"
                           ) from None
    der = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    if public.public_bytes(*der) != private.public_key().public_bytes(*der):
        raise StartupError(f"the key {key_file} is not the key of the certificate {certificate_file}; check "
                           "--cluster-signing-cert-file and --cluster-signing-key-file")
    return certificate, key


def _read(path: Path, flag: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise StartupError(f"cannot read {path}: {_reason(error)}; check the path given to {flag}") from None


def read_token_file(path: Path) -> dict[str, UserInfo]:
    """The tokens of `--token-auth-file`; upstream's warnings (empty and repeated tokens) go to stderr."""
    try:
        text = path.read_bytes().decode("utf-8", "surrogateescape")  # as aiohttp decodes header values
    except OSError as error:
        raise StartupError(f"cannot read the token file {path}: {_reason(error)}; check the path given to "
                           f"--token-auth-file") from None
    try:
        tokens, warnings = parse_token_file(text, str(path))
    except TokenFileError as error:
        raise StartupError(f"the token file {path} cannot be used: {error}; fix the file") from None
    for warning in warnings:
        print(f"fakeapi: warning: {warning}", file=sys.stderr)
    return tokens


def server_tls(host: str, self_signed_certificate: bool, certificate_file: Path | None, key_file: Path | None,
               client_ca_file: Path | None, names: Iterable[str] = ()) -> ServerTLS | None:
    """TLS as the flags ask (None: plain http); a self-signed certificate also names `names` (those of
    --allowed-hosts). The CLI has checked that the flags go together."""
    try:
        client_cas = client_cas_from_file(client_ca_file) if client_ca_file is not None else b""
        if self_signed_certificate:
            return self_signed(host, client_cas, names)
        if certificate_file is not None and key_file is not None:
            tls = from_files(certificate_file, key_file)
            return ServerTLS(tls.certificate, tls.key, client_cas, tls.trusted)
    except TLSError as error:
        raise StartupError(str(error)) from None
    return None


def seed_from_file(api: Api, path: Path) -> None:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise StartupError(f"cannot read the seed file {path}: {_reason(error)}; "
                           f"check the path given to --seed-file") from None
    try:
        seed(api, data)
    except StatusError as error:
        cause = " ".join(error.message.split())  # YAML errors span lines; the answer is one line
        raise StartupError(f"the seed file {path} cannot be seeded: {cause}; fix the file or leave it "
                           f"out") from None


def bind_error(error: OSError | UnicodeError, host: str, port: int) -> StartupError:
    if isinstance(error, socket.gaierror | UnicodeError):
        return StartupError(f"cannot resolve the host {host!r}; pass an address of this machine "
                            f"with --host (e.g. 127.0.0.1, or 0.0.0.0 for every interface)")
    if error.errno == errno.EADDRINUSE:
        return StartupError(f"port {port} is in use; pick another with --port (0 picks a free one)")
    if error.errno == errno.EADDRNOTAVAIL:
        return StartupError(f"{host} is not an address of this machine; pass one with --host "
                            f"(e.g. 127.0.0.1, or 0.0.0.0 for every interface)")
    if error.errno == errno.EACCES:
        return StartupError(f"no permission to listen on port {port}; pick a port above 1023 with --port")
    return StartupError(f"cannot listen on {host} port {port}: {_reason(error)}; check --host and --port")


def kubeconfig_hint(kubeconfig: Path | None) -> str:
    if kubeconfig is None:
        return "no kubeconfig written; pass --kubeconfig PATH to write one for kubectl and other clients"
    return (f"kubeconfig written to {kubeconfig}; use it with: "
            f"export KUBECONFIG={shlex.quote(str(kubeconfig.resolve()))}")


def _reason(error: OSError) -> str:
    return (error.strerror or str(error)).lower()


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host
