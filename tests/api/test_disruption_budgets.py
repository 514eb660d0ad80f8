"""PodDisruptionBudgets over HTTP and the eviction of pods they guard, as upstream's EvictionREST answers: the
budget's status (the disruption controller's, written here through /status) decides; a refused eviction is a
429 with the budget's cause, an allowed one takes a disruption (recorded in `status.disruptedPods`) and marks
the pod with the DisruptionTarget condition before deleting it."""

from __future__ import annotations

from typing import Any

import pytest

PODS = "/api/v1/namespaces/default/pods"
BUDGETS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
MERGE = {"Content-Type": "application/merge-patch+json"}
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
VIOLATES = "Cannot evict pod as it would violate the pod's disruption budget."
ALLOWED = {"observedGeneration": 1, "disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1,
           "expectedPods": 2, "conditions": [{"type": "DisruptionAllowed", "status": "True", "reason": "SufficientPods",
                                               "message": "", "observedGeneration": 1,
                                               "lastTransitionTime": "2025-01-01T00:00:00Z"}]}


def budget(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec} if "selector" not in spec else spec}


def eviction(name: str = "web", **delete_options: Any) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name},
            **({"deleteOptions": delete_options} if delete_options else {})}


async def running_pod(client: Any, make_pod: Any, name: str = "web", ready: str = "True") -> None:
    """A pod on a node, running, Ready or not, labelled app=web."""
    assert (await client.post(PODS, json=make_pod(name, labels={"app": "web"}, nodeName="node-1"))).status == 201
    status = {"phase": "Running", "conditions": [{"type": "Ready", "status": ready}]}
    response = await client.patch(f"{PODS}/{name}/status", json={"status": status}, headers=MERGE)
    assert response.status == 200, await response.text()


async def guarded_by(client: Any, status: dict[str, Any], **spec: Any) -> dict[str, Any]:
    """A budget with minAvailable 1 (unless `spec` says otherwise) whose controller wrote `status`."""
    assert (await client.post(BUDGETS, json=budget(**(spec or {"minAvailable": 1})))).status == 201
    response = await client.patch(f"{BUDGETS}/web/status", json={"status": status}, headers=MERGE)
    assert response.status == 200, await response.text()
    return await response.json()  # type: ignore[no-any-return]


async def test_a_budget_is_created_at_generation_1_with_an_empty_status(client: Any) -> None:
    response = await client.post(BUDGETS, json={**budget(minAvailable="50%"), "status": {"disruptionsAllowed": 5}})
    assert response.status == 201
    created = await response.json()
    assert created["metadata"]["generation"] == 1
    assert created["spec"] == {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}}
    assert created["status"] == {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                                 "expectedPods": 0}
    patched = await client.patch(f"{BUDGETS}/web", json={"spec": {"minAvailable": 2}}, headers=MERGE)
    assert (await patched.json())["metadata"]["generation"] == 2


@pytest.mark.parametrize(("spec", "message"), [
    ({"minAvailable": 1, "maxUnavailable": 1},
     "spec: Invalid value: policy.PodDisruptionBudgetSpec{...}: minAvailable and maxUnavailable cannot be both set"),
    ({"minAvailable": -1}, "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"),
    # an IntOrString prints as Go's %#v of the struct
    ({"maxUnavailable": "120%"}, 'spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, '
                                 'StrVal:"120%"}: must not be greater than 100%'),
    ({"minAvailable": "x%"}, 'spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"x%"}: '
                             "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  "
                             "or '93%', regex used for validation is '[0-9]+%')"),
    ({"minAvailable": 1, "unhealthyPodEvictionPolicy": "Never"},
     'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", '
     '"IfHealthyBudget"'),
])
async def test_invalid_budgets_get_upstreams_messages(client: Any, spec: dict[str, Any], message: str) -> None:
    response = await client.post(BUDGETS, json=budget(**spec))
    assert response.status == 422
    assert (await response.json())["message"] == f'PodDisruptionBudget.policy "web" is invalid: {message}'
    assert (await client.get(f"{BUDGETS}/web")).status == 404


async def test_a_status_with_a_bad_condition_is_refused(client: Any) -> None:
    assert (await client.post(BUDGETS, json=budget(minAvailable=1))).status == 201
    bad = {"conditions": [{"type": "DisruptionAllowed", "status": "Maybe", "reason": "no way"}],
           "disruptionsAllowed": -1}
    response = await client.patch(f"{BUDGETS}/web/status", json={"status": bad}, headers=MERGE)
    assert response.status == 422
    causes = [(c["field"], c["reason"]) for c in (await response.json())["details"]["causes"]]
    assert causes == [("status.conditions[0].status", "FieldValueNotSupported"),
                      ("status.conditions[0].lastTransitionTime", "FieldValueRequired"),
                      ("status.conditions[0].reason", "FieldValueInvalid"),
                      ("status.disruptionsAllowed", "FieldValueInvalid")]


async def test_budgets_print_as_kubectl_shows_them(client: Any) -> None:
    await guarded_by(client, ALLOWED)
    table = await (await client.get(BUDGETS, headers={"Accept": TABLE})).json()
    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"]
    assert table["rows"][0]["cells"][:4] == ["web", "1", "N/A", 1]


async def test_a_budget_allowing_no_disruption_refuses_the_eviction_with_a_429(client: Any, make_pod: Any) -> None:
    await running_pod(client, make_pod)
    await guarded_by(client, {**ALLOWED, "disruptionsAllowed": 0, "currentHealthy": 1})
    response = await client.post(f"{PODS}/web/eviction", json=eviction())
    assert response.status == 429
    assert "Retry-After" not in response.headers
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": VIOLATES,
        "reason": "TooManyRequests", "details": {"causes": [{
            "reason": "DisruptionBudget", "message": "The disruption budget web needs 1 healthy pods and has 1 "
                                                     "currently"}]}, "code": 429}
    pod = await (await client.get(f"{PODS}/web")).json()
    assert "deletionTimestamp" not in pod["metadata"]
    assert [c["type"] for c in pod["status"]["conditions"]] == ["Ready"]


async def test_an_allowed_eviction_takes_a_disruption_and_marks_the_pod(client: Any, make_pod: Any) -> None:
    await running_pod(client, make_pod)
    await guarded_by(client, ALLOWED)
    response = await client.post(f"{PODS}/web/eviction", json=eviction())
    assert (response.status, await response.json()) == (201, SUCCESS)
    pod = await (await client.get(f"{PODS}/web")).json()
    assert pod["metadata"]["deletionGracePeriodSeconds"] == 30
    target = pod["status"]["conditions"][-1]
    assert {k: v for k, v in target.items() if k != "lastTransitionTime"} == {
        "type": "DisruptionTarget", "status": "True", "lastProbeTime": None, "reason": "EvictionByEvictionAPI",
        "message": "Eviction API: evicting"}
    status = (await (await client.get(f"{BUDGETS}/web")).json())["status"]
    assert status["disruptionsAllowed"] == 0
    assert list(status["disruptedPods"]) == ["web"]
    assert [(c["type"], c["status"], c["reason"]) for c in status["conditions"]] == [
        ("DisruptionAllowed", "False", "InsufficientPods")]
    # the next one is refused until the disruption controller counts again
    await running_pod(client, make_pod, "web-2")
    assert (await client.post(f"{PODS}/web-2/eviction", json=eviction("web-2"))).status == 429


async def test_a_dry_run_eviction_leaves_the_budget_and_the_pod(client: Any, make_pod: Any) -> None:
    await running_pod(client, make_pod)
    before = await guarded_by(client, ALLOWED)
    response = await client.post(f"{PODS}/web/eviction", json=eviction(), params={"dryRun": "All"})
    assert response.status == 201
    assert await (await client.get(f"{BUDGETS}/web")).json() == before
    pod = await (await client.get(f"{PODS}/web")).json()
    assert "deletionTimestamp" not in pod["metadata"] and len(pod["status"]["conditions"]) == 1


async def test_a_budget_not_yet_observed_asks_to_retry(client: Any, make_pod: Any) -> None:
    await running_pod(client, make_pod)
    await guarded_by(client, ALLOWED)
    await client.patch(f"{BUDGETS}/web", json={"spec": {"minAvailable": 2}}, headers=MERGE)  # generation 2
    response = await client.post(f"{PODS}/web/eviction", json=eviction())
    assert response.status == 429
    assert response.headers["Retry-After"] == "10"
    body = await response.json()
    assert body["details"] == {"causes": [{"reason": "DisruptionBudget", "message": "The disruption budget web is "
                                           "still being processed by the server."}], "retryAfterSeconds": 10}


async def test_pods_a_budget_need_not_count_go_without_a_disruption(client: Any, make_pod: Any) -> None:
    # a pending pod, and an unready one under AlwaysAllow, are evicted though no disruption is allowed
    assert (await client.post(PODS, json=make_pod("pending", labels={"app": "web"}))).status == 201
    await running_pod(client, make_pod, "unready", ready="False")
    await guarded_by(client, {**ALLOWED, "disruptionsAllowed": 0}, minAvailable=1,
                     unhealthyPodEvictionPolicy="AlwaysAllow")
    for name in ("pending", "unready"):
        response = await client.post(f"{PODS}/{name}/eviction", json=eviction(name, gracePeriodSeconds=0))
        assert (response.status, await response.json()) == (201, SUCCESS)
        assert (await client.get(f"{PODS}/{name}")).status == 404
    assert (await (await client.get(f"{BUDGETS}/web")).json())["status"]["disruptionsAllowed"] == 0


async def test_an_unready_pod_under_if_healthy_budget_needs_a_healthy_budget(client: Any, make_pod: Any) -> None:
    await running_pod(client, make_pod, "unready", ready="False")
    await guarded_by(client, {**ALLOWED, "disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 1})
    assert (await client.post(f"{PODS}/unready/eviction", json=eviction("unready"))).status == 429


async def test_a_pod_two_budgets_guard_is_not_evicted(client: Any, make_pod: Any) -> None:
    await running_pod(client, make_pod)
    await guarded_by(client, ALLOWED)
    assert (await client.post(BUDGETS, json=budget("other", maxUnavailable=1))).status == 201
    response = await client.post(f"{PODS}/web/eviction", json=eviction())
    assert response.status == 500
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not "
                   "support.", "code": 500}
    assert (await client.get(f"{PODS}/web")).status == 200


async def test_a_budget_selecting_nothing_guards_nothing(client: Any, make_pod: Any) -> None:
    await running_pod(client, make_pod)
    assert (await client.post(BUDGETS, json=budget(selector={}, minAvailable=1))).status == 201
    response = await client.post(f"{PODS}/web/eviction", json=eviction(gracePeriodSeconds=0))
    assert (response.status, await response.json()) == (201, SUCCESS)
