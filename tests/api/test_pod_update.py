"""PUT on a pod: conflicts, ignored status, generation, and the spec mutability rules."""

from __future__ import annotations

import copy
from typing import Any

from tests.builders import GUARANTEED, pod

PODS = "/api/v1/namespaces/default/pods"


async def created(client: Any, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = await client.post(PODS, json=body or pod())
    assert response.status == 201, await response.text()
    result: dict[str, Any] = await response.json()
    return result


async def test_put_with_stale_resource_version_is_409_and_changes_nothing(client: Any) -> None:
    current = await created(client)
    stale = copy.deepcopy(current)
    stale["metadata"]["resourceVersion"] = "1"
    stale["spec"]["containers"][0]["image"] = "nginx:1.28"
    response = await client.put(PODS + "/web", json=stale)
    assert response.status == 409
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Operation cannot be fulfilled on pods "web": the object has been modified; '
                   "please apply your changes to the latest version and try again",
        "reason": "Conflict", "details": {"name": "web", "kind": "pods"}, "code": 409}
    assert await (await client.get(PODS + "/web")).json() == current


async def test_stale_resource_version_is_checked_before_validation(client: Any) -> None:
    current = await created(client)
    current["metadata"]["resourceVersion"] = "1"
    current["spec"]["containers"][0]["image"] = ""
    response = await client.put(PODS + "/web", json=current)
    assert response.status == 409


async def test_put_without_resource_version_is_unconditional(client: Any) -> None:
    current = await created(client)
    del current["metadata"]["resourceVersion"]
    current["spec"]["containers"][0]["image"] = "nginx:1.28"
    response = await client.put(PODS + "/web", json=current)
    assert response.status == 200
    assert (await response.json())["spec"]["containers"][0]["image"] == "nginx:1.28"


async def test_image_change_bumps_generation_and_label_change_does_not(client: Any) -> None:
    current = await created(client)
    current["metadata"]["labels"]["tier"] = "front"
    labelled = await (await client.put(PODS + "/web", json=current)).json()
    assert labelled["metadata"]["generation"] == 1
    labelled["spec"]["containers"][0]["image"] = "nginx:1.28"
    updated = await (await client.put(PODS + "/web", json=labelled)).json()
    assert updated["metadata"]["generation"] == 2


async def test_status_sent_to_main_resource_is_ignored(client: Any) -> None:
    current = await created(client)
    current["status"] = {"phase": "Running", "qosClass": "Guaranteed"}
    current["metadata"]["generation"] = 10
    updated = await (await client.put(PODS + "/web", json=current)).json()
    assert updated["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    assert updated["metadata"]["generation"] == 1


async def test_unchanged_put_keeps_resource_version(client: Any) -> None:
    current = await created(client)
    updated = await (await client.put(PODS + "/web", json=current)).json()
    assert updated["metadata"]["resourceVersion"] == current["metadata"]["resourceVersion"]


async def test_an_unchanged_put_in_another_key_order_keeps_resource_version(client: Any) -> None:
    current = await created(client)

    def reordered(value: Any) -> Any:  # as a client that writes the fields in its own order
        if isinstance(value, dict):
            return {key: reordered(value[key]) for key in sorted(value, reverse=True)}
        return [reordered(item) for item in value] if isinstance(value, list) else value

    updated = await (await client.put(PODS + "/web", json=reordered(current))).json()
    assert updated == current


async def test_a_resent_spec_with_a_number_where_an_integer_goes_is_400(client: Any) -> None:
    current = await created(client)
    current["spec"]["terminationGracePeriodSeconds"] = 30.0  # == 30 for Python
    response = await client.put(PODS + "/web", json=current)
    assert response.status == 400
    assert (await response.json())["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number 30.0 into Go struct '
        "field PodSpec.spec.terminationGracePeriodSeconds of type int64")


async def test_name_mismatch_is_400(client: Any) -> None:
    current = await created(client)
    response = await client.put(PODS + "/other", json=current)
    assert response.status == 400
    assert (await response.json())["message"] == (
        "the name of the object (web) does not match the name on the URL (other)")


async def test_namespace_mismatch_is_400(client: Any) -> None:
    current = await created(client)
    current["metadata"]["namespace"] = "kube-system"
    response = await client.put(PODS + "/web", json=current)
    assert response.status == 400
    assert (await response.json())["message"] == (
        "the namespace of the object (kube-system) does not match the namespace on the request (default)")


async def test_put_of_missing_pod_is_404(client: Any) -> None:
    response = await client.put(PODS + "/web", json=pod())
    assert response.status == 404


async def test_resource_change_is_forbidden_with_upstream_prefix(client: Any) -> None:
    current = await created(client, pod(limits=GUARANTEED))
    current["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "1"
    response = await client.put(PODS + "/web", json=current)
    assert response.status == 422
    status = await response.json()
    assert status["details"]["causes"][0]["field"] == "spec"
    assert status["details"]["causes"][0]["reason"] == "FieldValueForbidden"
    assert status["message"].startswith(
        'Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than '
        "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
        "`spec.tolerations` (only additions to existing tolerations),"
        "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)")


async def test_adding_a_container_is_forbidden(client: Any) -> None:
    current = await created(client)
    current["spec"]["containers"].append({"name": "side", "image": "busybox"})
    response = await client.put(PODS + "/web", json=current)
    assert response.status == 422
    assert (await response.json())["message"] == (
        'Pod "web" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers')


async def test_uid_mismatch_is_409_precondition(client: Any) -> None:
    current = await created(client)
    current["metadata"]["uid"] = "00000000-0000-0000-0000-000000000000"
    response = await client.put(PODS + "/web", json=current)
    assert response.status == 409
    message = (await response.json())["message"]
    assert message.startswith('Operation cannot be fulfilled on pods "web": Precondition failed: UID in precondition:')
