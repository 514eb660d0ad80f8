"""authorization.k8s.io/v1: the access reviews, create-only resources that are never stored."""

from __future__ import annotations

from fakeapi.kinds.kind import ResourceInfo

GROUP = "authorization.k8s.io"


def _review(resource: str, kind: str, namespaced: bool = False) -> ResourceInfo:
    return ResourceInfo(resource, kind, namespaced=namespaced, singular=resource.removesuffix("s"), group=GROUP,
                        verbs=("create",), definition=f"io.k8s.api.authorization.v1.{kind}")


SELF_SUBJECT_ACCESS_REVIEWS = _review("selfsubjectaccessreviews", "SelfSubjectAccessReview")
SELF_SUBJECT_RULES_REVIEWS = _review("selfsubjectrulesreviews", "SelfSubjectRulesReview")
SUBJECT_ACCESS_REVIEWS = _review("subjectaccessreviews", "SubjectAccessReview")
LOCAL_SUBJECT_ACCESS_REVIEWS = _review("localsubjectaccessreviews", "LocalSubjectAccessReview", namespaced=True)
