"""The form of a pod spec the pod memo keys its checks on: volume names by position, or None where a
name counts for more (what the spec checks see of a volume name: its own check and which names are equal)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.kinds.pod.validation.volumenames import volumes_by_position
from fakeapi.machinery.types import JSON

TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


def spec(token_volume: str, *extra_volumes: JSON, mounts: tuple[str, ...] = ()) -> JSON:
    """A spec as the ServiceAccount admission leaves it: its token volume mounted in every container."""
    volume_mounts = [{"name": name, "mountPath": f"/mnt/{index}"} for index, name in enumerate(mounts)]
    volume_mounts.append({"name": token_volume, "readOnly": True, "mountPath": TOKEN_PATH})
    return {"containers": [{"name": "web", "image": "nginx", "volumeMounts": volume_mounts}],
            "initContainers": [{"name": "init", "image": "busybox",
                                "volumeMounts": [{"name": token_volume, "mountPath": TOKEN_PATH}]}],
            "volumes": [*extra_volumes, {"name": token_volume, "projected": {"sources": []}}]}


def test_specs_differing_only_in_their_volume_names_have_one_form() -> None:
    first = spec("kube-api-access-b2c4d", {"name": "data", "emptyDir": {}}, mounts=("data",))
    second = spec("kube-api-access-xz789", {"name": "cache", "emptyDir": {}}, mounts=("cache",))
    assert volumes_by_position(first) == volumes_by_position(second)
    assert volumes_by_position(first) == {
        "containers": [{"name": "web", "image": "nginx", "volumeMounts": [
            {"name": "0", "mountPath": "/mnt/0"}, {"name": "1", "readOnly": True, "mountPath": TOKEN_PATH}]}],
        "initContainers": [{"name": "init", "image": "busybox",
                            "volumeMounts": [{"name": "1", "mountPath": TOKEN_PATH}]}],
        "volumes": [{"name": "0", "emptyDir": {}}, {"name": "1", "projected": {"sources": []}}],
    }
    assert first["volumes"][0]["name"] == "data"  # the spec itself is left as it was


def test_mounts_of_different_volumes_keep_different_forms() -> None:
    one = spec("kube-api-access-b2c4d", {"name": "data", "emptyDir": {}}, mounts=("data",))
    other = spec("kube-api-access-b2c4d", {"name": "data", "emptyDir": {}}, mounts=("kube-api-access-b2c4d",))
    assert volumes_by_position(one) != volumes_by_position(other)


@pytest.mark.parametrize("volume", [
    {"name": "Data", "emptyDir": {}},  # not a DNS label
    {"name": "d" * 64, "emptyDir": {}},  # too long for one
    {"name": "kube-api-access-b2c4d", "emptyDir": {}},  # a repeated name
    {"name": "claim", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},  # the claim is named after it
])
def test_a_name_that_counts_for_more_gives_no_form(volume: JSON) -> None:
    assert volumes_by_position(spec("kube-api-access-b2c4d", volume)) is None


@pytest.mark.parametrize("group", ["volumeMounts", "volumeDevices"])
def test_a_mount_or_device_naming_no_volume_gives_no_form(group: str) -> None:
    body: dict[str, Any] = spec("kube-api-access-b2c4d")
    body["containers"][0][group] = [{"name": "missing", "mountPath": "/m", "devicePath": "/d"}]
    assert volumes_by_position(body) is None


def test_a_spec_without_volumes_is_its_own_form() -> None:
    body = {"containers": [{"name": "web", "image": "nginx"}]}
    assert volumes_by_position(body) == body
