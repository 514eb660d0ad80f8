"""What a server's pod strategy remembers, as the pod modules see it (`fakeapi.kinds.pod.memo.PodMemo`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from fakeapi.machinery.fielderrors import FieldError


class PodRemembered(Protocol):
    """Results that depend only on what pods made from one template share, by their JSON or text."""

    @property
    def spec_passes(self) -> Callable[[bytes], bool]: ...

    @property
    def template_warnings(self) -> Callable[[bytes], tuple[str, ...]]: ...

    @property
    def shared_meta_checks(self) -> Callable[[bytes, str], tuple[FieldError, ...]]: ...

    @property
    def rounded(self) -> Callable[[str], str | None]: ...

    @property
    def nanos(self) -> Callable[[str], int | None]: ...
