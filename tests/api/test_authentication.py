"""Authentication over HTTP as kube-apiserver does it with a token file and `--anonymous-auth`: who
`kubectl auth whoami` says the caller is, upstream's 401 Status, and the user in the request log.

Expected answers: upstream's tokenfile, bearertoken, anonymous and group authenticators
(k8s.io/apiserver/pkg/authentication) and the SelfSubjectReview REST storage, with AlwaysAllow.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.app import create_app
from fakeapi.config import Authentication, ServerConfig
from fakeapi.http.keys import api_key, request_log_key
from fakeapi.machinery.users import UserInfo

WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
PODS = "/api/v1/namespaces/default/pods"
TOKENS = {
    "alice-token": UserInfo("alice", "1001", ("dev", "ops")),
    "bob-token": UserInfo("bob", "1002"),
    "nobody-token": UserInfo("nobody", "", ("",)),
    "guest-token": UserInfo("guest", "", ("system:unauthenticated",)),
}
UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Unauthorized", "reason": "Unauthorized", "code": 401}
NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
CONTROL = {"X-Fakeapi-Control": "1"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def serve(aiohttp_client: Any, anonymous: bool) -> Any:
    app = create_app(ServerConfig(authentication=Authentication(TOKENS, anonymous=anonymous)))
    app[api_key].clock.freeze(NOW)
    return await aiohttp_client(app)


@pytest.fixture
async def anonymous_allowed(aiohttp_client: Any) -> Any:
    return await serve(aiohttp_client, anonymous=True)


@pytest.fixture
async def anonymous_refused(aiohttp_client: Any) -> Any:
    return await serve(aiohttp_client, anonymous=False)


async def whoami(client: Any, headers: dict[str, str]) -> Any:
    response = await client.post(WHOAMI, json={}, headers=headers)
    assert response.status == 201, await response.text()
    return (await response.json())["status"]["userInfo"]


@pytest.mark.parametrize(("token", "user"), [
    ("alice-token", {"username": "alice", "uid": "1001", "groups": ["dev", "ops", "system:authenticated"]}),
    ("bob-token", {"username": "bob", "uid": "1002", "groups": ["system:authenticated"]}),
    ("nobody-token", {"username": "nobody", "groups": ["", "system:authenticated"]}),
    # a user already in system:unauthenticated is not made authenticated too
    ("guest-token", {"username": "guest", "groups": ["system:unauthenticated"]}),
])
async def test_whoami_names_the_tokens_user(anonymous_refused: Any, token: str, user: Any) -> None:
    response = await anonymous_refused.post(WHOAMI, json={}, headers=bearer(token))
    assert response.status == 201
    assert await response.json() == {"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1",
                                     "metadata": {"creationTimestamp": "2025-03-01T12:00:00Z"},
                                     "status": {"userInfo": user}}


@pytest.mark.parametrize("authorization", [
    "bearer alice-token",  # the scheme in any case
    "Bearer alice-token and more",  # what follows a second space is not the token
    "  Bearer alice-token  ",
])
async def test_the_bearer_header_is_parsed_as_upstream_parses_it(anonymous_refused: Any, authorization: str) -> None:
    user = await whoami(anonymous_refused, {"Authorization": authorization})
    assert user["username"] == "alice"


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Basic YWxpY2U6c2VjcmV0"},  # another scheme is no credential
    {"Authorization": "Bearer"},
])
async def test_without_a_bearer_token_the_caller_is_anonymous(anonymous_allowed: Any, headers: dict[str, str]) -> None:
    assert await whoami(anonymous_allowed, headers) == {"username": "system:anonymous",
                                                        "groups": ["system:unauthenticated"]}


async def test_an_extra_space_before_the_token_is_no_token_and_a_warning(anonymous_allowed: Any) -> None:
    response = await anonymous_allowed.post(WHOAMI, json={}, headers={"Authorization": "Bearer  alice-token"})
    assert (await response.json())["status"]["userInfo"]["username"] == "system:anonymous"
    assert response.headers.getall("Warning") == [
        '299 - "the provided Authorization header contains extra space before the bearer token, and is ignored"']


@pytest.mark.parametrize("anonymous", [True, False], ids=["anonymous-allowed", "anonymous-refused"])
async def test_an_unknown_token_is_401_even_when_anonymous_requests_are_allowed(
        aiohttp_client: Any, make_pod: Any, anonymous: bool) -> None:
    client = await serve(aiohttp_client, anonymous)
    response = await client.post(PODS, json=make_pod("web"), headers=bearer("stolen"))
    assert response.status == 401
    assert response.headers["Content-Type"] == "application/json"
    assert "WWW-Authenticate" not in response.headers  # upstream sends no challenge
    assert await response.json() == UNAUTHORIZED
    assert (await client.get(PODS + "/web", headers=bearer("alice-token"))).status == 404


@pytest.mark.parametrize(("method", "path"), [
    ("GET", PODS), ("POST", PODS), ("GET", "/"), ("GET", "/version"), ("GET", "/healthz"), ("GET", "/livez"),
    ("GET", "/readyz"), ("GET", "/readyz/ping"), ("GET", "/api"), ("GET", "/apis"), ("GET", "/openapi/v2"),
    ("POST", WHOAMI), ("GET", "/no/such/path"), ("DELETE", "/version"),
    ("GET", "/fakeapi/v1/requests"), ("POST", "/fakeapi/v1/reset"),
])
async def test_with_anonymous_auth_off_every_path_needs_credentials(anonymous_refused: Any, method: str,
                                                                    path: str) -> None:
    # (with the control API's header: without it, fakeapi's rule against web pages answers first, 403)
    response = await anonymous_refused.request(method, path, headers={"X-Fakeapi-Control": "1"})
    assert (response.status, await response.json()) == (401, UNAUTHORIZED)


async def test_health_and_the_control_api_answer_a_token(anonymous_refused: Any) -> None:
    response = await anonymous_refused.get("/readyz", headers=bearer("bob-token"))
    assert (response.status, await response.text()) == (200, "ok")
    listed = await anonymous_refused.get("/fakeapi/v1/requests", headers={**bearer("bob-token"), **CONTROL})
    assert listed.status == 200


async def test_the_request_log_records_who_sent_each_request_and_not_the_401s(anonymous_allowed: Any) -> None:
    client = anonymous_allowed
    await client.get(PODS, headers=bearer("alice-token"))
    await client.get(PODS)
    await client.get(PODS, headers=bearer("stolen"))
    await client.get(PODS, headers=bearer("bob-token"))
    entries = client.app[request_log_key].entries()
    assert [entry.user for entry in entries] == [
        UserInfo("alice", "1001", ("dev", "ops", "system:authenticated")),
        UserInfo("system:anonymous", "", ("system:unauthenticated",)),
        UserInfo("bob", "1002", ("system:authenticated",)),
    ]
    listed = await (await client.get("/fakeapi/v1/requests?user=alice", headers={**bearer("bob-token"),
                                                                                   **CONTROL})).json()
    assert [entry["user"] for entry in listed["items"]] == [
        {"username": "alice", "uid": "1001", "groups": ["dev", "ops", "system:authenticated"]}]


async def test_reading_the_request_log_takes_an_authenticated_user_when_credentials_are_checked(
        anonymous_allowed: Any) -> None:
    """What clients sent is not for anybody who can reach the port: anonymous requests may do everything
    else (AlwaysAllow), but not read it."""
    await anonymous_allowed.get(PODS, headers=bearer("alice-token"))
    response = await anonymous_allowed.get("/fakeapi/v1/requests", headers=CONTROL)
    assert (response.status, await response.json()) == (403, {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'forbidden: User "system:anonymous" cannot get path "/fakeapi/v1/requests"',
        "reason": "Forbidden", "details": {}, "code": 403})
    response = await anonymous_allowed.get("/fakeapi/v1/requests", headers=bearer("alice-token"))  # no header
    assert response.status == 403
    assert (await response.json())["message"].startswith("reading the request log takes the header "
                                                          "X-Fakeapi-Control: 1")


async def test_without_a_token_file_an_unknown_bearer_token_is_401(client: Any) -> None:
    """The service account authenticator is always on, as upstream's: a token it does not know is refused
    even by a server that checks no other credential (a request without one stays anonymous)."""
    response = await client.post(WHOAMI, json={}, headers=bearer("anything"))
    assert (response.status, (await response.json())["reason"]) == (401, "Unauthorized")
    assert await whoami(client, {}) == {"username": "system:anonymous", "groups": ["system:unauthenticated"]}


# ---- TokenReview: what kube-rbac-proxy, webhook authenticators and kr8s's whoami ask

TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
ISSUER = "https://kubernetes.default.svc.cluster.local"
PROXY = {"User-Agent": "kube-rbac-proxy/v0.18.1"}


def token_review(spec: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    """Upstream's answer: the request echoed, with the managedFields its create handler adds, and the status."""
    owned = {f"f:{name}": {} for name in sorted(spec)}
    return {"kind": "TokenReview", "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": None, "managedFields": [
                {"manager": "kube-rbac-proxy", "operation": "Update", "apiVersion": "authentication.k8s.io/v1",
                 "time": "2025-03-01T12:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": owned}}]},
            "spec": spec, "status": status}


@pytest.mark.parametrize(("spec", "status"), [
    ({"token": "alice-token"},
     {"authenticated": True, "user": {"username": "alice", "uid": "1001",
                                      "groups": ["dev", "ops", "system:authenticated"]}, "audiences": [ISSUER]}),
    ({"token": "stolen"}, {"user": {}, "error": "invalid bearer token"}),
    ({"token": "alice-token extra"},  # the token is the header's second word, as for a request
     {"authenticated": True, "user": {"username": "alice", "uid": "1001",
                                      "groups": ["dev", "ops", "system:authenticated"]}, "audiences": [ISSUER]}),
    # the token file's tokens are for the API audiences (the issuer's) only
    ({"token": "alice-token", "audiences": ["https://kubernetes.default.svc"]},
     {"user": {}, "error": "invalid bearer token"}),
])
async def test_a_token_review_names_the_tokens_user(anonymous_refused: Any, spec: dict[str, Any],
                                                    status: dict[str, Any]) -> None:
    response = await anonymous_refused.post(TOKEN_REVIEWS, json={"spec": spec},
                                            headers={**PROXY, **bearer("bob-token")})
    assert (response.status, await response.json()) == (201, token_review(spec, status))


async def test_without_a_token_file_every_token_reviewed_is_invalid(client: Any) -> None:
    """A cluster always has token authenticators (its service accounts'), which refuse a token unknown."""
    response = await client.post(TOKEN_REVIEWS, json={"spec": {"token": "anything"}}, headers=PROXY)
    assert (await response.json())["status"] == {"user": {}, "error": "invalid bearer token"}


@pytest.mark.parametrize("body", [{}, {"spec": {}}, {"spec": {"token": ""}}, {"spec": {"audiences": ["a"]}}])
async def test_a_token_review_without_a_token_is_a_bad_request(anonymous_allowed: Any, body: dict[str, Any]) -> None:
    response = await anonymous_allowed.post(TOKEN_REVIEWS, json=body)
    assert response.status == 400
    assert (await response.json())["message"] == "token is required for TokenReview in authentication"
