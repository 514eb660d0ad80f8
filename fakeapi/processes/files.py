"""A container's files, in memory: the image's few files, what the kubelet mounts (ConfigMaps, Secrets, the
downward API, the service-account token, emptyDir volumes) and what processes write.

A path is looked up in the mount that holds it (the longest mount path that is a prefix of it), else in
the container's own layer. Mounted ConfigMaps, Secrets and downward API files are read-only and read
afresh at each look (the kubelet refreshes them); the container's layer and emptyDir volumes are
writable, up to a size: a write past it fails with ENOSPC, as a full disk would.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

DIRECTORY_MODE = 0o755
FILE_MODE = 0o644
WRITABLE_BYTES = 64 * 1024 * 1024  # what one container (or one emptyDir volume) may hold


class FileError(Exception):
    """A failed file operation, as errno names it: ENOENT, ENOTDIR, EISDIR, EEXIST, EROFS, ENOSPC, ENOTEMPTY."""

    MESSAGES = {
        "ENOENT": "No such file or directory", "ENOTDIR": "Not a directory", "EISDIR": "Is a directory",
        "EEXIST": "File exists", "EROFS": "Read-only file system", "ENOSPC": "No space left on device",
        "ENOTEMPTY": "Directory not empty", "EINVAL": "Invalid argument",
    }

    def __init__(self, code: str, path: str) -> None:
        super().__init__(f"{path}: {self.MESSAGES[code]}")
        self.code = code
        self.path = path

    @property
    def reason(self) -> str:
        return self.MESSAGES[self.code]


@dataclass(slots=True)
class Entry:
    """A file (`data` set) or a directory (`data` None), with its mode and modification time (epoch seconds)."""

    data: bytes | None
    mode: int
    mtime: float

    @property
    def is_dir(self) -> bool:
        return self.data is None

    @property
    def size(self) -> int:
        return len(self.data) if self.data is not None else 4096


Contents = Mapping[str, tuple[bytes, int]]  # relative path -> data and mode, as a volume's files are


@dataclass
class Tree:
    """Files and directories under one root, by path relative to it ("" is the root itself)."""

    entries: dict[str, Entry] = field(default_factory=dict)
    writable: bool = True
    limit: int = WRITABLE_BYTES
    used: int = 0

    @classmethod
    def of(cls, contents: Contents, mtime: float, writable: bool = False) -> Tree:
        """A tree holding `contents`, with the directories above each file."""
        tree = cls(writable=writable)
        tree.entries[""] = Entry(None, DIRECTORY_MODE, mtime)
        for path, (data, mode) in contents.items():
            parent = posixpath.dirname(path)
            while parent and parent not in tree.entries:
                tree.entries[parent] = Entry(None, DIRECTORY_MODE, mtime)
                parent = posixpath.dirname(parent)
            tree.entries[path] = Entry(data, mode, mtime)
            tree.used += len(data)
        return tree

    def children(self, path: str) -> list[str]:
        prefix = path + "/" if path else ""
        return sorted(key[len(prefix):] for key in self.entries
                      if key.startswith(prefix) and key != path and "/" not in key[len(prefix):])


@dataclass
class Mount:
    """A volume mounted at a path: a tree kept by the pod (emptyDir, shared by its containers), or files
    read afresh at each look (`contents`, read-only)."""

    path: str
    tree: Tree | None = None
    contents: Callable[[], Contents] | None = None
    read_only: bool = False
    mtime: float = 0.0

    def current(self) -> Tree:
        if self.tree is not None:
            return self.tree
        assert self.contents is not None
        return Tree.of(self.contents(), self.mtime)


class ContainerFiles:
    """One container's view of its files: its own layer and its mounts."""

    def __init__(self, root: Tree, mounts: list[Mount]) -> None:
        self.root = root
        self.mounts = sorted(mounts, key=lambda mount: len(mount.path), reverse=True)

    # ---- finding

    def _locate(self, path: str) -> tuple[Tree, str, Mount | None]:
        """The tree holding `path` (absolute, normalised), the path within it, and its mount if any."""
        for mount in self.mounts:
            if path == mount.path or path.startswith(mount.path + "/"):
                return mount.current(), path[len(mount.path) + 1:], mount
        return self.root, path[1:], None

    def stat(self, path: str) -> Entry | None:
        path = normalize(path)
        tree, inner, mount = self._locate(path)
        entry = tree.entries.get(inner)
        if entry is None and self._is_mount_parent(path):
            return Entry(None, DIRECTORY_MODE, mount.mtime if mount else 0.0)
        return entry

    def _is_mount_parent(self, path: str) -> bool:
        return any(mount.path.startswith(path.rstrip("/") + "/") for mount in self.mounts)

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def is_dir(self, path: str) -> bool:
        entry = self.stat(path)
        return entry is not None and entry.is_dir

    def read(self, path: str) -> bytes:
        entry = self.stat(path)
        if entry is None:
            raise FileError("ENOENT", path)
        if entry.data is None:
            raise FileError("EISDIR", path)
        return entry.data

    def list(self, path: str) -> list[tuple[str, Entry]]:
        """A directory's entries by name, sorted (mount points included)."""
        path = normalize(path)
        entry = self.stat(path)
        if entry is None:
            raise FileError("ENOENT", path)
        if not entry.is_dir:
            raise FileError("ENOTDIR", path)
        tree, inner, _mount = self._locate(path)
        names = set(tree.children(inner)) if inner in tree.entries else set()
        prefix = path.rstrip("/") + "/"
        for mount in self.mounts:
            if mount.path.startswith(prefix):
                names.add(mount.path[len(prefix):].split("/", 1)[0])
        found = []
        for name in sorted(names):
            child = self.stat(prefix + name)
            if child is not None:
                found.append((name, child))
        return found

    def walk(self, path: str) -> Iterator[tuple[str, Entry]]:
        """`path` and everything under it, parents before children, as (absolute path, entry)."""
        entry = self.stat(path)
        if entry is None:
            raise FileError("ENOENT", path)
        path = normalize(path)
        yield path, entry
        if entry.is_dir:
            for name, _child in self.list(path):
                yield from self.walk(posixpath.join(path, name))

    # ---- changing

    def _writable(self, path: str) -> tuple[Tree, str]:
        tree, inner, mount = self._locate(normalize(path))
        if (mount is not None and (mount.read_only or mount.tree is None)) or not tree.writable or inner == "":
            raise FileError("EROFS", path)
        return tree, inner

    def write(self, path: str, data: bytes, now: float, append: bool = False, mode: int = FILE_MODE) -> None:
        tree, inner = self._writable(path)
        parent = tree.entries.get(posixpath.dirname(inner))
        if parent is None:
            raise FileError("ENOENT", path)
        if not parent.is_dir:
            raise FileError("ENOTDIR", path)
        old = tree.entries.get(inner)
        if old is not None and old.data is None:
            raise FileError("EISDIR", path)
        before = old.data if old is not None and old.data is not None else b""
        new = before + data if append else data
        if tree.used - len(before) + len(new) > tree.limit:
            raise FileError("ENOSPC", path)
        tree.used += len(new) - len(before)
        tree.entries[inner] = Entry(new, old.mode if old is not None else mode, now)

    def mkdir(self, path: str, now: float, parents: bool = False, mode: int = DIRECTORY_MODE) -> None:
        if parents:
            missing = []
            current = normalize(path)
            while current != "/" and not self.exists(current):
                missing.append(current)
                current = posixpath.dirname(current)
            for directory in reversed(missing):
                self.mkdir(directory, now, mode=mode)
            if not self.is_dir(path):
                raise FileError("ENOTDIR" if self.exists(path) else "ENOENT", path)
            return
        tree, inner = self._writable(path)
        if inner in tree.entries:
            raise FileError("EEXIST", path)
        parent = tree.entries.get(posixpath.dirname(inner))
        if parent is None:
            raise FileError("ENOENT", path)
        if not parent.is_dir:
            raise FileError("ENOTDIR", path)
        tree.entries[inner] = Entry(None, mode, now)

    def remove(self, path: str, recursive: bool = False) -> None:
        tree, inner = self._writable(path)
        entry = tree.entries.get(inner)
        if entry is None:
            raise FileError("ENOENT", path)
        below = [key for key in tree.entries if key.startswith(inner + "/")]
        if below and not recursive:
            raise FileError("ENOTEMPTY", path)
        for key in [*below, inner]:
            data = tree.entries.pop(key).data
            tree.used -= len(data) if data is not None else 0

    def chmod(self, path: str, mode: int) -> None:
        tree, inner = self._writable(path)
        entry = tree.entries.get(inner)
        if entry is None:
            raise FileError("ENOENT", path)
        entry.mode = mode

    def touch(self, path: str, now: float, mtime: float | None = None) -> None:
        entry = self.stat(path)
        if entry is None:
            self.write(path, b"", now)
            entry = self.stat(path)
            assert entry is not None
        else:
            self._writable(path)
        entry.mtime = now if mtime is None else mtime


def normalize(path: str, cwd: str = "/") -> str:
    """An absolute path with `.`, `..` and repeated slashes resolved (`..` stops at the root)."""
    joined = posixpath.join(cwd, path)
    normal = posixpath.normpath(joined)
    if normal.startswith("//"):
        normal = "/" + normal.lstrip("/")
    return normal
