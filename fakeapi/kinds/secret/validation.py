"""Secret validation on create and update (upstream ValidateSecret / ValidateSecretUpdate)."""

from __future__ import annotations

from fakeapi.kinds.secret import jsonsyntax
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery import gobase64
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import FIELD_IMMUTABLE, validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict, as_str

MAX_DATA_BYTES = 1024 * 1024  # upstream's MaxSecretSize
IMMUTABLE_SET = "field is immutable when `immutable` is set"
REDACTED = "<secret contents redacted>"

SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"
SERVICE_ACCOUNT_NAME_ANNOTATION = "kubernetes.io/service-account.name"
DOCKERCFG = "kubernetes.io/dockercfg"
DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson"
BASIC_AUTH = "kubernetes.io/basic-auth"
SSH_AUTH = "kubernetes.io/ssh-auth"
TLS = "kubernetes.io/tls"
TLS_CERT_KEY = "tls.crt"
TLS_PRIVATE_KEY_KEY = "tls.key"
# the key a docker config secret must hold
_DOCKER_CONFIG_KEYS = {DOCKERCFG: ".dockercfg", DOCKER_CONFIG_JSON: ".dockerconfigjson"}


def validate_secret(secret: JSON) -> list[FieldError]:
    """Metadata with a DNS-subdomain name; valid keys (in sorted order: upstream walks a Go map) of at most
    1 MiB of values in all; then what the secret's type requires."""
    errs = validate_object_meta(as_dict(secret.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    data = as_dict(secret.get("data"))
    total = 0
    for key in sorted(data):
        errs += [fe.invalid(f"data[{key}]", key, msg) for msg in names.is_config_map_key(key)]
        total += gobase64.decoded_length(as_str(data[key]))
    if total > MAX_DATA_BYTES:
        errs.append(fe.too_long("data", MAX_DATA_BYTES))
    return errs + _type_errors(secret, data)


def _type_errors(secret: JSON, data: JSON) -> list[FieldError]:
    secret_type = as_str(secret.get("type"))
    if secret_type == SERVICE_ACCOUNT_TOKEN:
        annotations = as_dict(as_dict(secret.get("metadata")).get("annotations"))
        if not as_str(annotations.get(SERVICE_ACCOUNT_NAME_ANNOTATION)):
            return [fe.required(f"metadata.annotations[{SERVICE_ACCOUNT_NAME_ANNOTATION}]")]
    elif secret_type in _DOCKER_CONFIG_KEYS:
        key = _DOCKER_CONFIG_KEYS[secret_type]
        if key not in data:
            return [fe.required(f"data[{key}]")]
        error = jsonsyntax.object_error(gobase64.decode(as_str(data[key])))
        if error is not None:
            return [fe.invalid(f"data[{key}]", REDACTED, error)]
    elif secret_type == BASIC_AUTH:
        if "username" not in data and "password" not in data:
            return [fe.required("data[username]"), fe.required("data[password]")]
    elif secret_type == SSH_AUTH:
        if not as_str(data.get("ssh-privatekey")):
            return [fe.required("data[ssh-privatekey]")]
    elif secret_type == TLS:
        return [fe.required(f"data[{key}]") for key in (TLS_CERT_KEY, TLS_PRIVATE_KEY_KEY) if key not in data]
    return []


def validate_secret_update(new: JSON, old: JSON) -> list[FieldError]:
    """The ObjectMeta update rules; the type never changes; once `immutable` is true it stays true and the
    data stays as it is. (stringData needs no check: it is already merged into data.)"""
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    new_type = as_str(new.get("type"))
    if new_type != as_str(old.get("type")):
        errs.append(fe.invalid("type", new_type, FIELD_IMMUTABLE))
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errs.append(fe.forbidden("immutable", IMMUTABLE_SET))
        if as_dict(new.get("data")) != as_dict(old.get("data")):
            errs.append(fe.forbidden("data", IMMUTABLE_SET))
    return errs + validate_secret(new)
