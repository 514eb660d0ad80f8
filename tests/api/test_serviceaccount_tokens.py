"""Service account tokens over HTTP: the TokenRequest subresource (`serviceaccounts/{name}/token`), the
claims of its tokens, the issuer's OpenID discovery, and the tokens authenticating requests and TokenReviews.

Expected answers: upstream's pkg/registry/core/serviceaccount/storage/token.go, pkg/serviceaccount
(claims.go, jwt.go), the TokenRequest validation and the JWT authenticator's messages.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from fakeapi.http.keys import api_key
from fakeapi.machinery.serviceaccountsettings import ServiceAccountSettings

ISSUER = "https://kubernetes.default.svc.cluster.local"
NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
T0 = int(NOW.timestamp())
SAS = "/api/v1/namespaces/default/serviceaccounts"
WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Unauthorized", "reason": "Unauthorized", "code": 401}


@pytest.fixture
async def api(aiohttp_client: Any) -> Any:
    app = create_app(ServerConfig(seed=1))
    app[api_key].clock.freeze(NOW)
    client = await aiohttp_client(app)
    client.clock = app[api_key].clock
    response = await client.post(SAS, json={"metadata": {"name": "robot"}})
    assert response.status == 201
    return client


def claims(token: str) -> Any:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def header(token: str) -> Any:
    part = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


async def request_token(client: Any, spec: dict[str, Any] | None = None, name: str = "robot",
                        status: int = 201) -> Any:
    response = await client.post(f"{SAS}/{name}/token", json={"spec": spec or {}})
    body = await response.json()
    assert response.status == status, body
    return body


async def whoami(client: Any, token: str) -> Any:
    response = await client.post(WHOAMI, json={}, headers={"Authorization": f"Bearer {token}"})
    body = await response.json()
    return body["status"]["userInfo"] if response.status == 201 else body


async def uid_of(client: Any, path: str) -> str:
    response = await client.get(path)
    return str((await response.json())["metadata"]["uid"])


async def test_a_token_request_is_answered_with_upstreams_fields_and_a_signed_token(api: Any) -> None:
    answer = await request_token(api)
    token = answer["status"].pop("token")
    assert answer == {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
                      "metadata": {"name": "robot", "namespace": "default",
                                   "creationTimestamp": "2025-03-01T12:00:00Z"},
                      "spec": {"audiences": [ISSUER], "expirationSeconds": 3600, "boundObjectRef": None},
                      "status": {"expirationTimestamp": "2025-03-01T13:00:00Z"}}
    sa_uid = await uid_of(api, f"{SAS}/robot")
    jti = claims(token).pop("jti")
    assert len(jti) == 36
    assert claims(token) | {"jti": jti} == {
        "aud": [ISSUER], "exp": T0 + 3600, "iat": T0, "nbf": T0, "iss": ISSUER, "jti": jti,
        "sub": "system:serviceaccount:default:robot",
        "kubernetes.io": {"namespace": "default", "serviceaccount": {"name": "robot", "uid": sa_uid}}}
    keys = (await (await api.get("/openid/v1/jwks")).json())["keys"]
    assert header(token) == {"alg": "ES256", "kid": keys[0]["kid"]}


async def test_the_token_authenticates_as_the_service_account(api: Any) -> None:
    token = (await request_token(api))["status"]["token"]
    jti = claims(token)["jti"]
    assert await whoami(api, token) == {
        "username": "system:serviceaccount:default:robot", "uid": await uid_of(api, f"{SAS}/robot"),
        "groups": ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
        "extra": {"authentication.kubernetes.io/credential-id": [f"JTI={jti}"]}}


async def test_audiences_and_expiration_are_the_requests(api: Any) -> None:
    answer = await request_token(api, {"audiences": ["vault", "nats"], "expirationSeconds": 600})
    token = answer["status"]["token"]
    assert (claims(token)["aud"], claims(token)["exp"]) == (["vault", "nats"], T0 + 600)
    assert answer["status"]["expirationTimestamp"] == "2025-03-01T12:10:00Z"
    # not for the API: a request with it is refused, a review for its audience accepts it
    assert await whoami(api, token) == UNAUTHORIZED
    response = await api.post(TOKEN_REVIEWS, json={"spec": {"token": token}})
    assert (await response.json())["status"] == {
        "user": {}, "error": f'token audiences ["vault" "nats"] is invalid for the target audiences ["{ISSUER}"]'}
    response = await api.post(TOKEN_REVIEWS, json={"spec": {"token": token, "audiences": ["nats", "other"]}})
    status = (await response.json())["status"]
    assert (status["authenticated"], status["user"]["username"], status["audiences"]) == (
        True, "system:serviceaccount:default:robot", ["nats"])


@pytest.mark.parametrize(("seconds", "message"), [
    (599, "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes"),
    (0, "spec.expirationSeconds: Invalid value: 0: may not specify a duration less than 10 minutes"),
    ((1 << 32) + 1, "spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than "
                    "2^32 seconds"),
])
async def test_an_expiration_out_of_bounds_is_invalid(api: Any, seconds: int, message: str) -> None:
    body = await request_token(api, {"expirationSeconds": seconds}, status=422)
    assert body["message"] == f'TokenRequest.authentication.k8s.io "" is invalid: {message}'
    assert body["details"] == {"group": "authentication.k8s.io", "kind": "TokenRequest", "causes": [
        {"reason": "FieldValueInvalid", "message": message.split(": ", 1)[1], "field": "spec.expirationSeconds"}]}


async def test_bad_requests_get_upstreams_errors(api: Any) -> None:
    missing = await request_token(api, name="nobody", status=404)
    assert missing["message"] == 'serviceaccounts "nobody" not found'
    response = await api.post(f"{SAS}/robot/token", json={"metadata": {"name": "other"}})
    assert (response.status, (await response.json())["message"]) == (
        422, 'TokenRequest.authentication.k8s.io "robot" is invalid: metadata.name: Invalid value: "other": '
             "must match the service account name if specified")
    response = await api.post(f"{SAS}/robot/token", json={"spec": {"expirationSeconds": "soon"}})
    assert response.status == 400
    bound = await request_token(api, {"boundObjectRef": {"kind": "ConfigMap", "apiVersion": "v1", "name": "x"}},
                                status=400)
    assert bound["message"] == "cannot bind token to object of type /v1, Kind=ConfigMap"
    response = await api.post(f"{SAS}/robot/token", data=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status == 400


async def test_a_token_bound_to_a_pod_names_it_and_dies_with_it(api: Any, make_pod: Any) -> None:
    pod = make_pod("web", spec={"serviceAccountName": "robot", "nodeName": "node-a",
                                "containers": [{"name": "c", "image": "nginx"}]})
    assert (await api.post("/api/v1/nodes", json={"metadata": {"name": "node-a"}})).status == 201
    assert (await api.post("/api/v1/namespaces/default/pods", json=pod)).status == 201
    pod_uid = await uid_of(api, "/api/v1/namespaces/default/pods/web")
    node_uid = await uid_of(api, "/api/v1/nodes/node-a")
    ref = {"kind": "Pod", "apiVersion": "v1", "name": "web"}
    answer = await request_token(api, {"boundObjectRef": {**ref, "uid": pod_uid}})
    token = answer["status"]["token"]
    assert claims(token)["kubernetes.io"]["pod"] == {"name": "web", "uid": pod_uid}
    assert claims(token)["kubernetes.io"]["node"] == {"name": "node-a", "uid": node_uid}
    assert (await whoami(api, token))["extra"] == {
        "authentication.kubernetes.io/pod-name": ["web"], "authentication.kubernetes.io/pod-uid": [pod_uid],
        "authentication.kubernetes.io/credential-id": [f"JTI={claims(token)['jti']}"],
        "authentication.kubernetes.io/node-name": ["node-a"], "authentication.kubernetes.io/node-uid": [node_uid]}
    conflict = await request_token(api, {"boundObjectRef": {**ref, "uid": "other"}}, status=409)
    assert conflict["message"] == (
        f'Operation cannot be fulfilled on Pod "web": the UID in the bound object reference (other) does not match '
        f"the UID in record ({pod_uid}). The object might have been deleted and then recreated")
    assert (await api.delete("/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0")).status == 200
    assert await whoami(api, token) == UNAUTHORIZED
    response = await api.post(TOKEN_REVIEWS, json={"spec": {"token": token}})
    assert (await response.json())["status"] == {"user": {}, "error": "service account token has been invalidated"}


async def test_a_pod_of_another_service_account_cannot_be_bound(api: Any, make_pod: Any) -> None:
    assert (await api.post("/api/v1/namespaces/default/pods", json=make_pod("web"))).status == 201
    body = await request_token(api, {"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "web"}},
                               status=400)
    assert body["message"] == 'cannot bind token for serviceaccount "robot" to pod running with serviceaccount ' \
                              '"default"'
    body = await request_token(api, {"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "gone"}},
                               status=404)
    assert body["message"] == 'pods "gone" not found'


async def test_a_token_bound_to_a_secret_dies_with_it(api: Any) -> None:
    assert (await api.post("/api/v1/namespaces/default/secrets", json={"metadata": {"name": "s"}})).status == 201
    token = (await request_token(api, {"boundObjectRef": {"kind": "Secret", "apiVersion": "v1", "name": "s"}}))[
        "status"]["token"]
    assert claims(token)["kubernetes.io"]["secret"]["name"] == "s"
    assert (await whoami(api, token))["username"] == "system:serviceaccount:default:robot"
    assert (await api.delete("/api/v1/namespaces/default/secrets/s")).status == 200
    assert await whoami(api, token) == UNAUTHORIZED


async def test_the_kubelets_lifetime_is_extended_to_a_year_with_a_warning_time(api: Any, make_pod: Any) -> None:
    pod = make_pod("web", spec={"serviceAccountName": "robot", "containers": [{"name": "c", "image": "nginx"}]})
    assert (await api.post("/api/v1/namespaces/default/pods", json=pod)).status == 201
    answer = await request_token(api, {"expirationSeconds": 3607,
                                       "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "web"}})
    token_claims = claims(answer["status"]["token"])
    assert (token_claims["exp"], token_claims["kubernetes.io"]["warnafter"]) == (T0 + 365 * 86400, T0 + 3607)
    assert answer["status"]["expirationTimestamp"] == "2025-03-01T13:00:07Z"


async def test_a_token_is_refused_once_expired_or_its_service_account_is_remade(api: Any) -> None:
    token = (await request_token(api, {"expirationSeconds": 600}))["status"]["token"]
    api.clock.advance(600 + 60)  # go-jose's minute of leeway
    assert (await whoami(api, token))["username"] == "system:serviceaccount:default:robot"
    api.clock.advance(1)
    response = await api.post(TOKEN_REVIEWS, json={"spec": {"token": token}})
    assert (await response.json())["status"] == {"user": {}, "error": "service account token has expired"}
    assert await whoami(api, token) == UNAUTHORIZED
    token = (await request_token(api))["status"]["token"]
    old_uid = claims(token)["kubernetes.io"]["serviceaccount"]["uid"]
    assert (await api.delete(f"{SAS}/robot")).status == 200
    response = await api.post(TOKEN_REVIEWS, json={"spec": {"token": token}})
    assert (await response.json())["status"]["error"] == 'serviceaccounts "robot" not found'
    assert (await api.post(SAS, json={"metadata": {"name": "robot"}})).status == 201
    new_uid = await uid_of(api, f"{SAS}/robot")
    response = await api.post(TOKEN_REVIEWS, json={"spec": {"token": token}})
    assert (await response.json())["status"]["error"] == (
        f"service account UID ({new_uid}) does not match claim ({old_uid})")
    assert await whoami(api, token) == UNAUTHORIZED


async def test_a_forged_or_malformed_token_is_401(api: Any) -> None:
    token = (await request_token(api))["status"]["token"]
    head, payload, signature = token.split(".")
    forged = dict(claims(token), sub="system:serviceaccount:kube-system:admin")
    forged_payload = base64.urlsafe_b64encode(json.dumps(forged).encode()).rstrip(b"=").decode()
    for bad in (f"{head}.{forged_payload}.{signature}", "not-a-jwt", f"{head}.{payload}", "a.b.c",
                f"{head}.{payload}.{signature[:-4]}AAAA"):
        assert await whoami(api, bad) == UNAUTHORIZED, bad
    response = await api.post(TOKEN_REVIEWS, json={"spec": {"token": f"{head}.{forged_payload}.{signature}"}})
    assert (await response.json())["status"] == {"user": {}, "error": "square/go-jose: error in cryptographic "
                                                                      "primitive"}
    response = await api.post(TOKEN_REVIEWS, json={"spec": {"token": "not-a-jwt"}})
    assert (await response.json())["status"] == {"user": {}, "error": "invalid bearer token"}


async def test_the_issuer_publishes_its_discovery_document_and_keys(api: Any) -> None:
    response = await api.get("/.well-known/openid-configuration")
    assert response.headers["Content-Type"] == "application/json"
    assert await response.json() == {
        "issuer": ISSUER, "jwks_uri": f"http://{response.url.host}:{response.url.port}/openid/v1/jwks",
        "response_types_supported": ["id_token"], "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["ES256"]}
    response = await api.get("/openid/v1/jwks")
    assert response.headers["Content-Type"] == "application/jwk-set+json"
    [key] = (await response.json())["keys"]
    assert (key["use"], key["kty"], key["crv"], key["alg"]) == ("sig", "EC", "P-256", "ES256")


async def test_discovery_lists_the_token_subresource(api: Any) -> None:
    resources = (await (await api.get("/api/v1")).json())["resources"]
    assert {"name": "serviceaccounts/token", "singularName": "", "namespaced": True, "group": "authentication.k8s.io",
            "version": "v1", "kind": "TokenRequest", "verbs": ["create"]} in resources


async def test_an_rsa_key_file_signs_rs256_tokens_with_the_configured_issuer(aiohttp_client: Any) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    settings = ServiceAccountSettings(issuers=("https://issuer.example",), signing_key=pem)
    client = await aiohttp_client(create_app(ServerConfig(service_accounts=settings)))
    token = (await request_token(client, name="default"))["status"]["token"]
    assert header(token)["alg"] == "RS256"
    assert (claims(token)["iss"], claims(token)["aud"]) == ("https://issuer.example", ["https://issuer.example"])
    assert (await whoami(client, token))["username"] == "system:serviceaccount:default:default"
    [jwk] = (await (await client.get("/openid/v1/jwks")).json())["keys"]
    assert (jwk["kty"], jwk["alg"], jwk["e"]) == ("RSA", "RS256", "AQAB")


# ---- the tokens controller: legacy Secret tokens

SECRETS = "/api/v1/namespaces/default/secrets"
TOKEN_SECRET = {"metadata": {"name": "robot-token", "annotations": {"kubernetes.io/service-account.name": "robot"}},
                "type": "kubernetes.io/service-account-token"}


async def test_a_service_account_token_secret_gets_a_legacy_token_that_authenticates(api: Any) -> None:
    response = await api.post(SECRETS, json=TOKEN_SECRET)
    assert response.status == 201
    secret = await (await api.get(f"{SECRETS}/robot-token")).json()
    sa_uid = await uid_of(api, f"{SAS}/robot")
    assert secret["metadata"]["annotations"] == {"kubernetes.io/service-account.name": "robot",
                                                 "kubernetes.io/service-account.uid": sa_uid}
    assert sorted(secret["data"]) == ["ca.crt", "namespace", "token"]
    assert base64.b64decode(secret["data"]["namespace"]) == b"default"
    assert base64.b64decode(secret["data"]["ca.crt"]).startswith(b"-----BEGIN CERTIFICATE-----")
    token = base64.b64decode(secret["data"]["token"]).decode()
    assert claims(token) == {
        "iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "default",
        "kubernetes.io/serviceaccount/secret.name": "robot-token",
        "kubernetes.io/serviceaccount/service-account.name": "robot",
        "kubernetes.io/serviceaccount/service-account.uid": sa_uid, "sub": "system:serviceaccount:default:robot"}
    assert await whoami(api, token) == {
        "username": "system:serviceaccount:default:robot", "uid": sa_uid,
        "groups": ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]}
    api.clock.advance(10 * 365 * 86400)  # it never expires
    assert (await whoami(api, token))["username"] == "system:serviceaccount:default:robot"
    assert (await api.delete(f"{SECRETS}/robot-token")).status == 200
    response = await api.post(TOKEN_REVIEWS, json={"spec": {"token": token}})
    assert (await response.json())["status"] == {"user": {}, "error": "Token has been invalidated"}


async def test_token_secrets_go_with_their_service_account(api: Any) -> None:
    assert (await api.post(SECRETS, json=TOKEN_SECRET)).status == 201
    orphan = {**TOKEN_SECRET, "metadata": {"name": "orphan",
                                           "annotations": {"kubernetes.io/service-account.name": "nobody"}}}
    assert (await api.post(SECRETS, json=orphan)).status == 201
    assert (await api.get(f"{SECRETS}/orphan")).status == 404
    assert (await api.delete(f"{SAS}/robot")).status == 200
    assert (await api.get(f"{SECRETS}/robot-token")).status == 404


@pytest.mark.parametrize(("body", "status", "message"), [
    ({"metadata": {"namespace": "other"}}, 400,
     "the namespace of the provided object does not match the namespace sent on the request"),
    ({"spec": {"boundObjectRef": {"kind": "Pod", "apiVersion": "v1"}}}, 400, "Name parameter required."),
    ({"spec": {"boundObjectRef": {}}}, 400, "cannot bind token to object of type /, Kind="),
    ({"spec": {"boundObjectRef": {"kind": "Pod", "apiVersion": "apps/v1", "name": "p"}}}, 400,
     "cannot bind token to object of type apps/v1, Kind=Pod"),
    ({"spec": {"boundObjectRef": {"kind": "Secret", "apiVersion": "a/b/c", "name": "s"}}}, 404,
     'secrets "s" not found'),  # an apiVersion Go cannot parse names no group
    ({"spec": {"audiences": "api"}}, 400, None),
    ({"spec": "x"}, 400, None),
    ([], 400, None),
])
async def test_malformed_token_requests_get_upstreams_errors(api: Any, body: Any, status: int,
                                                             message: str | None) -> None:
    response = await api.post(f"{SAS}/robot/token", json=body)
    answer = await response.json()
    assert (response.status, answer["kind"]) == (status, "Status")
    if message is not None:
        assert answer["message"] == message


async def test_a_token_bound_to_a_node_names_it_and_dies_with_it(api: Any) -> None:
    assert (await api.post("/api/v1/nodes", json={"metadata": {"name": "node-b"}})).status == 201
    node_uid = await uid_of(api, "/api/v1/nodes/node-b")
    token = (await request_token(api, {"boundObjectRef": {"kind": "Node", "apiVersion": "v1", "name": "node-b",
                                                          "uid": node_uid}}))["status"]["token"]
    assert claims(token)["kubernetes.io"]["node"] == {"name": "node-b", "uid": node_uid}
    assert "pod" not in claims(token)["kubernetes.io"]
    extra = (await whoami(api, token))["extra"]
    assert (extra["authentication.kubernetes.io/node-name"], extra["authentication.kubernetes.io/node-uid"]) == (
        ["node-b"], [node_uid])
    assert (await api.delete("/api/v1/nodes/node-b")).status == 200
    response = await api.post(TOKEN_REVIEWS, json={"spec": {"token": token}})
    assert (await response.json())["status"] == {"user": {}, "error": "service account token has been invalidated"}


async def test_the_max_expiration_shortens_a_request_with_a_warning(aiohttp_client: Any) -> None:
    settings = ServiceAccountSettings(max_expiration=1200, extend_expiration=False)
    client = await aiohttp_client(create_app(ServerConfig(service_accounts=settings)))
    response = await client.post(f"{SAS}/default/token", json={"spec": {"expirationSeconds": 3600}})
    answer = await response.json()
    assert response.headers["Warning"] == '299 - "requested expiration of 3600 seconds shortened to 1200 seconds"'
    assert answer["spec"]["expirationSeconds"] == 1200
    token_claims = claims(answer["status"]["token"])
    assert token_claims["exp"] - token_claims["iat"] == 1200
