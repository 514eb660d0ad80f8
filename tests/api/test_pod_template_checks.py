"""Pods made from one template are checked as if each were the first: what a server remembers of earlier
pods (their spec passed, with other volume names) never hides an error, nor names it differently."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import pod
from tests.validation_messages import LABEL_MSG

PODS = "/api/v1/namespaces/default/pods"


def template(name: str, volume: str = "data", mounted: str | None = None,
             volumes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A pod with one emptyDir volume `volume` (or `volumes`), mounted (as `mounted`, by default the same
    name) at /data."""
    mount = {"name": volume if mounted is None else mounted, "mountPath": "/data"}
    containers = [{"name": "web", "image": "nginx", "volumeMounts": [mount]}]
    return pod(name, containers=containers, volumes=volumes or [{"name": volume, "emptyDir": {}}])


async def causes(client: Any, body: dict[str, Any]) -> list[tuple[str, str]]:
    response = await client.post(PODS, json=body)
    assert response.status == 422, await response.text()
    return [(cause["field"], cause["message"]) for cause in (await response.json())["details"]["causes"]]


async def test_pods_differing_only_in_volume_names_are_all_created(client: Any) -> None:
    for index, volume in enumerate(("data", "cache", "a" * 63)):
        response = await client.post(PODS, json=template(f"web-{index}", volume))
        assert response.status == 201, await response.text()
        spec = (await response.json())["spec"]
        assert [v["name"] for v in spec["volumes"]][0] == volume


@pytest.mark.parametrize(("body", "expected"), [
    (template("b", "data", mounted="other"),
     [("spec.containers[0].volumeMounts[0].name", 'Not found: "other"')]),
    (template("b", "Data_1"),
     [("spec.volumes[0].name", f'Invalid value: "Data_1": {LABEL_MSG}'),
      ("spec.containers[0].volumeMounts[0].name", 'Not found: "Data_1"')]),
    (template("b", "d" * 64),
     [("spec.volumes[0].name", f'Invalid value: "{"d" * 64}": must be no more than 63 characters'),
      ("spec.containers[0].volumeMounts[0].name", f'Not found: "{"d" * 64}"')]),
    (template("b", volumes=[{"name": "data", "emptyDir": {}}, {"name": "data", "emptyDir": {}}]),
     [("spec.volumes[1].name", 'Duplicate value: "data"')]),
])
async def test_an_error_in_a_pod_from_a_template_that_passed_is_found(
        client: Any, body: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert (await client.post(PODS, json=template("a"))).status == 201
    assert await causes(client, body) == expected


async def test_a_mount_naming_another_pods_generated_volume_is_not_found(client: Any) -> None:
    first = await (await client.post(PODS, json=pod("a"))).json()
    generated = first["spec"]["volumes"][0]["name"]
    assert generated.startswith("kube-api-access-")
    sidecar = {"name": "side", "image": "nginx", "volumeMounts": [{"name": generated, "mountPath": "/token"}]}
    body = pod("b", containers=[*pod()["spec"]["containers"], sidecar])
    assert await causes(client, body) == [("spec.containers[1].volumeMounts[0].name", f'Not found: "{generated}"')]


async def test_create_warnings_of_a_template_are_given_for_every_pod(client: Any) -> None:
    for name in ("a", "b"):
        body = template(name, volumes=[{"name": "data", "gitRepo": {"repository": "https://example.com/r.git"}}])
        response = await client.post(PODS, json=body)
        assert response.status == 201, await response.text()
        assert response.headers.getall("Warning") == ['299 - "spec.volumes[0].gitRepo: deprecated in v1.11"']
