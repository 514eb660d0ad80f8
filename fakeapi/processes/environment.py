"""A container's environment, as the kubelet builds it (makeEnvironmentVariables) and the image adds to it.

envFrom first (ConfigMaps and Secrets, with their prefix), then `env` in order: values with `$(VAR)`
expanded against what came before and the service variables, or read from a ConfigMap or Secret key, a
pod field or a resource. Then the service variables of the `kubernetes` Service, then what the image and
the runtime set (PATH, HOSTNAME, HOME). A reference that is not optional and cannot be resolved stops
the container from being created, with the kubelet's message (`configmap "app" not found`, `couldn't
find key mode in ConfigMap default/app`).
"""

from __future__ import annotations

from collections.abc import Callable

from fakeapi.machinery.gobase64 import decode as b64decode
from fakeapi.machinery.types import JSON
from fakeapi.processes.downward import Lookup, Unresolved, field_value, resource_value

IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# the `kubernetes` Service (10.96.0.1:443), as the kubelet writes its variables into every container
SERVICE_ENV = (
    ("KUBERNETES_SERVICE_HOST", "10.96.0.1"), ("KUBERNETES_SERVICE_PORT", "443"),
    ("KUBERNETES_SERVICE_PORT_HTTPS", "443"), ("KUBERNETES_PORT", "tcp://10.96.0.1:443"),
    ("KUBERNETES_PORT_443_TCP", "tcp://10.96.0.1:443"), ("KUBERNETES_PORT_443_TCP_PROTO", "tcp"),
    ("KUBERNETES_PORT_443_TCP_PORT", "443"), ("KUBERNETES_PORT_443_TCP_ADDR", "10.96.0.1"),
)


def container_environment(pod: JSON, container: JSON, lookup: Lookup, tty: bool = False,
                          strict: bool = True) -> dict[str, str]:
    """The container's environment, in the order `env` prints it; Unresolved for a missing reference
    (unless not `strict`: then what cannot be resolved is left out)."""
    image: dict[str, str] = {"PATH": IMAGE_PATH, "HOSTNAME": pod_hostname(pod)}
    if tty:
        image["TERM"] = "xterm"
    kubelet = kubelet_variables(pod, container, lookup, strict)
    result = {**image, **kubelet}
    result.setdefault("HOME", "/root")
    return result


def kubelet_variables(pod: JSON, container: JSON, lookup: Lookup, strict: bool = True) -> dict[str, str]:
    """What the kubelet gives the container: envFrom, env, then the service variables."""
    namespace = (pod.get("metadata") or {}).get("namespace", "")
    variables: dict[str, str] = {}
    for source in container.get("envFrom") or []:
        try:
            found = _env_from(source, namespace, lookup)
        except Unresolved:
            if strict:
                raise
            continue
        for key, value in found.items():
            variables[(source.get("prefix") or "") + key] = value
    services = dict(SERVICE_ENV)

    def mapping(name: str) -> str | None:
        return variables.get(name, services.get(name))

    for item in container.get("env") or []:
        name = str(item.get("name", ""))
        value = item.get("value") or ""
        source = item.get("valueFrom")
        if value:
            variables[name] = expand(value, mapping)
        elif source:
            try:
                resolved = _value_from(pod, container, source, namespace, lookup)
            except Unresolved:
                if strict:
                    raise
                continue
            if resolved is None:  # an optional reference to something missing: no variable
                continue
            variables[name] = resolved
        else:
            variables[name] = ""
    for name, value in SERVICE_ENV:
        variables.setdefault(name, value)
    return variables


def pod_hostname(pod: JSON) -> str:
    spec: JSON = pod.get("spec") or {}
    return str(spec.get("hostname") or (pod.get("metadata") or {}).get("name", ""))[:63]


def _env_from(source: JSON, namespace: str, lookup: Lookup) -> dict[str, str]:
    for kind, resource, label in (("configMapRef", "configmaps", "configmap"), ("secretRef", "secrets", "secret")):
        reference = source.get(kind)
        if reference is None:
            continue
        obj = lookup(resource, namespace, str(reference.get("name", "")))
        if obj is None:
            if reference.get("optional"):
                return {}
            raise Unresolved(f'{label} "{reference.get("name", "")}" not found')
        return _data_of(obj, resource)
    return {}


def _value_from(pod: JSON, container: JSON, source: JSON, namespace: str, lookup: Lookup) -> str | None:
    if source.get("fieldRef") is not None:
        return field_value(pod, str(source["fieldRef"].get("fieldPath", "")))
    if source.get("resourceFieldRef") is not None:
        return resource_value(pod, source["resourceFieldRef"], str(container.get("name", "")), lookup)
    for kind, resource, label, owner in (("configMapKeyRef", "configmaps", "configmap", "ConfigMap"),
                                         ("secretKeyRef", "secrets", "secret", "Secret")):
        reference = source.get(kind)
        if reference is None:
            continue
        name, key = str(reference.get("name", "")), str(reference.get("key", ""))
        optional = bool(reference.get("optional"))
        obj = lookup(resource, namespace, name)
        if obj is None:
            if optional:
                return None
            raise Unresolved(f'{label} "{name}" not found')
        data = _data_of(obj, resource)
        if key not in data:
            if optional:
                return None
            raise Unresolved(f"couldn't find key {key} in {owner} {namespace}/{name}")
        return data[key]
    return ""


def _data_of(obj: JSON, resource: str) -> dict[str, str]:
    """A ConfigMap's data (its binaryData too) or a Secret's decoded data, as text."""
    data: dict[str, str] = {}
    if resource == "configmaps":
        data.update({key: str(value) for key, value in (obj.get("data") or {}).items()})
        for key, value in (obj.get("binaryData") or {}).items():
            data[key] = b64decode(str(value)).decode(errors="replace")
    else:
        for key, value in (obj.get("data") or {}).items():
            data[key] = b64decode(str(value)).decode(errors="replace")
    return data


def expand(text: str, mapping: Callable[[str], str | None]) -> str:
    """Upstream's expansion.Expand: `$(NAME)` becomes the variable's value (left as it is when there is
    none), `$$` a single `$`."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "$" and index + 1 < len(text):
            following = text[index + 1]
            if following == "$":
                out.append("$")
                index += 2
                continue
            if following == "(":
                end = text.find(")", index + 2)
                if end != -1:
                    value = mapping(text[index + 2:end])
                    out.append(value if value is not None else text[index:end + 1])
                    index = end + 1
                    continue
        out.append(char)
        index += 1
    return "".join(out)
