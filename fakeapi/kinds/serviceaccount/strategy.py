"""ServiceAccount strategy (upstream pkg/registry/core/serviceaccount): secret references keep only their name,
and the deprecated enforce-mountable-secrets annotation draws a warning."""

from __future__ import annotations

from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict

ENFORCE_MOUNTABLE_SECRETS = "kubernetes.io/enforce-mountable-secrets"
_DEPRECATED_ANNOTATION = (f"metadata.annotations[{ENFORCE_MOUNTABLE_SECRETS}]: deprecated in v1.32+; prefer "
                          "separate namespaces to isolate access to mounted secrets")


class ServiceAccountStrategy(Strategy):
    validation_covers_object_meta = True  # validate_service_account checks ObjectMeta with DNS names

    def prepare_for_create(self, obj: JSON) -> None:
        _keep_secret_names(obj)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_service_account(obj)

    def warnings_on_create(self, obj: JSON) -> list[str]:
        return _annotation_warnings(obj)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        _keep_secret_names(new)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
        return errs + validate_service_account(new)

    def warnings_on_update(self, new: JSON, old: JSON) -> list[str]:
        return _annotation_warnings(new)


def validate_service_account(account: JSON) -> list[FieldError]:
    """Upstream's ValidateServiceAccount: metadata with a DNS-subdomain name, nothing else."""
    return validate_object_meta(as_dict(account.get("metadata")), True, "metadata", names.name_is_dns_subdomain)


def _keep_secret_names(account: JSON) -> None:
    """cleanSecretReferences: a reference in `secrets` is reduced to its name."""
    secrets = account.get("secrets")
    if isinstance(secrets, list):
        account["secrets"] = [{"name": ref["name"]} if isinstance(ref, dict) and ref.get("name") else {}
                              for ref in secrets]


def _annotation_warnings(account: JSON) -> list[str]:
    annotations = as_dict(as_dict(account.get("metadata")).get("annotations"))
    return [_DEPRECATED_ANNOTATION] if ENFORCE_MOUNTABLE_SECRETS in annotations else []
