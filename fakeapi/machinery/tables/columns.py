"""Table column definitions per kind, with upstream v1.32's names, formats, priorities and descriptions."""

from __future__ import annotations

from fakeapi.machinery.types import JSON

# Descriptions are the v1.32 swagger docs upstream's printers read via `SwaggerDoc()`.
_META_NAME = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources "
    "may allow a client to request the generation of an appropriate name automatically. Name is primarily "
    "intended for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_META_CREATED = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this "
    "value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for "
    "lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
    "#metadata"
)
_POD_IP = (
    "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."
)
_POD_NODE = (
    "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for "
    "scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node "
    "becomes responsible for the lifecycle of this pod. This field should not be used to express a desire "
    "for the pod to be scheduled on a specific node. "
    "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
)
_POD_NOMINATED = (
    "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled "
    "right away as preemption victims receive their graceful termination periods. This field does not "
    "guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere "
    "if other nodes become available sooner. Scheduler may also decide to give the resources on this node "
    "to a higher priority pod that is created after preemption. As a result, this field may be different "
    "than PodSpec.nodeName when the pod is scheduled."
)
_POD_GATES = (
    "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its "
    'containers are ready AND all conditions specified in the readiness gates have status equal to "True" '
    "More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"
)
_EVENT_FIELD_PATH = (
    "If referring to a piece of an object instead of an entire object, this string should contain a valid "
    "JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object "
    "reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" "
    '(where "name" refers to the name of the container that triggered the event) or if no container name is '
    'specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have '
    "some well-defined way of referencing a part of an object."
)

# (name, type, format, priority, description): immutable, turned into fresh dicts per call
_Column = tuple[str, str, str, int, str]

_POD: tuple[_Column, ...] = (
    ("Name", "string", "name", 0, _META_NAME),
    ("Ready", "string", "", 0, "The aggregate readiness state of this pod for accepting traffic."),
    ("Status", "string", "", 0, "The aggregate status of the containers in this pod."),
    ("Restarts", "string", "", 0,
     "The number of times the containers in this pod have been restarted and when the last container in "
     "this pod has restarted."),
    ("Age", "string", "", 0, _META_CREATED),
    ("IP", "string", "", 1, _POD_IP),
    ("Node", "string", "", 1, _POD_NODE),
    ("Nominated Node", "string", "", 1, _POD_NOMINATED),
    ("Readiness Gates", "string", "", 1, _POD_GATES),
)

_NAMESPACE: tuple[_Column, ...] = (
    ("Name", "string", "name", 0, _META_NAME),
    ("Status", "string", "", 0, "The status of the namespace"),
    ("Age", "string", "", 0, _META_CREATED),
)

_EVENT: tuple[_Column, ...] = (
    ("Last Seen", "string", "", 0,
     "The time at which the most recent occurrence of this event was recorded."),
    ("Type", "string", "", 0, "Type of this event (Normal, Warning), new types could be added in the future"),
    ("Reason", "string", "", 0,
     "This should be a short, machine understandable string that gives the reason for the transition into "
     "the object's current status."),
    ("Object", "string", "", 0, "The object that this event is about."),
    ("Subobject", "string", "", 1, _EVENT_FIELD_PATH),
    ("Source", "string", "", 1,
     "The component reporting this event. Should be a short machine understandable string."),
    ("Message", "string", "", 0, "A human-readable description of the status of this operation."),
    ("First Seen", "string", "", 1,
     "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
    ("Count", "string", "", 1, "The number of times this event has occurred."),
    ("Name", "string", "name", 1, _META_NAME),
)

# apiserver's default table convertor, for kinds without a printer
_DEFAULT: tuple[_Column, ...] = (
    ("Name", "string", "name", 0, _META_NAME),
    ("Created At", "date", "", 0, _META_CREATED),
)

_BY_KIND: dict[str, tuple[_Column, ...]] = {"Pod": _POD, "Namespace": _NAMESPACE, "Event": _EVENT}


def column_definitions(kind: str) -> list[JSON]:
    """The `columnDefinitions` upstream sends for `kind` (the generic Name/Created At pair for others)."""
    return [
        {"name": name, "type": type_, "format": format_, "description": description, "priority": priority}
        for name, type_, format_, priority, description in _BY_KIND.get(kind, _DEFAULT)
    ]
