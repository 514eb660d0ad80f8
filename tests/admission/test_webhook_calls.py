"""Admission webhooks called from the write pipeline, over HTTPS to a test server with its own CA: the
AdmissionReview sent, denials, JSONPatch mutations checked again by validation, failures under each
failurePolicy, warnings, and the matching of rules, selectors and match conditions."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
from typing import Any

import orjson
import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from fakeapi.testing import FakeAPIServer
from tests.admission.conftest import WebhookServer
from tests.admission.rest import call

GROUP = "admissionregistration.k8s.io"


def rule(operations: tuple[str, ...] = ("CREATE",), resources: tuple[str, ...] = ("pods",), **extra: Any) -> Any:
    return {"operations": list(operations), "apiGroups": [""], "apiVersions": ["v1"], "resources": list(resources),
            **extra}


def hook(name: str, client_config: dict[str, Any], *rules: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "sideEffects": "None", "admissionReviewVersions": ["v1"], "clientConfig": client_config,
            "rules": list(rules) or [rule()], **extra}


def configure(fakeapi: FakeAPIServer, kind: str, *hooks: dict[str, Any], name: str = "hooks") -> None:
    body = {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": name}, "webhooks": list(hooks)}
    status, answer, _ = call(fakeapi, "POST", f"/apis/{GROUP}/v1/{kind.lower()}s", body)
    assert status == 201, answer


def validating(fakeapi: FakeAPIServer, *hooks: dict[str, Any]) -> None:
    configure(fakeapi, "ValidatingWebhookConfiguration", *hooks)


def mutating(fakeapi: FakeAPIServer, *hooks: dict[str, Any]) -> None:
    configure(fakeapi, "MutatingWebhookConfiguration", *hooks)


def pod(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


def core(fakeapi: FakeAPIServer) -> Any:
    return client.CoreV1Api(fakeapi.kubernetes_client())


def refused(fakeapi: FakeAPIServer, body: dict[str, Any], namespace: str = "default") -> tuple[int, dict[str, Any]]:
    with pytest.raises(ApiException) as raised:
        core(fakeapi).create_namespaced_pod(namespace, body)
    return raised.value.status, json.loads(raised.value.body)


def pods(fakeapi: FakeAPIServer) -> list[str]:
    return [item.metadata.name for item in core(fakeapi).list_namespaced_pod("default").items]


def deny_bad(request: dict[str, Any]) -> dict[str, Any]:
    if request["name"] == "bad":
        return {"allowed": False, "status": {"code": 403, "message": "no pods named bad", "reason": "Forbidden"}}
    return {"allowed": True}


def test_a_validating_webhook_denies_with_its_message_and_code(served: FakeAPIServer, hooks: WebhookServer) -> None:
    hooks.answers["/validate"] = deny_bad
    validating(served, hook("deny.example.com", {"service": {"name": "hook", "namespace": "default",
                                                             "path": "/validate"}, "caBundle": hooks.ca_bundle}))
    status, body = refused(served, pod("bad"))
    assert status == 403
    assert body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": 'admission webhook "deny.example.com" denied the request: no pods named bad',
                    "reason": "Forbidden", "code": 403}
    core(served).create_namespaced_pod("default", pod("good"))
    assert pods(served) == ["good"]


def test_the_review_describes_the_request(served: FakeAPIServer, hooks: WebhookServer) -> None:
    validating(served, hook("see.example.com", hooks.client_config("/see"), rule(("CREATE", "UPDATE", "DELETE"))))
    status, _, _ = call(served, "POST", "/api/v1/namespaces/default/pods?fieldManager=me&dryRun=All", pod("web"))
    assert status == 201
    request = hooks.reviews["/see"][-1]["request"]
    assert hooks.reviews["/see"][-1]["apiVersion"] == "admission.k8s.io/v1"
    assert request["kind"] == request["requestKind"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert request["resource"] == request["requestResource"] == {"group": "", "version": "v1", "resource": "pods"}
    assert (request["name"], request["namespace"], request["operation"]) == ("web", "default", "CREATE")
    assert request["userInfo"] == {"username": "system:anonymous", "groups": ["system:unauthenticated"]}
    assert request["object"]["metadata"]["name"] == "web" and request["oldObject"] is None
    assert request["dryRun"] is True
    assert request["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": ["All"],
                                  "fieldManager": "me"}
    assert len(request["uid"]) == 36
    core(served).create_namespaced_pod("default", pod("web"))
    core(served).patch_namespaced_pod("web", "default", {"metadata": {"labels": {"a": "b"}}})
    update = hooks.reviews["/see"][-1]["request"]
    assert update["operation"] == "UPDATE" and update["options"]["kind"] == "UpdateOptions"
    assert update["oldObject"]["metadata"].get("labels") is None and update["object"]["metadata"]["labels"] == {
        "a": "b"}
    core(served).delete_namespaced_pod("web", "default", grace_period_seconds=0)
    delete = hooks.reviews["/see"][-1]["request"]
    assert delete["operation"] == "DELETE" and delete["object"] is None
    assert delete["options"] == {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "gracePeriodSeconds": 0}


def test_a_mutating_webhook_patches_and_validation_checks_the_result(served: FakeAPIServer,
                                                                     hooks: WebhookServer) -> None:
    def label(request: dict[str, Any]) -> dict[str, Any]:
        value = "x" if request["name"] != "broken" else "not a valid value!"
        patch = [{"op": "add", "path": "/metadata/labels/added-by", "value": value}]
        return {"allowed": True, "patchType": "JSONPatch", "patch": base64.b64encode(orjson.dumps(patch)).decode()}

    hooks.answers["/mutate"] = label
    mutating(served, hook("label.example.com", hooks.client_config("/mutate")))
    created = core(served).create_namespaced_pod("default", pod("web", app="web"))
    assert created.metadata.labels == {"app": "web", "added-by": "x"}
    status, body = refused(served, pod("broken", app="web"))
    assert status == 422
    assert body["message"].startswith('Pod "broken" is invalid: metadata.labels: Invalid value: "not a valid value!"')
    assert pods(served) == ["web"]


def test_an_unreachable_webhook_fails_closed_or_open(served: FakeAPIServer, hooks: WebhookServer) -> None:
    url = "https://127.0.0.1:1/validate"
    validating(served, hook("closed.example.com", {"url": url, "caBundle": hooks.ca_bundle}))
    status, body = refused(served, pod("web"))
    reason = f'failed calling webhook "closed.example.com": failed to call webhook: Post "{url}?timeout=10s": ' \
             "dial tcp 127.0.0.1:1: connect: connection refused"
    assert status == 500
    assert body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": f"Internal error occurred: {reason}", "reason": "InternalError",
                    "details": {"causes": [{"message": reason}]}, "code": 500}
    assert pods(served) == []
    call(served, "DELETE", f"/apis/{GROUP}/v1/validatingwebhookconfigurations/hooks")
    validating(served, hook("open.example.com", {"url": url, "caBundle": hooks.ca_bundle}, failurePolicy="Ignore"))
    core(served).create_namespaced_pod("default", pod("web"))
    assert pods(served) == ["web"]


def test_a_certificate_the_ca_bundle_does_not_sign_fails(served: FakeAPIServer, hooks: WebhookServer) -> None:
    validating(served, hook("ca.example.com", {"url": hooks.url("/v")}))
    status, body = refused(served, pod("web"))
    assert status == 500
    assert body["message"].endswith(f'Post "{hooks.url("/v")}?timeout=10s": tls: failed to verify certificate: '
                                    "x509: certificate signed by unknown authority")


def test_a_hanging_webhook_times_out_without_holding_other_requests(served: FakeAPIServer,
                                                                    hooks: WebhookServer) -> None:
    async def hang(request: Any) -> Any:
        await asyncio.sleep(6)
        raise AssertionError("answered too late")

    hooks.raw["/hang"] = hang
    validating(served, hook("slow.example.com", hooks.client_config("/hang"), timeoutSeconds=3))
    took: list[float] = []

    def read_meanwhile() -> None:
        time.sleep(0.3)
        started = time.monotonic()
        core(served).list_namespace()
        took.append(time.monotonic() - started)

    reader = threading.Thread(target=read_meanwhile)
    reader.start()
    status, body = refused(served, pod("web"))
    reader.join()
    assert status == 500
    assert body["message"].endswith(f'Post "{hooks.url("/hang")}?timeout=3s": context deadline exceeded')
    assert took and took[0] < 1.5  # (the create waited 3 s meanwhile)
    assert pods(served) == []


@pytest.mark.parametrize(("answer", "reason"), [
    ({"uid": "someone-else", "allowed": True}, 'received invalid webhook response: expected response.uid="{uid}", '
                                               'got "someone-else"'),
    ({"allowed": True, "patch": "W10=", "patchType": "JSONPatch"},
     "received invalid webhook response: validating webhook may not return response.patch or response.patchType"),
])
def test_a_broken_answer_is_upstreams_error(served: FakeAPIServer, hooks: WebhookServer, answer: dict[str, Any],
                                            reason: str) -> None:
    hooks.answers["/v"] = lambda request: answer
    validating(served, hook("broken.example.com", hooks.client_config("/v")))
    status, body = refused(served, pod("web"))
    uid = hooks.reviews["/v"][-1]["request"]["uid"]
    assert status == 500
    assert body["message"] == f'Internal error occurred: failed calling webhook "broken.example.com": ' \
                              f"{reason.format(uid=uid)}"
    assert pods(served) == []


def test_garbage_and_oversized_answers_fail_the_call(served: FakeAPIServer, hooks: WebhookServer) -> None:
    from aiohttp import web

    async def garbage(request: web.Request) -> web.Response:
        return web.Response(body=b"not json", content_type="application/json")

    hooks.raw["/garbage"] = garbage
    validating(served, hook("garbage.example.com", hooks.client_config("/garbage")))
    status, body = refused(served, pod("web"))
    assert status == 500
    assert body["message"].startswith('Internal error occurred: failed calling webhook "garbage.example.com": '
                                      f'failed to call webhook: Post "{hooks.url("/garbage")}?timeout=10s": ')


def test_warnings_reach_the_client(served: FakeAPIServer, hooks: WebhookServer) -> None:
    hooks.answers["/warn"] = lambda request: {"allowed": True, "warnings": ["careful now"],
                                              "auditAnnotations": {"seen": "yes"}}
    validating(served, hook("warn.example.com", hooks.client_config("/warn")))
    status, _, headers = call(served, "POST", "/api/v1/namespaces/default/pods", pod("web"))
    assert status == 201 and headers["Warning"] == '299 - "careful now"'


def test_rules_scope_and_subresources_choose_the_requests(served: FakeAPIServer, hooks: WebhookServer) -> None:
    validating(served, hook("status.example.com", hooks.client_config("/status"),
                            rule(("UPDATE",), ("pods/status",))),
               hook("cluster.example.com", hooks.client_config("/cluster"),
                    rule(("CREATE",), ("*",), scope="Cluster")))
    core(served).create_namespaced_pod("default", pod("web"))
    assert "/status" not in hooks.reviews and "/cluster" not in hooks.reviews
    core(served).patch_namespaced_pod_status("web", "default", {"status": {"phase": "Running"}})
    assert hooks.reviews["/status"][-1]["request"]["subResource"] == "status"
    core(served).create_namespace({"metadata": {"name": "team"}})
    assert hooks.reviews["/cluster"][-1]["request"]["kind"]["kind"] == "Namespace"


def test_selectors_and_match_conditions_choose_the_requests(served: FakeAPIServer, hooks: WebhookServer) -> None:
    hooks.answers["/v"] = lambda request: {"allowed": False, "status": {"message": "stop"}}
    validating(served, hook("picky.example.com", hooks.client_config("/v"),
                            namespaceSelector={"matchLabels": {"checked": "yes"}},
                            objectSelector={"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]},
                            matchConditions=[{"name": "not-web", "expression": "object.metadata.name != 'web'"}]))
    core(served).create_namespace({"metadata": {"name": "checked", "labels": {"checked": "yes"}}})
    core(served).create_namespaced_pod("default", pod("a"))  # namespace not selected
    core(served).create_namespaced_pod("checked", pod("b", skip="1"))  # object not selected
    core(served).create_namespaced_pod("checked", pod("web"))  # the condition is false
    status, body = refused(served, pod("c"), "checked")
    assert (status, body["message"]) == (400, 'admission webhook "picky.example.com" denied the request: stop')


def test_configurations_themselves_are_never_sent_to_webhooks(served: FakeAPIServer, hooks: WebhookServer) -> None:
    hooks.answers["/v"] = lambda request: {"allowed": False}
    validating(served, hook("all.example.com", hooks.client_config("/v"),
                            {"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}))
    configure(served, "MutatingWebhookConfiguration", hook("other.example.com", hooks.client_config("/m")),
              name="more")
    status, body = refused(served, pod("web"))
    assert body["message"] == 'admission webhook "all.example.com" denied the request without explanation'


def test_reinvocation_if_needed_runs_a_webhook_again_after_a_later_change(served: FakeAPIServer,
                                                                          hooks: WebhookServer) -> None:
    def add(label: str) -> Any:
        def answer(request: dict[str, Any]) -> dict[str, Any]:
            labels = request["object"]["metadata"].get("labels") or {}
            if label in labels:
                return {"allowed": True}
            patch = [{"op": "add", "path": f"/metadata/labels/{label}", "value": str(len(labels))}]
            return {"allowed": True, "patchType": "JSONPatch",
                    "patch": base64.b64encode(orjson.dumps(patch)).decode()}
        return answer

    hooks.answers["/first"], hooks.answers["/second"] = add("first"), add("second")
    pod_rule = rule()
    mutating(served, hook("a.example.com", hooks.client_config("/first"), pod_rule, reinvocationPolicy="IfNeeded"),
             hook("b.example.com", hooks.client_config("/second"), pod_rule))
    created = core(served).create_namespaced_pod("default", pod("web", start="1"))
    assert created.metadata.labels == {"start": "1", "first": "1", "second": "2"}
    assert len(hooks.reviews["/first"]) == 2 and len(hooks.reviews["/second"]) == 1
    assert hooks.reviews["/first"][1]["request"]["object"]["metadata"]["labels"]["second"] == "2"


def test_redirects_are_followed_up_to_ten(served: FakeAPIServer, hooks: WebhookServer) -> None:
    from aiohttp import web

    async def moved(request: web.Request) -> web.Response:
        raise web.HTTPTemporaryRedirect(hooks.url("/allow"))

    async def loop(request: web.Request) -> web.Response:
        raise web.HTTPTemporaryRedirect(hooks.url("/loop"))

    hooks.raw["/moved"], hooks.raw["/loop"] = moved, loop
    validating(served, hook("moved.example.com", hooks.client_config("/moved")),
               hook("loop.example.com", hooks.client_config("/loop"), failurePolicy="Ignore"))
    core(served).create_namespaced_pod("default", pod("web"))
    assert len(hooks.reviews["/allow"]) == 1
    call(served, "DELETE", f"/apis/{GROUP}/v1/validatingwebhookconfigurations/hooks")
    validating(served, hook("loop.example.com", hooks.client_config("/loop")))
    status, body = refused(served, pod("other"))
    assert status == 500
    assert body["message"].endswith(f'Post "{hooks.url("/loop")}?timeout=10s": stopped after 10 redirects')


def test_an_answer_over_the_size_limit_fails_the_call(served: FakeAPIServer, hooks: WebhookServer) -> None:
    hooks.answers["/big"] = lambda request: {"allowed": True, "warnings": ["x" * (33 * 1024 * 1024)]}
    validating(served, hook("big.example.com", hooks.client_config("/big")))
    status, body = refused(served, pod("web"))
    assert status == 500
    assert body["message"].endswith(f'Post "{hooks.url("/big")}?timeout=10s": response body too large')
    assert pods(served) == []


def test_a_dry_run_reaches_webhooks_without_side_effects_and_stores_nothing(served: FakeAPIServer,
                                                                           hooks: WebhookServer) -> None:
    validating(served, hook("dry.example.com", hooks.client_config("/dry"), sideEffects="NoneOnDryRun"))
    status, _, _ = call(served, "POST", "/api/v1/namespaces/default/pods?dryRun=All", pod("web"))
    assert status == 201 and hooks.reviews["/dry"][-1]["request"]["dryRun"] is True
    assert pods(served) == []


def test_a_denial_keeps_the_warnings_given_with_it(served: FakeAPIServer, hooks: WebhookServer) -> None:
    hooks.answers["/no"] = lambda request: {"allowed": False, "warnings": ["you were warned"],
                                            "status": {"message": "no"}}
    validating(served, hook("no.example.com", hooks.client_config("/no")))
    status, body, headers = call(served, "POST", "/api/v1/namespaces/default/pods", pod("web"))
    assert status == 400 and headers["Warning"] == '299 - "you were warned"'


def test_the_review_names_the_authenticated_user(hooks: WebhookServer) -> None:
    with FakeAPIServer(token="secret-token") as server:
        validating(server, hook("who.example.com", hooks.client_config("/who")))
        core(server).create_namespaced_pod("default", pod("web"))
    assert hooks.reviews["/who"][-1]["request"]["userInfo"] == {
        "username": "kubernetes-admin", "groups": ["system:masters", "system:authenticated"]}


@pytest.mark.parametrize(("policy", "called"), [("Exact", False), ("Equivalent", True)])
def test_match_policy_equivalent_matches_another_served_version(served: FakeAPIServer, hooks: WebhookServer,
                                                                policy: str, called: bool) -> None:
    v1_only = {"operations": ["CREATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v1"],
               "resources": ["horizontalpodautoscalers"]}
    validating(served, hook("hpa.example.com", hooks.client_config("/hpa"), v1_only, matchPolicy=policy))
    client.AutoscalingV2Api(served.kubernetes_client()).create_namespaced_horizontal_pod_autoscaler("default", {
        "metadata": {"name": "web"}, "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 3}})
    assert ("/hpa" in hooks.reviews) is called
    if called:
        assert hooks.reviews["/hpa"][0]["request"]["kind"] == {"group": "autoscaling", "version": "v2",
                                                              "kind": "HorizontalPodAutoscaler"}


def test_a_collection_delete_asks_for_each_object(served: FakeAPIServer, hooks: WebhookServer) -> None:
    hooks.answers["/del"] = lambda request: {"allowed": request["name"] != "keep",
                                             "status": {"message": "keep stays"}}
    for name in ("a", "keep"):
        core(served).create_namespaced_pod("default", pod(name))
    validating(served, hook("del.example.com", hooks.client_config("/del"), rule(("DELETE",))))
    with pytest.raises(ApiException) as raised:
        core(served).delete_collection_namespaced_pod("default", grace_period_seconds=0)
    assert json.loads(raised.value.body)["message"] == \
        'admission webhook "del.example.com" denied the request: keep stays'
    assert pods(served) == ["keep"]
    assert sorted(review["request"]["name"] for review in hooks.reviews["/del"]) == ["a", "keep"]


def test_evictions_and_bindings_are_creates_of_pod_subresources(served: FakeAPIServer, hooks: WebhookServer) -> None:
    hooks.answers["/sub"] = lambda request: {"allowed": request["subResource"] != "eviction",
                                             "status": {"message": "not now"}}
    core(served).create_namespaced_pod("default", pod("web"))
    validating(served, hook("sub.example.com", hooks.client_config("/sub"),
                            rule(("CREATE",), ("pods/eviction", "pods/binding"))))
    status, body, _ = call(served, "POST", "/api/v1/namespaces/default/pods/web/binding",
                           {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web"},
                            "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}})
    assert status == 201, body
    binding = hooks.reviews["/sub"][-1]["request"]
    assert (binding["subResource"], binding["kind"]["kind"], binding["object"]["target"]["name"]) == (
        "binding", "Binding", "node-1")
    status, body, _ = call(served, "POST", "/api/v1/namespaces/default/pods/web/eviction",
                           {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web"}})
    assert (status, body["message"]) == (400, 'admission webhook "sub.example.com" denied the request: not now')
    eviction = hooks.reviews["/sub"][-1]["request"]
    assert eviction["kind"] == {"group": "policy", "version": "v1", "kind": "Eviction"}
    assert eviction["options"]["kind"] == "CreateOptions"
    assert pods(served) == ["web"]


def test_a_kind_stored_as_another_is_sent_as_the_request_shows_it(served: FakeAPIServer,
                                                                   hooks: WebhookServer) -> None:
    validating(served, hook("events.example.com", hooks.client_config("/events"),
                            {"operations": ["CREATE"], "apiGroups": ["events.k8s.io"], "apiVersions": ["v1"],
                             "resources": ["events"]}))
    event = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e1"},
             "eventTime": "2026-12-05T05:00:00.000000Z", "note": "pulled", "reason": "Pulled", "action": "Pull",
             "type": "Normal", "reportingController": "kubelet", "reportingInstance": "node-1",
             "regarding": {"kind": "Pod", "name": "web", "namespace": "default"}}
    status, body, _ = call(served, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", event)
    assert status == 201, body
    sent = hooks.reviews["/events"][-1]["request"]["object"]
    assert sent["apiVersion"] == "events.k8s.io/v1" and sent["note"] == "pulled" and "message" not in sent
