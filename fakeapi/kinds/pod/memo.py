"""A server's pod memo: what pods made from one template share is worked out once, by its JSON or text."""

from __future__ import annotations

from functools import lru_cache

from fakeapi.kinds.pod.qos import nanos_of
from fakeapi.kinds.pod.validation.podspec import spec_passes
from fakeapi.kinds.pod.validation.warnings import template_warnings
from fakeapi.machinery.quantity import rounded_to_milli
from fakeapi.machinery.validation.objectmeta import shared_meta_checks


class PodMemo:
    """Pods made from one template share their spec (but for the names of their volumes, see
    `volumes_by_position`), its warnings, their labels, annotations and owner references, and a few
    resource amounts: checking and parsing them is most of a create (figures in docs/performance.md).
    One per server: each pod strategy a server uses builds one (`for_server`)."""

    def __init__(self) -> None:
        self.spec_passes = lru_cache(maxsize=512)(spec_passes)
        self.template_warnings = lru_cache(maxsize=512)(template_warnings)
        self.shared_meta_checks = lru_cache(maxsize=1024)(shared_meta_checks)
        self.rounded = lru_cache(maxsize=1024)(rounded_to_milli)
        self.nanos = lru_cache(maxsize=1024)(nanos_of)
