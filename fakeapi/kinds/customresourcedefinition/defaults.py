"""SetDefaults_CustomResourceDefinition (apiextensions v1 defaults.go)."""

from __future__ import annotations

from fakeapi.machinery.types import JSON


def default_crd(crd: JSON) -> None:
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return
    names = spec.get("names")
    if isinstance(names, dict):
        if not names.get("singular") and isinstance(names.get("kind"), str):
            names["singular"] = names["kind"].lower()
        if not names.get("listKind") and names.get("kind"):
            names["listKind"] = f"{names['kind']}List"
    conversion = spec.get("conversion")
    if conversion is None:
        spec["conversion"] = {"strategy": "None"}
    elif isinstance(conversion, dict):
        service = ((conversion.get("webhook") or {}).get("clientConfig") or {}).get("service")
        if isinstance(service, dict) and service.get("port") is None:
            service["port"] = 443
    status = crd.setdefault("status", {})
    if isinstance(status, dict) and not status.get("storedVersions"):
        for version in spec.get("versions") or ():
            if isinstance(version, dict) and version.get("storage"):
                status["storedVersions"] = [version.get("name")]
                break
