"""Client writes through admission webhooks: the request's user and options given to admission, the write run
until every webhook it reaches has answered (fakeapi.registry.admission.webhook.calls), and what the webhooks
warned answered in Warning headers, with the error too when the write fails."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from aiohttp import web

from fakeapi.http.authentication import user_of
from fakeapi.http.keys import api_key
from fakeapi.http.responses import warning_header
from fakeapi.kinds.kind import ResourceInfo
from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON
from fakeapi.registry.admission import CONNECT, Attributes
from fakeapi.registry.admission.request import RequestContext
from fakeapi.registry.options import DeleteOptions, WriteOptions

T = TypeVar("T")


async def admitted(request: web.Request, write: Callable[[], T], options: WriteOptions | DeleteOptions,
                   calls_webhooks: bool = True) -> T:
    """`write` once admission has its answers. `calls_webhooks` False: a `/scale` write, which reaches the
    object's registry as an update of the object, not of its scale (so neither webhooks nor the request's
    user see it: it is admitted as the server's own writes are)."""
    api = request.app[api_key]
    if not calls_webhooks or not api.has_dynamic_admission():
        return write()
    context = RequestContext(user_of(request), _review_options(request.query, options))
    options.admission = context
    try:
        return await api.webhook_client.admitted(write, context, api.ids)
    except StatusError as error:
        if context.warnings:
            error.headers["Warning"] = ", ".join(warning_header(text) for text in dict.fromkeys(context.warnings))
        raise
    finally:
        options.warnings.extend(context.warnings)


def _review_options(query: Mapping[str, str], options: WriteOptions | DeleteOptions) -> JSON:
    """The request's options as its AdmissionReview carries them (what the client sent)."""
    out: JSON = {}
    if options.dry_run:
        out["dryRun"] = ["All"]
    if isinstance(options, DeleteOptions):
        if options.grace_period_seconds is not None:
            out["gracePeriodSeconds"] = options.grace_period_seconds
        preconditions = {key: value for key, value in (("uid", options.uid),
                                                       ("resourceVersion", options.resource_version)) if value}
        if preconditions:
            out["preconditions"] = preconditions
        if options.orphan_dependents is not None:
            out["orphanDependents"] = options.orphan_dependents
        if options.propagation_policy is not None:
            out["propagationPolicy"] = options.propagation_policy
        return out
    if query.get("fieldManager"):
        out["fieldManager"] = query["fieldManager"]
    if query.get("fieldValidation"):
        out["fieldValidation"] = query["fieldValidation"]
    return out


async def admitted_connect(request: web.Request, subresource: str, options: JSON) -> None:
    """A pod's exec, attach or port-forward admitted as upstream's connect handler does before it connects:
    CONNECT with the options object (PodExecOptions...)."""
    await admitted_request(request, CONNECT, subresource, ("", "v1", str(options["kind"])), options, None)


async def admitted_request(request: web.Request, operation: str, subresource: str, kind: tuple[str, str, str],
                           obj: JSON, options: WriteOptions | None, info: ResourceInfo | None = None) -> None:
    """A request that is not a write of a stored object (a CONNECT; a pod's eviction or binding, created but
    never stored) admitted through the dynamic plugins, webhooks and policies, as upstream's handlers admit
    them; the built-in plugins have nothing to say about them. `obj` may be changed by mutating webhooks."""
    api = request.app[api_key]
    if not api.has_dynamic_admission():
        return
    info = info or api.registry("pods").info
    namespace = request.match_info["namespace"]
    name = request.match_info.get("name") or str((obj.get("metadata") or {}).get("name") or "")
    attributes = Attributes(operation, info, subresource, namespace, name, obj, None,
                            options.dry_run if options is not None else False,
                            RequestContext(user_of(request), _review_options(request.query, options)
                                           if options is not None else {}),
                            kind=kind)

    def admit() -> None:
        api.admission.admit(attributes)
        api.admission.validate(attributes)

    assert attributes.request is not None
    await api.webhook_client.admitted(admit, attributes.request, api.ids)
    if options is not None:
        options.warnings.extend(attributes.request.warnings)
