"""Writing a kubeconfig that points kubectl and the Python clients at a fakeapi server: its URL, the CA
to trust over https, and the credentials to present."""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from fakeapi.machinery.users import UserInfo
from fakeapi.tls import ServerTLS

CONTEXT = "fakeapi"
# whom a client certificate fakeapi issues names when no user is given: kubeadm's admin, by its classic name
ADMIN = UserInfo("kubernetes-admin", groups=("system:masters",))


@dataclass(frozen=True)
class Credentials:
    """What a client presents: a bearer token, or a client certificate and its key (PEM)."""

    token: str | None = None
    client_certificate: bytes | None = None
    client_key: bytes | None = None


def credentials_for(tls: ServerTLS | None, tokens: Mapping[str, UserInfo] | None,
                    user: UserInfo = ADMIN) -> Credentials | None:
    """What a kubeconfig for the server presents: the first token of its token file, else a client
    certificate for `user` that the server's own CA issues, else nothing (the anonymous user)."""
    if tokens:
        return Credentials(token=next(iter(tokens)))
    if tls is not None and tls.authority is not None:
        pair = tls.authority.issue_client(user.username, user.groups)
        return Credentials(client_certificate=pair.certificate, client_key=pair.key)
    return None


def kubeconfig(url: str, ca: bytes | None = None, credentials: Credentials | None = None) -> dict[str, object]:
    cluster: dict[str, str] = {"server": url}
    if ca is not None:
        cluster["certificate-authority-data"] = _base64(ca)
    user: dict[str, str] = {}
    if credentials is not None and credentials.token is not None:
        user["token"] = credentials.token
    if credentials is not None and credentials.client_certificate is not None and credentials.client_key is not None:
        user["client-certificate-data"] = _base64(credentials.client_certificate)
        user["client-key-data"] = _base64(credentials.client_key)
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CONTEXT, "cluster": cluster}],
        "users": [{"name": CONTEXT, "user": user}],
        "contexts": [{"name": CONTEXT, "context": {"cluster": CONTEXT, "user": CONTEXT, "namespace": "default"}}],
        "current-context": CONTEXT,
        "preferences": {},
    }


def write_kubeconfig(path: Path, url: str, ca: bytes | None = None, credentials: Credentials | None = None) -> None:
    """Write the kubeconfig; one holding credentials is readable by its owner only (mode 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    import yaml  # only when a kubeconfig is written

    text = yaml.safe_dump(kubeconfig(url, ca, credentials), sort_keys=False)
    if credentials is None:
        path.write_text(text)
        return
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        os.fchmod(file.fileno(), 0o600)  # an existing file keeps its mode through O_CREAT
        file.write(text)


def _base64(pem: bytes) -> str:
    return base64.b64encode(pem).decode()
