"""PersistentVolumeClaim Table columns: upstream v1.32 `printPersistentVolumeClaim`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_list, as_str

BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
MODE_ABBREVIATIONS = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                      ("ReadWriteOncePod", "RWOP"))


def access_modes_text(modes: list[Any]) -> str:
    """helper.GetAccessModesAsString: the abbreviations, in upstream's fixed order, each once."""
    present = {as_str(mode) for mode in modes}
    return ",".join(short for mode, short in MODE_ABBREVIATIONS if mode in present)


def claim_class(claim: JSON) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName."""
    annotations = as_dict(as_dict(claim.get("metadata")).get("annotations"))
    if BETA_CLASS_ANNOTATION in annotations:
        return as_str(annotations[BETA_CLASS_ANNOTATION])
    return as_str(as_dict(claim.get("spec")).get("storageClassName"))


def claim_cells(claim: JSON, now: datetime) -> list[Any]:
    meta, spec, status = (as_dict(claim.get(part)) for part in ("metadata", "spec", "status"))
    phase = "Terminating" if meta.get("deletionTimestamp") else as_str(status.get("phase"))
    capacity = modes = ""
    if spec.get("volumeName"):
        modes = access_modes_text(as_list(status.get("accessModes")))
        capacity = as_str(as_dict(status.get("capacity")).get("storage"))
    attributes_class = as_str(spec.get("volumeAttributesClassName")) or "<unset>"
    volume_mode = as_str(spec.get("volumeMode")) or "<unset>"
    return [meta.get("name", ""), phase, as_str(spec.get("volumeName")), capacity, modes, claim_class(claim),
            attributes_class, age(meta.get("creationTimestamp"), now), volume_mode]


# descriptions: the v1.32 swagger docs of core/v1 that upstream's printer reads
CLAIM_PRINTER = Printer(
    (NAME_COLUMN,
     Column("Status", "string", "", 0, "phase represents the current phase of PersistentVolumeClaim."),
     Column("Volume", "string", "", 0,
            "volumeName is the binding reference to the PersistentVolume backing this claim."),
     Column("Capacity", "string", "", 0, "capacity represents the actual resources of the underlying volume."),
     Column("Access Modes", "string", "", 0,
            "accessModes contains the actual access modes the volume backing the PVC has. More info: "
            "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"),
     Column("StorageClass", "string", "", 0, "StorageClass of the pvc"),
     Column("VolumeAttributesClass", "string", "", 0, "VolumeAttributesClass of the pvc"),
     AGE_COLUMN,
     Column("VolumeMode", "string", "", 1,
            "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when "
            "not included in claim spec.")),
    claim_cells,
)
