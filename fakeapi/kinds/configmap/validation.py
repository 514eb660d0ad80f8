"""ConfigMap validation on create and update (upstream ValidateConfigMap / ValidateConfigMapUpdate)."""

from __future__ import annotations

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery import gobase64
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict

MAX_DATA_BYTES = 1024 * 1024  # upstream's MaxSecretSize, shared by ConfigMaps
IMMUTABLE_SET = "field is immutable when `immutable` is set"


def validate_config_map(config_map: JSON) -> list[FieldError]:
    """Metadata with a DNS-subdomain name; keys that are valid config keys, each in one of data and
    binaryData; at most 1 MiB of values in all. Keys are checked in sorted order (upstream walks Go maps,
    whose order is random)."""
    errs = validate_object_meta(as_dict(config_map.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    data, binary = as_dict(config_map.get("data")), as_dict(config_map.get("binaryData"))
    total = 0
    for key in sorted(data):
        errs += [fe.invalid(f"data[{key}]", key, msg) for msg in names.is_config_map_key(key)]
        if key in binary:
            errs.append(fe.invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
        total += len(str(data[key]).encode())
    for key in sorted(binary):
        errs += [fe.invalid(f"binaryData[{key}]", key, msg) for msg in names.is_config_map_key(key)]
        total += gobase64.decoded_length(str(binary[key]))
    if total > MAX_DATA_BYTES:
        errs.append(fe.too_long("[]", MAX_DATA_BYTES))  # the whole object: upstream's empty path prints "[]"
    return errs


def validate_config_map_update(new: JSON, old: JSON) -> list[FieldError]:
    """The ObjectMeta update rules; once `immutable` is true it stays true and the data stays as it is."""
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errs.append(fe.forbidden("immutable", IMMUTABLE_SET))
        if as_dict(new.get("data")) != as_dict(old.get("data")):
            errs.append(fe.forbidden("data", IMMUTABLE_SET))
        if as_dict(new.get("binaryData")) != as_dict(old.get("binaryData")):
            errs.append(fe.forbidden("binaryData", IMMUTABLE_SET))
    return errs + validate_config_map(new)
