"""A write uses up a resourceVersion only once it is stored: one whose encoding fails leaves the version
(and the objects) where they were."""

from __future__ import annotations

import pytest

from fakeapi.machinery.types import ObjectKey
from fakeapi.storage.store import Store

KEY = ObjectKey("pods", "default", "web")
UNENCODABLE = 1 << 70  # beyond the 64 bits orjson writes


def test_a_create_that_cannot_be_encoded_leaves_the_version() -> None:
    store = Store()
    store.create(ObjectKey("pods", "default", "first"), {"metadata": {"name": "first"}})
    with pytest.raises(TypeError):
        store.create(KEY, {"metadata": {"name": "web"}, "n": UNENCODABLE})
    assert store.resource_version == 1 and not store.exists(KEY)
    store.create(KEY, {"metadata": {"name": "web"}})
    assert store.get(KEY)["metadata"]["resourceVersion"] == "2"


def test_an_update_that_cannot_be_encoded_leaves_the_version_and_the_object() -> None:
    store = Store()
    stored = store.create(KEY, {"metadata": {"name": "web"}, "n": 1})
    with pytest.raises(TypeError):
        store.update(KEY, {"metadata": {"name": "web"}, "n": UNENCODABLE}, "1")
    assert store.resource_version == 1 and store.get_bytes(KEY) == stored
    assert [event.resource_version for event in store.events_since(0)] == [1]
