"""Pod volumes: names, exactly one source per volume, and the checks of the common sources."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi.kinds.pod.validation.container import validate_pull_policy
from fakeapi.kinds.pod.validation.env import (
    VOLUME_FIELD_PATHS,
    validate_object_field_selector,
    validate_resource_field_selector,
)
from fakeapi.kinds.pod.validation.security import validate_local_descending_path, validate_no_backsteps
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import as_dict, as_int, as_list, as_str, quantity

SourceCheck = Callable[[JSON, str], list[FieldError]]
FILE_MODE_ERROR = "must be a number between 0 and 0777 (octal), both inclusive"
_HOST_PATH_TYPES = [
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
]


def _required(*keys: str) -> SourceCheck:
    def check(source: JSON, path: str) -> list[FieldError]:
        return [fe.required(f"{path}.{key}") for key in keys if not source.get(key)]

    return check


def _mode(value: Any, path: str) -> list[FieldError]:
    if isinstance(value, int) and not 0 <= value <= 0o777:
        return [fe.invalid(path, value, FILE_MODE_ERROR)]
    return []


def validate_local_non_reserved_path(target: str, path: str) -> list[FieldError]:
    errs = validate_local_descending_path(target, path)
    if target.startswith("..") and not target.startswith("../"):
        errs.append(fe.invalid(path, target, "must not start with '..'"))
    return errs


def _key_to_path(item: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not as_str(item.get("key")):
        errs.append(fe.required(f"{path}.key"))
    if not as_str(item.get("path")):
        errs.append(fe.required(f"{path}.path"))
    errs += validate_local_non_reserved_path(as_str(item.get("path")), f"{path}.path")
    return errs + _mode(item.get("mode"), f"{path}.mode")


def _items(items: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, item in enumerate(as_list(items)):
        errs += _key_to_path(as_dict(item), f"{path}.items[{index}]")
    return errs


def _secret(source: JSON, path: str) -> list[FieldError]:
    errs = [fe.required(f"{path}.secretName")] if not as_str(source.get("secretName")) else []
    return errs + _mode(source.get("defaultMode"), f"{path}.defaultMode") + _items(source.get("items"), path)


def _config_map(source: JSON, path: str) -> list[FieldError]:
    errs = [fe.required(f"{path}.name")] if not as_str(source.get("name")) else []
    return errs + _mode(source.get("defaultMode"), f"{path}.defaultMode") + _items(source.get("items"), path)


def _empty_dir(source: JSON, path: str) -> list[FieldError]:
    size = source.get("sizeLimit")
    value = quantity(size) if size is not None else None
    if value is not None and value < 0:
        return [fe.forbidden(f"{path}.sizeLimit", "SizeLimit field must be a valid resource quantity")]
    return []


def _host_path(source: JSON, path: str) -> list[FieldError]:
    target = as_str(source.get("path"))
    if not target:
        return [fe.required(f"{path}.path")]
    errs = validate_no_backsteps(target, f"{path}.path")
    kind = source.get("type")
    if kind is not None and kind not in _HOST_PATH_TYPES:
        errs.append(fe.not_supported(f"{path}.type", kind, _HOST_PATH_TYPES))
    return errs


def _git_repo(source: JSON, path: str) -> list[FieldError]:
    errs = [fe.required(f"{path}.repository")] if not as_str(source.get("repository")) else []
    return errs + validate_local_descending_path(as_str(source.get("directory")), f"{path}.directory")


def _partition(key: str, child: str) -> SourceCheck:
    def check(source: JSON, path: str) -> list[FieldError]:
        at = path.rsplit(".", 1)[0] + f".{child}"  # upstream's gcePersistentDisk uses `persistentDisk`
        errs = [fe.required(f"{at}.{key}")] if not as_str(source.get(key)) else []
        partition = as_int(source.get("partition"))
        if not 0 <= partition <= 255:
            errs.append(fe.invalid(f"{at}.partition", partition, names.inclusive_range_error(1, 255)))
        return errs

    return check


def _nfs(source: JSON, path: str) -> list[FieldError]:
    errs = _required("server", "path")(source, path)
    if not as_str(source.get("path")).startswith("/"):
        errs.append(fe.invalid(f"{path}.path", as_str(source.get("path")), "must be an absolute path"))
    return errs


def _downward_file(item: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not as_str(item.get("path")):
        errs.append(fe.required(f"{path}.path"))
    errs += validate_local_non_reserved_path(as_str(item.get("path")), f"{path}.path")
    if isinstance(item.get("fieldRef"), dict):
        errs += validate_object_field_selector(item["fieldRef"], VOLUME_FIELD_PATHS, f"{path}.fieldRef")
        if item.get("resourceFieldRef") is not None:
            detail = "fieldRef and resourceFieldRef can not be specified simultaneously"
            errs.append(fe.invalid(path, "resource", detail))
    elif isinstance(item.get("resourceFieldRef"), dict):
        errs += validate_resource_field_selector(item["resourceFieldRef"], f"{path}.resourceFieldRef", True)
    else:
        errs.append(fe.required(path, "one of fieldRef and resourceFieldRef is required"))
    return errs + _mode(item.get("mode"), f"{path}.mode")


def _downward_api(source: JSON, path: str) -> list[FieldError]:
    errs = _mode(source.get("defaultMode"), f"{path}.defaultMode")
    for item in as_list(source.get("items")):  # upstream reports items at the source path, unindexed
        errs += _downward_file(as_dict(item), path)
    return errs


def _projected(source: JSON, path: str) -> list[FieldError]:
    errs = _mode(source.get("defaultMode"), f"{path}.defaultMode")
    seen: set[str] = set()

    def claim(target: str, shown: str) -> None:
        if target in seen:
            errs.append(fe.invalid(path, shown, "conflicting duplicate paths"))
        seen.add(target)

    for index, raw in enumerate(as_list(source.get("sources"))):
        projection, at, count = as_dict(raw), f"{path}.sources[{index}]", 0
        for kind in ("secret", "configMap"):
            if isinstance(projection.get(kind), dict):
                count += 1
                ref = projection[kind]
                if not as_str(ref.get("name")):
                    errs.append(fe.required(f"{at}.{kind}.name"))
                for item_index, item in enumerate(as_list(ref.get("items"))):
                    errs += _key_to_path(as_dict(item), f"{at}.{kind}.items[{item_index}]")
                    if as_str(as_dict(item).get("path")):
                        claim(as_str(as_dict(item).get("path")), as_str(ref.get("name")))
        if isinstance(projection.get("downwardAPI"), dict):
            count += 1
            for item in as_list(projection["downwardAPI"].get("items")):
                errs += _downward_file(as_dict(item), f"{at}.downwardAPI")
                if as_str(as_dict(item).get("path")):
                    claim(as_str(as_dict(item).get("path")), as_str(as_dict(item).get("path")))
        if isinstance(projection.get("serviceAccountToken"), dict):
            count += 1
            token, token_at = projection["serviceAccountToken"], f"{at}.serviceAccountToken"
            seconds = as_int(token.get("expirationSeconds"))
            if seconds < 600:
                errs.append(
                    fe.invalid(
                        f"{token_at}.expirationSeconds",
                        seconds,
                        "may not specify a duration less than 10 minutes",
                    )
                )
            if seconds > 1 << 32:
                errs.append(
                    fe.invalid(
                        f"{token_at}.expirationSeconds",
                        seconds,
                        "may not specify a duration larger than 2^32 seconds",
                    )
                )
            if not as_str(token.get("path")):
                errs.append(fe.required(f"{path}.path"))
            else:
                errs += validate_local_non_reserved_path(as_str(token.get("path")), f"{path}.path")
        if isinstance(projection.get("clusterTrustBundle"), dict):
            count += 1
            bundle = projection["clusterTrustBundle"]
            if not as_str(bundle.get("path")):
                errs.append(fe.required(f"{at}.clusterTrustBundle.path"))
            errs += validate_local_non_reserved_path(
                as_str(bundle.get("path")), f"{at}.clusterTrustBundle.path"
            )
            claim(as_str(bundle.get("path")), as_str(bundle.get("path")))
        if count > 1:
            errs.append(fe.forbidden(at, "may not specify more than 1 volume type per source"))
    return errs


def _flocker(source: JSON, path: str) -> list[FieldError]:
    name, uid = as_str(source.get("datasetName")), as_str(source.get("datasetUUID"))
    errs: list[FieldError] = []
    if not name and not uid:
        errs.append(fe.required(path, "one of datasetName and datasetUUID is required"))
    if name and uid:
        errs.append(
            fe.invalid(path, "resource", "datasetName and datasetUUID can not be specified simultaneously")
        )
    if "/" in name:
        errs.append(fe.invalid(f"{path}.datasetName", name, "must not contain '/'"))
    return errs


def _image(source: JSON, path: str) -> list[FieldError]:
    errs = [fe.required(f"{path}.reference")] if not as_str(source.get("reference")) else []
    return errs + validate_pull_policy(source.get("pullPolicy"), f"{path}.pullPolicy")


def _ephemeral(source: JSON, path: str) -> list[FieldError]:
    return (
        []
        if isinstance(source.get("volumeClaimTemplate"), dict)
        else [fe.required(f"{path}.volumeClaimTemplate")]
    )


# (wire key, path used in the "more than 1 volume type" error, checks), in upstream's order
_SOURCES: tuple[tuple[str, str, SourceCheck], ...] = (
    ("emptyDir", "emptyDir", _empty_dir),
    ("hostPath", "hostPath", _host_path),
    ("gitRepo", "gitRepo", _git_repo),
    ("gcePersistentDisk", "gcePersistentDisk", _partition("pdName", "persistentDisk")),
    ("awsElasticBlockStore", "awsElasticBlockStore", _partition("volumeID", "awsElasticBlockStore")),
    ("secret", "secret", _secret),
    ("nfs", "nfs", _nfs),
    ("iscsi", "iscsi", _required("targetPortal", "iqn")),
    ("glusterfs", "glusterfs", _required("endpoints", "path")),
    ("flocker", "flocker", _flocker),
    ("persistentVolumeClaim", "persistentVolumeClaim", _required("claimName")),
    ("rbd", "rbd", _required("monitors", "image")),
    ("cinder", "cinder", _required("volumeID")),
    ("cephfs", "cephFS", _required("monitors")),
    ("quobyte", "quobyte", _required("volume")),
    ("downwardAPI", "downwarAPI", _downward_api),
    ("fc", "fc", lambda source, path: []),
    ("flexVolume", "flexVolume", _required("driver")),
    ("configMap", "configMap", _config_map),
    ("azureFile", "azureFile", _required("secretName", "shareName")),
    ("vsphereVolume", "vsphereVolume", _required("volumePath")),
    ("photonPersistentDisk", "photonPersistentDisk", _required("pdID")),
    ("portworxVolume", "portworxVolume", _required("volumeID")),
    ("azureDisk", "azureDisk", _required("diskName", "diskURI")),
    ("storageos", "storageos", _required("volumeName")),
    ("projected", "projected", _projected),
    ("scaleIO", "scaleIO", _required("gateway", "system", "volumeName")),
    ("csi", "csi", _required("driver")),
    ("ephemeral", "ephemeral", _ephemeral),
    ("image", "image", _image),
)


def _validate_source(volume: JSON, path: str, volume_name: str, pod_name: str) -> list[FieldError]:
    errs: list[FieldError] = []
    count = 0
    for key, duplicate_child, check in _SOURCES:
        source = volume.get(key)
        if source is None:
            continue
        if count:
            errs.append(fe.forbidden(f"{path}.{duplicate_child}", "may not specify more than 1 volume type"))
            continue
        count += 1
        errs += check(as_dict(source), f"{path}.{key}")
        if key == "ephemeral" and pod_name and volume_name:
            claim_name = f"{pod_name}-{volume_name}"
            for msg in names.is_dns1123_subdomain(claim_name):
                errs.append(fe.invalid(f"{path}.name", volume_name, f'PVC name "{claim_name}": {msg}'))
    if count == 0:
        errs.append(fe.required(path, "must specify a volume type"))
    return errs


def validate_volumes(volumes: Any, pod_name: str, path: str) -> tuple[dict[str, JSON], list[FieldError]]:
    """ValidateVolumes: the valid volumes by name (a volume with errors is left out, so mounts of it
    are also `Not found`, as upstream), and the errors."""
    errs: list[FieldError] = []
    valid: dict[str, JSON] = {}
    items = [as_dict(v) for v in as_list(volumes)]
    created_claims = {
        f"{pod_name}-{as_str(v.get('name'))}" for v in items if pod_name and v.get("ephemeral") is not None
    }
    for index, volume in enumerate(items):
        at = f"{path}[{index}]"
        name = as_str(volume.get("name"))
        own = _validate_source(volume, at, name, pod_name)
        if not name:
            own.append(fe.required(f"{at}.name"))
        else:
            own += [fe.invalid(f"{at}.name", name, msg) for msg in names.is_dns1123_label(name)]
        if name in valid:
            own.append(fe.duplicate(f"{at}.name", name))
        if own:
            errs += own
        else:
            valid[name] = volume
        claim = as_str(as_dict(volume.get("persistentVolumeClaim")).get("claimName"))
        if volume.get("persistentVolumeClaim") is not None and claim in created_claims:
            detail = "must not reference a PVC that gets created for an ephemeral volume"
            errs.append(fe.invalid(f"{at}.persistentVolumeClaim.claimName", claim, detail))
    return valid, errs
