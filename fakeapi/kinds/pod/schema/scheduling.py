"""Pod scheduling constraints: node and pod affinity, tolerations, topology spread."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import fields

from fakeapi.machinery.schemas.base import Int32, Int64, K8sSchema, doc
from fakeapi.machinery.schemas.meta import LabelSelectorSchema


class NodeSelectorRequirementSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeSelectorRequirement"

    key = fields.String(required=True, metadata=doc("The label key that the selector applies to."))
    operator = fields.String(
        required=True,
        metadata=doc(
            "Represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists,"
            " DoesNotExist. Gt, and Lt.",
        ),
    )
    values = fields.List(
        fields.String(),
        metadata=doc(
            "An array of string values. If the operator is In or NotIn, the values array must be "
            "non-empty. If the operator is Exists or DoesNotExist, the values array must be empty.",
            list_type="atomic",
        ),
    )


class NodeSelectorTermSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeSelectorTerm"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    matchExpressions = fields.List(
        fields.Nested(NodeSelectorRequirementSchema),
        metadata=doc("A list of node selector requirements by node's labels.", list_type="atomic"),
    )
    matchFields = fields.List(
        fields.Nested(NodeSelectorRequirementSchema),
        metadata=doc("A list of node selector requirements by node's fields.", list_type="atomic"),
    )


class PreferredSchedulingTermSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PreferredSchedulingTerm"

    weight = Int32(
        required=True,
        metadata=doc(
            "Weight associated with matching the corresponding nodeSelectorTerm, in the range 1-100."
        ),
    )
    preference = fields.Nested(
        NodeSelectorTermSchema,
        required=True,
        metadata=doc("A node selector term, associated with the corresponding weight.", pointer=False),
    )


class NodeSelectorSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeSelector"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    nodeSelectorTerms = fields.List(
        fields.Nested(NodeSelectorTermSchema),
        required=True,
        metadata=doc("Required. A list of node selector terms. The terms are ORed.", list_type="atomic"),
    )


class NodeAffinitySchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeAffinity"

    requiredDuringSchedulingIgnoredDuringExecution = fields.Nested(
        NodeSelectorSchema,
        metadata=doc(
            "If the affinity requirements specified by this field are not met at scheduling time, the "
            "pod will not be scheduled onto the node.",
        ),
    )
    preferredDuringSchedulingIgnoredDuringExecution = fields.List(
        fields.Nested(PreferredSchedulingTermSchema),
        metadata=doc(
            "The scheduler will prefer to schedule pods to nodes that satisfy the affinity expressions "
            "specified by this field, but it may choose a node that violates one or more of the "
            "expressions.",
            list_type="atomic",
        ),
    )


class PodAffinityTermSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodAffinityTerm"

    labelSelector = fields.Nested(
        LabelSelectorSchema,
        metadata=doc(
            "A label query over a set of resources, in this case pods. If it's null, this "
            "PodAffinityTerm matches with no Pods."
        ),
    )
    namespaces = fields.List(
        fields.String(),
        metadata=doc(
            "namespaces specifies a static list of namespace names that the term applies to.",
            list_type="atomic",
        ),
    )
    topologyKey = fields.String(
        required=True,
        metadata=doc(
            "This pod should be co-located (affinity) or not co-located (anti-affinity) with the pods "
            "matching the labelSelector in the specified namespaces, where co-located is defined as "
            "running on a node whose value of the label with key topologyKey matches that of any node "
            "on which any of the selected pods is running.",
        ),
    )
    namespaceSelector = fields.Nested(
        LabelSelectorSchema,
        metadata=doc(
            "A label query over the set of namespaces that the term applies to. An empty selector ({}) "
            "matches all namespaces.",
        ),
    )
    matchLabelKeys = fields.List(
        fields.String(),
        metadata=doc(
            "MatchLabelKeys is a set of pod label keys to select which pods will be taken into "
            "consideration.",
            list_type="atomic",
        ),
    )
    mismatchLabelKeys = fields.List(
        fields.String(),
        metadata=doc(
            "MismatchLabelKeys is a set of pod label keys to select which pods will be taken into "
            "consideration.",
            list_type="atomic",
        ),
    )


class WeightedPodAffinityTermSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.WeightedPodAffinityTerm"

    weight = Int32(
        required=True,
        metadata=doc(
            "weight associated with matching the corresponding podAffinityTerm, in the range 1-100."
        ),
    )
    podAffinityTerm = fields.Nested(
        PodAffinityTermSchema,
        required=True,
        metadata=doc("Required. A pod affinity term, associated with the corresponding weight.", pointer=False),
    )


class PodAffinitySchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodAffinity"

    requiredDuringSchedulingIgnoredDuringExecution = fields.List(
        fields.Nested(PodAffinityTermSchema),
        metadata=doc(
            "If the affinity requirements specified by this field are not met at scheduling time, the "
            "pod will not be scheduled onto the node.",
            list_type="atomic",
        ),
    )
    preferredDuringSchedulingIgnoredDuringExecution = fields.List(
        fields.Nested(WeightedPodAffinityTermSchema),
        metadata=doc(
            "The scheduler will prefer to schedule pods to nodes that satisfy the affinity expressions "
            "specified by this field, but it may choose a node that violates one or more of the "
            "expressions.",
            list_type="atomic",
        ),
    )


class PodAntiAffinitySchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodAntiAffinity"

    requiredDuringSchedulingIgnoredDuringExecution = fields.List(
        fields.Nested(PodAffinityTermSchema),
        metadata=doc(
            "If the anti-affinity requirements specified by this field are not met at scheduling time, "
            "the pod will not be scheduled onto the node.",
            list_type="atomic",
        ),
    )
    preferredDuringSchedulingIgnoredDuringExecution = fields.List(
        fields.Nested(WeightedPodAffinityTermSchema),
        metadata=doc(
            "The scheduler will prefer to schedule pods to nodes that satisfy the anti-affinity "
            "expressions specified by this field, but it may choose a node that violates one or more of"
            " the expressions.",
            list_type="atomic",
        ),
    )


class AffinitySchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.Affinity"

    nodeAffinity = fields.Nested(
        NodeAffinitySchema,
        metadata=doc("Describes node affinity scheduling rules for the pod."),
    )
    podAffinity = fields.Nested(
        PodAffinitySchema,
        metadata=doc(
            "Describes pod affinity scheduling rules (e.g. co-locate this pod in the same node, zone, "
            "etc. as some other pod(s)).",
        ),
    )
    podAntiAffinity = fields.Nested(
        PodAntiAffinitySchema,
        metadata=doc(
            "Describes pod anti-affinity scheduling rules (e.g. avoid putting this pod in the same "
            "node, zone, etc. as some other pod(s))."
        ),
    )


class TolerationSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.Toleration"

    key = fields.String(
        metadata=doc(
            "Key is the taint key that the toleration applies to. Empty means match all taint keys."
        ),
    )
    operator = fields.String(
        metadata=doc(
            "Operator represents a key's relationship to the value. Valid operators are Exists and "
            "Equal. Defaults to Equal."
        ),
    )
    value = fields.String(
        metadata=doc(
            "Value is the taint value the toleration matches to. If the operator is Exists, the value "
            "should be empty, otherwise just a regular string.",
        ),
    )
    effect = fields.String(
        metadata=doc(
            "Effect indicates the taint effect to match. Empty means match all taint effects. When "
            "specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute."
        ),
    )
    tolerationSeconds = Int64(
        metadata=doc(
            "TolerationSeconds represents the period of time the toleration (which must be of effect "
            "NoExecute, otherwise this field is ignored) tolerates the taint.",
            pointer=True,
        ),
    )


class TopologySpreadConstraintSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.TopologySpreadConstraint"

    maxSkew = Int32(
        required=True,
        metadata=doc("MaxSkew describes the degree to which pods may be unevenly distributed."),
    )
    topologyKey = fields.String(
        required=True,
        metadata=doc(
            "TopologyKey is the key of node labels. Nodes that have a label with this key and identical"
            " values are considered to be in the same topology.",
        ),
    )
    whenUnsatisfiable = fields.String(
        required=True,
        metadata=doc(
            "WhenUnsatisfiable indicates how to deal with a pod if it doesn't satisfy the spread "
            "constraint. - DoNotSchedule (default) tells the scheduler not to schedule it. - "
            "ScheduleAnyway tells the scheduler to schedule the pod in any location, but giving higher "
            "precedence to topologies that would help reduce the skew.",
        ),
    )
    labelSelector = fields.Nested(
        LabelSelectorSchema,
        metadata=doc(
            "LabelSelector is used to find matching pods. Pods that match this label selector are "
            "counted to determine the number of pods in their corresponding topology domain."
        ),
    )
    minDomains = Int32(metadata=doc("MinDomains indicates a minimum number of eligible domains.", pointer=True))
    nodeAffinityPolicy = fields.String(
        metadata=doc(
            "NodeAffinityPolicy indicates how we will treat Pod's nodeAffinity/nodeSelector when "
            "calculating pod topology spread skew.",
            pointer=True,
        ),
    )
    nodeTaintsPolicy = fields.String(
        metadata=doc(
            "NodeTaintsPolicy indicates how we will treat node taints when calculating pod topology "
            "spread skew.",
            pointer=True,
        ),
    )
    matchLabelKeys = fields.List(
        fields.String(),
        metadata=doc(
            "MatchLabelKeys is a set of pod label keys to select the pods over which spreading will be "
            "calculated.",
            list_type="atomic",
        ),
    )
