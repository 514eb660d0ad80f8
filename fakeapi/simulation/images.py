"""Container images as containerd reports them: normalised names, digests, sizes; and container ids.

Everything is derived from the names (and the pod's uid), so a seeded run reproduces it."""

from __future__ import annotations

import hashlib

DEFAULT_REGISTRY = "docker.io"


def normalized(image: str) -> str:
    """The fully qualified reference the runtime reports: `nginx` -> `docker.io/library/nginx:latest`."""
    name, at, digest = image.partition("@")
    first, slash, _rest = name.partition("/")
    if not slash:
        name = f"{DEFAULT_REGISTRY}/library/{name}"
    elif "." not in first and ":" not in first and first != "localhost":
        name = f"{DEFAULT_REGISTRY}/{name}"
    if not at and ":" not in name.rsplit("/", 1)[-1]:
        name += ":latest"
    return f"{name}@{digest}" if at else name


def repository(image: str) -> str:
    """The normalised name without tag or digest."""
    name = normalized(image).partition("@")[0]
    head, slash, last = name.rpartition("/")
    return f"{head}{slash}{last.partition(':')[0]}"


def image_id(image: str) -> str:
    """`<repository>@sha256:<digest>`: the digest of a tagged image is made up from its name."""
    name = normalized(image)
    if "@" in name:
        return f"{repository(image)}@{name.partition('@')[2]}"
    return f"{repository(image)}@sha256:{_sha(name)}"


def image_size(image: str) -> int:
    """A plausible, stable size in bytes (20 to 200 MB)."""
    return 20_000_000 + int(_sha(normalized(image))[:8], 16) % 180_000_000


def container_id(pod_uid: str, container: str, attempt: int) -> str:
    return "containerd://" + _sha(f"{pod_uid}/{container}/{attempt}")


def go_duration(seconds: float) -> str:
    """A Go time.Duration as String() prints it, at millisecond precision: 500ms, 1s, 1.5s, 1m20s."""
    millis = round(seconds * 1000)
    if millis < 1000:
        return f"{millis}ms"
    minutes, millis = divmod(millis, 60_000)
    text = f"{millis / 1000:g}s"
    return f"{minutes}m{text}" if minutes else text


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
