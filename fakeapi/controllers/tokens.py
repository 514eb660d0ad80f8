"""The service account tokens controller (upstream pkg/controller/serviceaccount/tokens_controller.go): a
Secret of type `kubernetes.io/service-account-token` naming a ServiceAccount in its
`kubernetes.io/service-account.name` annotation gets a legacy token (`data.token`, signed by the server's
issuer key, with iss `kubernetes/serviceaccount`), `ca.crt` and `namespace`, and the annotation
`kubernetes.io/service-account.uid`; a Secret whose ServiceAccount is missing (or was made again under another
uid) is deleted, and so are an account's token Secrets when the account goes.

Like the other namespace-content controllers it works right after the change it reacts to has reached every
store listener, so a token Secret holds its token by the time a client reads it back.
"""

from __future__ import annotations

import base64

import orjson

from fakeapi.controllers.rootca import FAKE_CA_CERTIFICATE
from fakeapi.controllers.serviceaccounts import MANAGER
from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.registry.tokens.claims import legacy_claims
from fakeapi.registry.tokens.issuer import Issuer
from fakeapi.storage.store import Event

SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"
NAME_ANNOTATION = "kubernetes.io/service-account.name"
UID_ANNOTATION = "kubernetes.io/service-account.uid"
_QUOTED_TYPE = f'"{SERVICE_ACCOUNT_TOKEN}"'.encode()  # in a stored Secret's bytes: a quick first look


class TokensController:
    def __init__(self, secrets: Registry, service_accounts: Registry, issuer: Issuer,
                 ca_bundle: str = FAKE_CA_CERTIFICATE) -> None:
        self.secrets = secrets
        self.service_accounts = service_accounts
        self.issuer = issuer
        self.ca = base64.b64encode(ca_bundle.encode()).decode()

    def on_event(self, event: Event) -> None:
        """Store listener: a token Secret came or changed, or a ServiceAccount went."""
        key = event.key
        if key.resource == "secrets" and event.type != "DELETED" and _QUOTED_TYPE in event.data:
            self.secrets.store.after_delivery(lambda: self.sync_secret(key.namespace, key.name))
        elif key.resource == "serviceaccounts" and event.type == "DELETED":
            self.secrets.store.after_delivery(lambda: self.sync_deleted_account(key.namespace, key.name))

    def resume(self) -> None:
        """Go through the stored token Secrets, as upstream's controller does when it starts."""
        for data in self.secrets.list_all():
            secret = orjson.loads(data)
            if secret.get("type") == SERVICE_ACCOUNT_TOKEN:
                self.sync_secret(secret["metadata"]["namespace"], secret["metadata"]["name"])

    def sync_secret(self, namespace: str, name: str) -> None:
        secret = self.secrets.find(namespace, name)
        if secret is None or secret.get("type") != SERVICE_ACCOUNT_TOKEN or secret["metadata"].get("deletionTimestamp"):
            return
        annotations = secret["metadata"].get("annotations") or {}
        account = self.service_accounts.find(namespace, annotations.get(NAME_ANNOTATION, ""))
        wanted_uid = annotations.get(UID_ANNOTATION)
        try:
            if account is None or (wanted_uid and account["metadata"].get("uid") != wanted_uid):
                self.secrets.delete(namespace, name, DeleteOptions(uid=secret["metadata"].get("uid")))
                return
            self._fill(secret, account)
        except StatusError:
            pass  # changed or deleted meanwhile: the event of that change syncs it again

    def _fill(self, secret: JSON, account: JSON) -> None:
        data = secret.setdefault("data", {}) or {}
        secret["data"] = data
        metadata = secret["metadata"]
        annotations = metadata.setdefault("annotations", {})
        needs = (data.get("ca.crt") != self.ca, not data.get("namespace"), not data.get("token"),
                 annotations.get(UID_ANNOTATION) != account["metadata"].get("uid"))
        if not any(needs):
            return
        data["ca.crt"] = self.ca
        if not data.get("namespace"):
            data["namespace"] = base64.b64encode(metadata["namespace"].encode()).decode()
        if not data.get("token"):
            token = self.issuer.sign(legacy_claims(account, metadata["name"]))
            data["token"] = base64.b64encode(token.encode()).decode()
        annotations[NAME_ANNOTATION] = account["metadata"]["name"]
        annotations[UID_ANNOTATION] = account["metadata"].get("uid", "")
        self.secrets.update(metadata["namespace"], metadata["name"], secret, WriteOptions(field_manager=MANAGER))

    def sync_deleted_account(self, namespace: str, name: str) -> None:
        """The account's token Secrets go with it."""
        for data in self.secrets.list_all(namespace):
            secret = orjson.loads(data)
            annotations = secret["metadata"].get("annotations") or {}
            if secret.get("type") == SERVICE_ACCOUNT_TOKEN and annotations.get(NAME_ANNOTATION) == name:
                self.sync_secret(namespace, secret["metadata"]["name"])
