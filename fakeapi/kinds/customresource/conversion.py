"""Converting custom resources between versions with the CRD's conversion webhook (`conversion: Webhook`), as
upstream's webhookConverter does: a ConversionReview (v1, else v1beta1, as the CRD's conversionReviewVersions
allow) with the objects and the desired apiVersion; the answer must carry the request's uid, `Success`, as many
objects as sent, each of the desired apiVersion and the same kind; the converted objects keep their original
metadata but for labels and annotations. A failure is upstream's `conversion webhook for <group/version,
Kind=...> failed: ...`.

The call is made by the HTTP layer, which can wait for it (fakeapi.http.conversion); the synchronous
`to_stored`/`from_stored` (watches, server-side apply) answer that they cannot.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi.machinery.errors import ServiceUnavailable
from fakeapi.machinery.types import JSON
from fakeapi.machinery.webhook import WebhookError, post, target

GROUP = "apiextensions.k8s.io"


class ConversionFailed(Exception):
    """The webhook could not convert: the message is upstream's."""


@dataclass(frozen=True)
class WebhookConversion:
    served: str  # group/version of the objects this kind serves
    stored: str  # group/version they are stored as
    kind: str
    client_config: JSON
    review_versions: tuple[str, ...]
    addresses: Mapping[str, str] = field(default_factory=dict)

    def refusal(self) -> ServiceUnavailable:
        return ServiceUnavailable(f"{self.served} {self.kind} is converted by a conversion webhook, which fakeapi "
                                  "calls for get, list, create, update, patch (JSON and merge) and delete only; use "
                                  f"{self.stored} for watches and server-side apply")

    def to_stored(self, obj: JSON) -> JSON:
        raise self.refusal()

    def from_stored(self, obj: JSON) -> JSON:
        raise self.refusal()

    async def convert(self, objects: list[JSON], api_version: str) -> list[JSON]:
        """`objects` (all of one apiVersion) as `api_version`; ConversionFailed with upstream's message."""
        todo = [index for index, obj in enumerate(objects) if obj.get("apiVersion") != api_version]
        if not todo:
            return objects
        shown = f"{objects[todo[0]].get('apiVersion')}, Kind={self.kind}"
        review_version = "v1" if "v1" in self.review_versions else "v1beta1"
        uid = str(uuid.uuid4())
        review = {"kind": "ConversionReview", "apiVersion": f"{GROUP}/{review_version}",
                  "request": {"uid": uid, "desiredAPIVersion": api_version,
                              "objects": [objects[index] for index in todo]}}
        try:
            answer = await post(target(self.client_config, self.addresses), review)
            converted = _converted_objects(answer, uid, review_version)
        except (WebhookError, ConversionFailed) as error:
            raise ConversionFailed(f"conversion webhook for {shown} failed: {error}") from None
        if len(converted) != len(todo):
            raise ConversionFailed(f"conversion webhook for {shown} returned {len(converted)} objects, expected "
                                   f"{len(todo)}")
        result = list(objects)
        for at, (index, obj) in enumerate(zip(todo, converted, strict=True)):
            result[index] = self._checked(objects[index], obj, api_version, shown, at)
        return result

    def _checked(self, original: JSON, converted: Any, api_version: str, shown: str, index: int) -> JSON:
        prefix = f"conversion webhook for {shown} returned invalid converted object at index {index}"
        if not isinstance(converted, dict):
            raise ConversionFailed(f"{prefix}: invalid type, expected=Unstructured, got={type(converted).__name__}")
        if converted.get("apiVersion") != api_version:
            raise ConversionFailed(f"{prefix}: invalid groupVersion (expected {api_version}, received "
                                   f"{converted.get('apiVersion')})")
        if converted.get("kind") != original.get("kind"):
            raise ConversionFailed(f"{prefix}: invalid kind (expected {original.get('kind')}, received "
                                   f"{converted.get('kind')})")
        meta = converted.get("metadata")
        original_meta: JSON = original.get("metadata") or {}
        for key in ("name", "namespace", "uid"):
            if isinstance(meta, dict) and (meta.get(key) or "") != (original_meta.get(key) or ""):
                raise ConversionFailed(f"{prefix}: must have the same {key}: {original_meta.get(key) or ''} != "
                                       f"{meta.get(key) or ''}")
        if not isinstance(meta, dict):
            raise ConversionFailed(f"conversion webhook for {shown} returned invalid metadata in object at index "
                                   f"{index}: missing metadata in converted object")
        restored = dict(original_meta)
        for key in ("labels", "annotations"):
            value = meta.get(key)
            if value is None:
                restored.pop(key, None)
            elif isinstance(value, dict) and all(isinstance(item, str) for item in value.values()):
                restored[key] = value
            else:
                raise ConversionFailed(f"conversion webhook for {shown} returned invalid metadata in object at "
                                       f"index {index}: invalid metadata.{key} in converted object")
        return {**converted, "metadata": restored}


def _converted_objects(answer: Any, uid: str, review_version: str) -> list[Any]:
    if not isinstance(answer, dict) or answer.get("kind") != "ConversionReview" \
            or answer.get("apiVersion") != f"{GROUP}/{review_version}":
        got = f"{answer.get('apiVersion')}, Kind={answer.get('kind')}" if isinstance(answer, dict) else "nothing"
        raise ConversionFailed(f"expected webhook response of {GROUP}/{review_version}, Kind=ConversionReview, "
                               f"got {got}")
    response = answer.get("response")
    if not isinstance(response, dict):
        raise ConversionFailed("no response provided")
    if response.get("uid") != uid:
        raise ConversionFailed(f'expected response.uid="{uid}", got "{response.get("uid") or ""}"')
    result = response.get("result") or {}
    if result.get("status") != "Success":
        if result.get("message"):
            raise ConversionFailed(str(result["message"]))
        raise ConversionFailed(f"response.result.status was '{result.get('status') or ''}', not 'Success'")
    converted = response.get("convertedObjects")
    return converted if isinstance(converted, list) else []
