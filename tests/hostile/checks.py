"""Checks shared by the hostile-input tests: the store left as it was, and the Status answered."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

from fakeapi.testing import FakeAPIServer

PODS = "/api/v1/namespaces/default/pods"
CONTROL = "/fakeapi/v1"
YAML = {"Content-Type": "application/yaml"}


@contextmanager
def store_unchanged(server: FakeAPIServer) -> Iterator[None]:
    """Every object and the resourceVersion are the same after the block as before it."""
    before = orjson.dumps(server.dump())
    yield
    assert orjson.dumps(server.dump()) == before


def status_of(body: Any) -> tuple[int, str]:
    """(code, reason) of a failure Status."""
    assert body["kind"] == "Status" and body["status"] == "Failure", body
    return body["code"], body.get("reason", "")


def billion_laughs(levels: int = 9, width: int = 9) -> bytes:
    """The classic bomb as a pod: each anchor lists `width` aliases of the one before (width**levels lols)."""
    lines = ["apiVersion: v1", "kind: Pod", "metadata:", "  name: bomb", "  annotations:", '    a0: &a0 "lol"']
    for level in range(1, levels + 1):
        lines.append(f"    a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * width) + "]")
    lines += ["spec:", "  containers: [{name: a, image: nginx}]"]
    return "\n".join(lines).encode()
