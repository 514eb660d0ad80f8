"""The fields of a Pod that field selectors match (upstream's PodToSelectableFields)."""

from __future__ import annotations

from fakeapi.machinery.fieldselectors import FieldLabels, exposed_labels
from fakeapi.machinery.types import JSON

_NONE: JSON = {}


def pod_fields(pod: JSON) -> dict[str, str]:
    meta = pod.get("metadata") or _NONE
    spec = pod.get("spec") or _NONE
    status = pod.get("status") or _NONE
    # upstream reads the internal PodIPs[0], which v1 podIPs fills (or podIP when podIPs is empty)
    ips = status.get("podIPs")
    return {
        "metadata.name": meta.get("name") or "",
        "metadata.namespace": meta.get("namespace") or "",
        "spec.nodeName": spec.get("nodeName") or "",
        "spec.restartPolicy": spec.get("restartPolicy") or "",
        "spec.schedulerName": spec.get("schedulerName") or "",
        "spec.serviceAccountName": spec.get("serviceAccountName") or "",
        "spec.hostNetwork": "true" if spec.get("hostNetwork") is True else "false",
        "status.phase": status.get("phase") or "",
        "status.podIP": (ips[0].get("ip") or "") if ips else (status.get("podIP") or ""),
        "status.nominatedNodeName": status.get("nominatedNodeName") or "",
    }


# status.podIPs is accepted but never exposed, so it always reads as ""; spec.host is what old v1 clients send
POD_FIELD_LABELS = FieldLabels(pod_fields, exposed_labels(pod_fields) | {"status.podIPs"},
                               {"spec.host": "spec.nodeName"})
