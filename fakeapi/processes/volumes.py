"""What the kubelet puts in a container's file system: the files it manages (/etc/hosts, /etc/hostname,
/etc/resolv.conf), the image's few files, and each mounted volume's files, made from the pod's volume
sources as the kubelet's volume plugins make them (ConfigMap and Secret keys or items, downward API
items, projected sources, the service-account token). A source that is not optional and cannot be found
fails the mount with the plugin's message (`configmap "app" not found`, `configmap references
non-existent config key: mode`), which the kubelet reports in `FailedMount` events.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from fakeapi.machinery.gobase64 import decode as b64decode
from fakeapi.machinery.types import JSON
from fakeapi.processes.downward import Lookup, Unresolved, field_value, resource_value
from fakeapi.processes.environment import pod_hostname
from fakeapi.processes.files import DIRECTORY_MODE, FILE_MODE, ContainerFiles, Contents, Entry, Mount, Tree

DEFAULT_MODE = 0o644  # a volume's defaultMode when the pod gives none (420)
# (pod, a projected serviceAccountToken source) -> the token the kubelet writes (Unresolved when none is had)
TokenSource = Callable[[JSON, JSON], str]
# the directories of a Linux image (the file system hierarchy's), empty
IMAGE_DIRECTORIES = ("bin", "boot", "dev", "etc", "home", "lib", "media", "mnt", "opt", "proc", "root", "run", "sbin",
                     "srv", "sys", "tmp", "usr", "usr/bin", "usr/lib", "usr/local", "usr/local/bin", "usr/sbin",
                     "usr/share", "var", "var/cache", "var/lib", "var/log", "var/run", "var/tmp")
WRITABLE_SOURCES = ("emptyDir", "hostPath", "persistentVolumeClaim", "ephemeral", "nfs", "image")


def container_files(pod: JSON, container: JSON, lookup: Lookup, pod_volumes: dict[str, Tree],
                    now: float, tokens: TokenSource) -> ContainerFiles:
    """A new container instance's files: a fresh own layer, and its volume mounts (writable volumes are
    the pod's, in `pod_volumes`, shared by its containers and kept across restarts; projected service
    account tokens come from `tokens`)."""
    root = Tree.of(_image_files(pod), now, writable=True)
    for directory in IMAGE_DIRECTORIES:
        root.entries.setdefault(directory, _directory(now, 0o1777 if directory in ("tmp", "var/tmp") else None))
    volumes = {volume.get("name"): volume for volume in (pod.get("spec") or {}).get("volumes") or []}
    mounts: list[Mount] = []
    for mount in container.get("volumeMounts") or []:
        volume = volumes.get(mount.get("name"))
        if volume is None:
            continue
        path = posixpath.normpath("/" + str(mount.get("mountPath", "")).lstrip("/"))
        read_only = bool(mount.get("readOnly"))
        sub_path = str(mount.get("subPath") or "")
        if _writable(volume):
            tree = pod_volumes.setdefault(str(volume.get("name")), Tree.of({}, now, writable=True))
            if sub_path:
                tree.entries.setdefault(sub_path, _directory(now))
                mounts.append(Mount(path, contents=_sub_tree(tree, sub_path), read_only=True, mtime=now))
            else:
                mounts.append(Mount(path, tree=tree, read_only=read_only, mtime=now))
            continue
        contents = _lazy(pod, volume, lookup, tokens)
        if sub_path:
            contents = _single(contents, sub_path)
        mounts.append(Mount(path, contents=contents, read_only=True, mtime=now))
    return ContainerFiles(root, mounts)


def mount_problems(pod: JSON, lookup: Lookup) -> list[tuple[str, str]]:
    """(volume, message) for each volume the pod's containers mount whose sources are missing."""
    spec: JSON = pod.get("spec") or {}
    mounted = {mount.get("name") for key in ("initContainers", "containers") for container in spec.get(key) or []
               for mount in container.get("volumeMounts") or []}
    problems = []
    for volume in spec.get("volumes") or []:
        if volume.get("name") not in mounted or _writable(volume):
            continue
        try:
            volume_contents(pod, volume, lookup)
        except Unresolved as error:
            problems.append((str(volume.get("name")), str(error)))
    return problems


def volume_contents(pod: JSON, volume: JSON, lookup: Lookup, tokens: TokenSource | None = None) -> Contents:
    """The files a read-only volume holds now, by path; Unresolved when a required source is missing
    (without `tokens`, projected service account tokens are left out)."""
    namespace = (pod.get("metadata") or {}).get("namespace", "")
    default_mode = _mode(volume, "configMap", "secret", "downwardAPI", "projected")
    if "configMap" in volume:
        return _keyed(volume["configMap"], "configmaps", namespace, lookup, default_mode)
    if "secret" in volume:
        return _keyed(volume["secret"], "secrets", namespace, lookup, default_mode)
    if "downwardAPI" in volume:
        return _downward(pod, volume["downwardAPI"].get("items") or [], lookup, default_mode)
    if "projected" in volume:
        files: dict[str, tuple[bytes, int]] = {}
        for source in volume["projected"].get("sources") or []:
            if "configMap" in source:
                files.update(_keyed(source["configMap"], "configmaps", namespace, lookup, default_mode))
            elif "secret" in source:
                files.update(_keyed(source["secret"], "secrets", namespace, lookup, default_mode))
            elif "downwardAPI" in source:
                files.update(_downward(pod, source["downwardAPI"].get("items") or [], lookup, default_mode))
            elif "serviceAccountToken" in source and tokens is not None:
                token = source["serviceAccountToken"]
                files[str(token.get("path") or "token")] = (tokens(pod, token).encode(), default_mode)
        return files
    return {}


def _image_files(pod: JSON) -> Contents:
    hostname = pod_hostname(pod)
    namespace = (pod.get("metadata") or {}).get("namespace", "")
    pod_ip = (pod.get("status") or {}).get("podIP") or ""
    hosts = ("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
             "fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n")
    if pod_ip:
        hosts += f"{pod_ip}\t{hostname}\n"
    resolv = (f"search {namespace}.svc.cluster.local svc.cluster.local cluster.local\n"
              "nameserver 10.96.0.10\noptions ndots:5\n")
    return {
        "etc/hostname": (f"{hostname}\n".encode(), FILE_MODE),
        "etc/hosts": (hosts.encode(), FILE_MODE),
        "etc/resolv.conf": (resolv.encode(), FILE_MODE),
        "etc/passwd": (b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n", FILE_MODE),
        "etc/group": (b"root:x:0:root\nnobody:x:65534:\n", FILE_MODE),
    }


def _directory(now: float, mode: int | None = None) -> Entry:
    return Entry(None, DIRECTORY_MODE if mode is None else mode, now)


def _writable(volume: JSON) -> bool:
    return any(source in volume for source in WRITABLE_SOURCES) or not any(
        source in volume for source in ("configMap", "secret", "downwardAPI", "projected"))


def _mode(volume: JSON, *sources: str) -> int:
    for source in sources:
        if source in volume:
            mode = (volume[source] or {}).get("defaultMode")
            return int(mode) if isinstance(mode, int) else DEFAULT_MODE
    return DEFAULT_MODE


def _lazy(pod: JSON, volume: JSON, lookup: Lookup, tokens: TokenSource) -> Callable[[], Contents]:
    """The volume's files as they are when looked at (a source gone meanwhile leaves the files it had)."""
    last: list[Contents] = [{}]

    def contents() -> Contents:
        try:
            last[0] = volume_contents(pod, volume, lookup, tokens)
        except Unresolved:
            pass
        return last[0]

    return contents


def _single(contents: Callable[[], Contents], sub_path: str) -> Callable[[], Contents]:
    """A subPath mount of one file of a volume: the file itself at the mount path."""

    def single() -> Contents:
        found = contents().get(sub_path)
        return {"": found} if found is not None else {}

    return single


def _sub_tree(tree: Tree, sub_path: str) -> Callable[[], Contents]:
    def sub() -> Contents:
        prefix = sub_path + "/"
        return {key[len(prefix):]: (entry.data, entry.mode) for key, entry in tree.entries.items()
                if key.startswith(prefix) and entry.data is not None}

    return sub


Files = dict[str, tuple[bytes, int]]


def _keyed(source: JSON, resource: str, namespace: str, lookup: Lookup, default_mode: int) -> Files:
    """A ConfigMap's or Secret's keys as files (or only the items asked for, at their paths)."""
    name = str(source.get("name") or source.get("secretName") or "")
    label = "configmap" if resource == "configmaps" else "secret"
    optional = bool(source.get("optional"))
    mode = source.get("defaultMode")
    default_mode = int(mode) if isinstance(mode, int) else default_mode
    obj = lookup(resource, namespace, name)
    if obj is None:
        if optional:
            return {}
        raise Unresolved(f'{label} "{name}" not found')
    data: dict[str, bytes] = {}
    if resource == "configmaps":
        data.update({key: str(value).encode() for key, value in (obj.get("data") or {}).items()})
        data.update({key: b64decode(str(value)) for key, value in (obj.get("binaryData") or {}).items()})
    else:
        data.update({key: b64decode(str(value)) for key, value in (obj.get("data") or {}).items()})
    items = source.get("items")
    if not items:
        return {key: (value, default_mode) for key, value in data.items()}
    files: dict[str, tuple[bytes, int]] = {}
    for item in items:
        key = str(item.get("key", ""))
        if key not in data:
            if optional:
                continue
            what = "configmap references non-existent config key" if resource == "configmaps" else \
                "references non-existent secret key"
            raise Unresolved(f"{what}: {key}")
        item_mode = item.get("mode")
        mode = int(item_mode) if isinstance(item_mode, int) else default_mode
        files[str(item.get("path") or key)] = (data[key], mode)
    return files


def _downward(pod: JSON, items: list[JSON], lookup: Lookup, default_mode: int) -> dict[str, tuple[bytes, int]]:
    files: dict[str, tuple[bytes, int]] = {}
    for item in items:
        if item.get("fieldRef") is not None:
            value = field_value(pod, str(item["fieldRef"].get("fieldPath", "")))
        elif item.get("resourceFieldRef") is not None:
            value = resource_value(pod, item["resourceFieldRef"], "", lookup)
        else:
            continue
        mode = item.get("mode")
        files[str(item.get("path", ""))] = (value.encode(), int(mode) if isinstance(mode, int) else default_mode)
    return files
