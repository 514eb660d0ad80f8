"""The pods/log subresource: a container's log text, served as the kubelet would (text/plain)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from aiohttp import web

from fakeapi.http.keys import api_key
from fakeapi.http.requestlog import record_status
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.clock import MIN_TIME, Clock, parse_rfc3339, rfc3339_micro, shifted
from fakeapi.machinery.errors import BadRequest, Invalid, NotFound
from fakeapi.machinery.types import JSON
from fakeapi.podlogs import ContainerLog, PodLogs

DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"
_CLIENT_CHECK_SECONDS = 0.5  # how often a follow stream notices a client that went away
# what the kubelet says of a container waiting for its image, instead of the waiting reason
WAITING_LOG_MESSAGES = {"ErrImagePull": "image can't be pulled", "ImagePullBackOff": "trying and failing to pull image"}


@dataclass(frozen=True)
class LogOptions:
    """PodLogOptions from the query string, validated as upstream's ValidatePodLogOptions."""

    container: str = ""
    follow: bool = False
    previous: bool = False
    timestamps: bool = False
    tail_lines: int | None = None
    limit_bytes: int | None = None
    since_seconds: int | None = None
    since_time: datetime | None = None

    @classmethod
    def parse(cls, query: Mapping[str, str], pod: str) -> LogOptions:
        since_time = query.get("sinceTime")
        options = cls(
            container=query.get("container", ""),
            follow=_bool(query, "follow"),
            previous=_bool(query, "previous"),
            timestamps=_bool(query, "timestamps"),
            tail_lines=_int(query, "tailLines"),
            limit_bytes=_int(query, "limitBytes"),
            since_seconds=_int(query, "sinceSeconds"),
            since_time=_time(since_time) if since_time else None,
        )
        errors: list[fe.FieldError] = []
        if options.tail_lines is not None and options.tail_lines < 0:
            errors.append(fe.invalid("tailLines", options.tail_lines, "must be greater than or equal to 0"))
        if options.limit_bytes is not None and options.limit_bytes < 1:
            errors.append(fe.invalid("limitBytes", options.limit_bytes, "must be greater than 0"))
        if options.since_seconds is not None and options.since_time is not None:
            errors.append(fe.forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"))
        elif options.since_seconds is not None and options.since_seconds < 1:
            errors.append(fe.invalid("sinceSeconds", options.since_seconds, "must be greater than 0"))
        if errors:
            raise Invalid("PodLogOptions", pod, errors)
        return options


def _bool(query: Mapping[str, str], key: str) -> bool:
    value = query.get(key)
    if value is None or value == "":
        return False
    if value in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if value in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise BadRequest(f'strconv.ParseBool: parsing "{value}": invalid syntax')


def _int(query: Mapping[str, str], key: str) -> int | None:
    value = query.get(key)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise BadRequest(f'strconv.ParseInt: parsing "{value}": invalid syntax') from None


def _time(value: str) -> datetime:
    try:
        return parse_rfc3339(value)
    except ValueError:
        raise BadRequest(f'parsing time "{value}" as "2006-01-02T15:04:05Z07:00": cannot parse') from None


def pick_container(pod: JSON, requested: str) -> str:
    """The container whose log is asked for: the one named, the only one, or the default-container
    annotation (kubectl's choice, honoured here so that clients other than kubectl get it too)."""
    name = pod["metadata"]["name"]
    spec: JSON = pod.get("spec") or {}
    containers: list[str] = [c.get("name", "") for c in spec.get("containers") or []]
    init: list[str] = [c.get("name", "") for c in spec.get("initContainers") or []]
    ephemeral: list[str] = [c.get("name", "") for c in spec.get("ephemeralContainers") or []]
    if requested:
        if requested not in (*containers, *init, *ephemeral):
            raise BadRequest(f"container {requested} is not valid for pod {name}")
        return requested
    if len(containers) == 1:
        return containers[0]
    annotated = str((pod["metadata"].get("annotations") or {}).get(DEFAULT_CONTAINER_ANNOTATION, ""))
    if annotated in containers:
        return annotated
    if not containers:
        raise BadRequest(f"a container name must be specified for pod {name}")
    message = f"a container name must be specified for pod {name}, choose one of: [{' '.join(containers)}]"
    if init:
        message += f" or one of the init containers: [{' '.join(init)}]"
    raise BadRequest(message)


def render(log: ContainerLog, options: LogOptions, first_line: int = 0) -> bytes:
    """The bytes of the log from line `first_line` on, with timestamps if asked (limitBytes not applied)."""
    lines = log.lines[first_line:]
    if not options.timestamps:
        return "".join(lines).encode()
    stamped = (f"{_kubelet_time(log.time(index))} {line}" for index, line in enumerate(lines, first_line))
    return "".join(stamped).encode()


def first_line(log: ContainerLog, options: LogOptions, now: datetime) -> int:
    """Where the answer starts: after sinceSeconds/sinceTime, then the last tailLines of those."""
    start = 0
    since = options.since_time
    if options.since_seconds is not None:
        since = shifted(now, -options.since_seconds) or MIN_TIME
    if since is not None:
        start = next((i for i in range(len(log.lines)) if log.time(i) >= since), len(log.lines))
    if options.tail_lines is not None:
        start = max(start, len(log.lines) - options.tail_lines)
    return start


def _kubelet_time(when: datetime) -> str:
    # the kubelet writes RFC 3339 with exactly nine fractional digits
    return rfc3339_micro(when)[:-1] + "000Z"


def choose_instance(pod: JSON, container: str, previous: bool, logs: PodLogs) -> ContainerLog:
    """The container instance whose log is served, as the kubelet's validateContainerLogStatus picks it from
    the pod's status: the previous instance, the running one, the one that exited. A container no kubelet
    reported has the text a test set."""
    meta: JSON = pod["metadata"]
    namespace, name = meta["namespace"], meta["name"]
    status = _container_status(pod, container)
    if status is None:
        if previous and not logs.text(namespace, name, container, previous=True):
            raise BadRequest(f'previous terminated container "{container}" in pod "{name}" not found')
        return logs.get(namespace, name, container, previous)
    state: JSON = status.get("state") or {}
    last: JSON = (status.get("lastState") or {}).get("terminated") or {}
    if previous:
        if not last.get("containerID"):
            raise BadRequest(f'previous terminated container "{container}" in pod "{name}" not found')
        return logs.instance(namespace, name, container, last["containerID"]) or logs.get(
            namespace, name, container, previous=True)
    if "running" in state:
        container_id = status.get("containerID") or ""
    elif "terminated" in state:
        container_id = (state["terminated"] or {}).get("containerID") or last.get("containerID") or ""
        if not container_id:
            raise BadRequest(f'container "{container}" in pod "{name}" is terminated')
    elif last:
        container_id = last.get("containerID") or ""
        if not container_id:
            raise BadRequest(f'container "{container}" in pod "{name}" is terminated')
    elif "waiting" in state:
        reason = (state["waiting"] or {}).get("reason") or ""
        why = WAITING_LOG_MESSAGES.get(reason, reason)
        raise BadRequest(f'container "{container}" in pod "{name}" is waiting to start: {why}')
    else:
        raise BadRequest(f'container "{container}" in pod "{name}" is waiting to start - no logs yet')
    return logs.instance(namespace, name, container, container_id) or logs.get(namespace, name, container)


def _container_status(pod: JSON, container: str) -> JSON | None:
    status: JSON = pod.get("status") or {}
    for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for item in status.get(key) or []:
            if item.get("name") == container:
                return item  # type: ignore[no-any-return]
    return None


async def serve_log(request: web.Request, pod: JSON, options: LogOptions, logs: PodLogs,
                    clock: Clock) -> web.StreamResponse:
    """Answer GET pods/{name}/log for a pod already read from the store."""
    meta: JSON = pod["metadata"]
    namespace, name = meta["namespace"], meta["name"]
    container = pick_container(pod, options.container)
    log = choose_instance(pod, container, options.previous, logs)
    changed = logs.changed(namespace, name)  # taken before reading, so no later change is missed
    start = first_line(log, options, clock.now())
    body = render(log, options, start)
    position = log.end_position()
    limit = options.limit_bytes
    if not options.follow:
        return web.Response(body=body[:limit] if limit is not None else body, content_type="text/plain")
    response = web.StreamResponse(headers={"Content-Type": "text/plain"})
    await response.prepare(request)
    record_status(request, response)
    sent = 0
    while True:
        if limit is not None:
            body = body[:max(0, limit - sent)]
        if body:
            try:
                await response.write(body)
            except ConnectionError:
                return response
            sent += len(body)
        if (limit is not None and sent >= limit) or log.ended:
            break  # (an instance that exited has nothing more to say)
        while not changed.is_set():
            if request.transport is None or request.transport.is_closing():
                return response  # aiohttp does not cancel a handler whose client left
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), _CLIENT_CHECK_SECONDS)
        changed = logs.changed(namespace, name)
        pieces, position = log.since(position)
        body = render_pieces(log, options, pieces)
        if not _same_pod(request, namespace, name, meta.get("uid")):
            # the pod is gone (its kubelet deleted it after its containers stopped): what they wrote last
            # still goes out
            with contextlib.suppress(ConnectionError):
                if body and (limit is None or sent < limit):
                    await response.write(body if limit is None else body[:limit - sent])
            break
    with contextlib.suppress(ConnectionError):
        await response.write_eof()
    return response


def render_pieces(log: ContainerLog, options: LogOptions, pieces: list[tuple[int, str, bool]]) -> bytes:
    """New text of a followed log: each line that begins gets its timestamp if asked."""
    if not options.timestamps:
        return "".join(text for _index, text, _begins in pieces).encode()
    return "".join(f"{_kubelet_time(log.time(index))} {text}" if begins else text
                   for index, text, begins in pieces).encode()


def _same_pod(request: web.Request, namespace: str, name: str, uid: object) -> bool:
    try:
        current = request.app[api_key].registry("pods").get(namespace, name)
    except NotFound:
        return False
    return bool(current["metadata"].get("uid") == uid)


async def pod_log(request: web.Request) -> web.StreamResponse:
    """The route handler: GET /api/v1/namespaces/{namespace}/pods/{name}/log."""
    api = request.app[api_key]
    namespace, name = request.match_info["namespace"], request.match_info["name"]
    options = LogOptions.parse(request.query, name)  # upstream validates the options before it reads the pod
    pod = api.registry("pods").get(namespace, name)
    return await serve_log(request, pod, options, api.pod_logs, api.clock)
