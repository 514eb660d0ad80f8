"""The query parameters of the api/v1 operations: upstream's names and types, described in our words."""

from __future__ import annotations

from fakeapi.machinery.types import JSON

# query parameter -> (type, description)
PARAMETERS: dict[str, tuple[str, str]] = {
    "allowWatchBookmarks": (
        "boolean",
        "Ask for BOOKMARK watch events. The server may send them or not; "
        "clients must not rely on their timing.",
    ),
    "container": (
        "string",
        "The container whose log is returned. Defaults to the only container, if there is exactly one.",
    ),
    "continue": (
        "string",
        "The continue token a previous chunked list call returned, to fetch the next chunk.",
    ),
    "dryRun": (
        "string",
        "When present, the request is validated and processed but nothing is persisted. "
        "The only valid value is All.",
    ),
    "fieldManager": (
        "string",
        "The name of the actor making the change, recorded in managedFields. At most "
        "128 printable characters; required for apply patches.",
    ),
    "fieldSelector": ("string", "Restrict the returned objects by their fields. Defaults to everything."),
    "fieldValidation": (
        "string",
        "What the server does with unknown or duplicate fields in the body of a "
        "POST, PUT or PATCH: Ignore drops them silently; Warn (the default) drops "
        "them and answers a Warning header for each; Strict rejects the request "
        "with a BadRequest naming all of them.",
    ),
    "follow": ("boolean", "Stream the log as it grows."),
    "force": (
        "boolean",
        "Apply patches only: take over fields that other managers own instead of failing "
        "with a conflict. Must be unset for the other patch types.",
    ),
    "gracePeriodSeconds": (
        "integer",
        "Seconds before the object is deleted; 0 deletes at once. Unset uses the default of the kind.",
    ),
    "ignoreStoreReadErrorWithClusterBreakingPotential": (
        "boolean",
        "Delete an object even if it cannot be read back from storage. Unsafe; off by default.",
    ),
    "insecureSkipTLSVerifyBackend": (
        "boolean",
        "Skip verifying the serving certificate of the backend that serves the log.",
    ),
    "labelSelector": ("string", "Restrict the returned objects by their labels. Defaults to everything."),
    "limit": (
        "integer",
        "The most objects to return in one list call. When more exist, the list metadata "
        "carries a continue token for the next chunk.",
    ),
    "limitBytes": ("integer", "Stop the log output after this many bytes."),
    "orphanDependents": (
        "boolean",
        "Deprecated: use propagationPolicy. Whether the dependents of the object are orphaned.",
    ),
    "pretty": ("string", "If 'true', the output is pretty printed."),
    "previous": ("boolean", "Return the log of the previous, terminated instance of the container."),
    "propagationPolicy": (
        "string",
        "Whether and how garbage collection runs for the dependents: Orphan, Background or Foreground.",
    ),
    "resourceVersion": (
        "string",
        "Which resource version a list or watch is served from: unset means the "
        "most recent, 0 means any, other values as resourceVersionMatch says.",
    ),
    "resourceVersionMatch": ("string", "How resourceVersion applies to a list call: Exact or NotOlderThan."),
    "sendInitialEvents": (
        "boolean",
        "With watch=true: start the stream with synthetic ADDED events for the "
        "current objects, then a BOOKMARK marking their end.",
    ),
    "sinceSeconds": ("integer", "Only return log lines newer than this many seconds."),
    "stream": ("string", "Which log stream to return: All, Stdout or Stderr."),
    "tailLines": ("integer", "Return only this many lines from the end of the log."),
    "timeoutSeconds": ("integer", "Ends a list or watch call after this many seconds, whatever happens."),
    "timestamps": ("boolean", "Prefix every log line with an RFC3339 timestamp."),
    "watch": (
        "boolean",
        "Stream add, update and delete notifications for the objects described, instead of listing them.",
    ),
}
LIST = (
    "allowWatchBookmarks",
    "continue",
    "fieldSelector",
    "labelSelector",
    "limit",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
    "watch",
)
WRITE = ("dryRun", "fieldManager", "fieldValidation")
PATCH = (*WRITE, "force")
DELETE = (
    "dryRun",
    "gracePeriodSeconds",
    "ignoreStoreReadErrorWithClusterBreakingPotential",
    "orphanDependents",
    "propagationPolicy",
)
DELETE_COLLECTION = tuple(sorted({*LIST, *DELETE} - {"allowWatchBookmarks", "watch"}))
LOG = (
    "container",
    "follow",
    "insecureSkipTLSVerifyBackend",
    "limitBytes",
    "previous",
    "sinceSeconds",
    "stream",
    "tailLines",
    "timestamps",
)


# the query parameters of the streaming subresources (upstream's PodExecOptions, PodAttachOptions and
# PodPortForwardOptions), by subresource
CONNECT: dict[str, dict[str, tuple[str, str]]] = {
    "exec": {
        "command": ("string", "Command is the remote command to execute. argv array. Not executed within a shell."),
        "container": ("string", "Container in which to execute the command. Defaults to only container if there "
                                "is only one container in the pod."),
        "stderr": ("boolean", "Redirect the standard error stream of the pod for this call."),
        "stdin": ("boolean", "Redirect the standard input stream of the pod for this call. Defaults to false."),
        "stdout": ("boolean", "Redirect the standard output stream of the pod for this call."),
        "tty": ("boolean", "TTY if true indicates that a tty will be allocated for the exec call. Defaults to false."),
    },
    "attach": {
        "container": ("string", "The container in which to execute the command. Defaults to only container if "
                                "there is only one container in the pod."),
        "stderr": ("boolean", "Stderr if true indicates that stderr is to be redirected for the attach call. "
                              "Defaults to true."),
        "stdin": ("boolean", "Stdin if true, redirects the standard input stream of the pod for this call. "
                             "Defaults to false."),
        "stdout": ("boolean", "Stdout if true indicates that stdout is to be redirected for the attach call. "
                              "Defaults to true."),
        "tty": ("boolean", "TTY if true indicates that a tty will be allocated for the attach call. This is passed "
                           "through the container runtime so the tty is allocated on the worker node by the "
                           "container runtime. Defaults to false."),
    },
    "portforward": {"ports": ("integer", "List of ports to forward Required when using WebSockets")},
}


def query_v3(name: str, documented: dict[str, tuple[str, str]] = PARAMETERS) -> JSON:
    kind, text = documented[name]
    return {"name": name, "in": "query", "description": text, "schema": {"type": kind, "uniqueItems": True}}


def query_v2(name: str, documented: dict[str, tuple[str, str]] = PARAMETERS) -> JSON:
    kind, text = documented[name]
    return {"name": name, "in": "query", "description": text, "type": kind, "uniqueItems": True}
