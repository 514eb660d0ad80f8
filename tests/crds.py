"""CustomResourceDefinitions the CRD tests share."""

from __future__ import annotations

import copy
from typing import Any

GROUP = "stable.example.com"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
CRONTABS = f"/apis/{GROUP}/v1/namespaces/default/crontabs"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.minReplicas <= self.replicas", "message": "replicas must be at least minReplicas",
                 "fieldPath": ".replicas"},
            ],
            "properties": {
                "cronSpec": {"type": "string", "pattern": r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$"},
                "image": {"type": "string", "maxLength": 40},
                "replicas": {"type": "integer", "minimum": 0, "maximum": 10, "default": 1},
                "minReplicas": {"type": "integer", "default": 0},
                "size": {"type": "string", "enum": ["S", "M", "L"]},
                "memory": {"type": "string", "x-kubernetes-validations": [
                    {"rule": "quantity(self).isLessThan(quantity('1Gi'))",
                     "messageExpression": "'memory ' + self + ' is 1Gi or more'"}]},
                "color": {"type": "string"},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "required": ["name"],
                                    "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
            },
        },
        "status": {"type": "object", "properties": {"replicas": {"type": "integer"},
                                                    "selector": {"type": "string"}}},
    },
}


def crd(versions: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    """The CronTab CRD (stable.example.com/v1, namespaced, short name ct, category all)."""
    version = {
        "name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": copy.deepcopy(SCHEMA)},
        "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                 "statusReplicasPath": ".status.replicas",
                                                 "labelSelectorPath": ".status.selector"}},
        "additionalPrinterColumns": [
            {"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec"},
            {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
            {"name": "Image", "type": "string", "jsonPath": ".spec.image", "priority": 1},
        ],
        "selectableFields": [{"jsonPath": ".spec.color"}],
    }
    body: dict[str, Any] = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"crontabs.{GROUP}"},
        "spec": {"group": GROUP, "scope": "Namespaced", "versions": versions or [version],
                 "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "shortNames": ["ct"],
                           "categories": ["all"]}},
    }
    body["spec"].update(spec)
    return body


def crontab(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": "CronTab", "metadata": {"name": name},
            "spec": {"cronSpec": "* * * * */5", "image": "cron:1", **spec}}
