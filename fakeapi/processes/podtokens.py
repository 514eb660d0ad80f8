"""The kubelet's service account token manager: the token of a pod's projected `serviceAccountToken` source,
asked for through the pod's ServiceAccount's TokenRequest (bound to the pod, for the source's audience, for
its expirationSeconds) when first read, and again once 80% of its life has passed or it is a day old, as the
kubelet refreshes it. A process in the pod can call the API with it until the pod goes."""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi.cluster import Api
from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON
from fakeapi.processes.downward import Unresolved
from fakeapi.registry.options import WriteOptions

DEFAULT_EXPIRATION = 3600  # the API's default for a projected token's expirationSeconds
MAX_AGE = 24 * 3600


@dataclass(frozen=True)
class _Issued:
    token: str
    refresh_at: float  # clock seconds


class PodTokens:
    def __init__(self, api: Api) -> None:
        self.api = api
        self._issued: dict[tuple[str, str, int], _Issued] = {}  # (pod uid, audience, seconds) -> token

    def token(self, pod: JSON, source: JSON) -> str:
        """The token the kubelet has written for this pod and source (Unresolved if the API refuses one,
        with the kubelet's message)."""
        meta: JSON = pod.get("metadata") or {}
        audience = str(source.get("audience") or "")
        seconds = int(source.get("expirationSeconds") or DEFAULT_EXPIRATION)
        key = (str(meta.get("uid", "")), audience, seconds)
        now = self.api.clock.now().timestamp()
        issued = self._issued.get(key)
        if issued is not None and now < issued.refresh_at:
            return issued.token
        account = (pod.get("spec") or {}).get("serviceAccountName") or "default"
        spec: JSON = {"audiences": [audience] if audience else [], "expirationSeconds": seconds,
                      "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": meta.get("name", ""),
                                         "uid": meta.get("uid", "")}}
        try:
            answer = self.api.token_requests().create(meta.get("namespace", ""), account, {"spec": spec},
                                                      WriteOptions())
        except StatusError as error:
            raise Unresolved(f"failed to fetch token: {error}") from None
        token = str(answer["status"]["token"])
        self._issued[key] = _Issued(token, now + min(0.8 * seconds, MAX_AGE))
        return token

    def forget(self, uid: str) -> None:
        """The pod is gone: so are its tokens."""
        for key in [key for key in self._issued if key[0] == uid]:
            del self._issued[key]

    def clear(self) -> None:
        self._issued.clear()
