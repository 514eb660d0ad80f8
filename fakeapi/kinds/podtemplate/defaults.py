"""Decode-time defaulting of a pod template: the pod spec defaults upstream's generated defaulters run on
every PodTemplateSpec."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.pod.defaults import default_pod_spec


def default_pod_template(template: Any) -> None:
    """Default `template.spec` in place (nothing when the template is not an object: validation says so)."""
    if not isinstance(template, dict):
        return
    spec = template.get("spec")
    if isinstance(spec, dict):
        default_pod_spec(spec)
