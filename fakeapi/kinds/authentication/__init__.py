"""authentication.k8s.io/v1: SelfSubjectReview (who am I) and TokenReview (whose token is this), create-only
resources that are never stored."""

from __future__ import annotations

from fakeapi.kinds.kind import ResourceInfo

GROUP = "authentication.k8s.io"

SELF_SUBJECT_REVIEWS = ResourceInfo("selfsubjectreviews", "SelfSubjectReview", namespaced=False,
                                    singular="selfsubjectreview", group=GROUP, verbs=("create",),
                                    definition="io.k8s.api.authentication.v1.SelfSubjectReview")
TOKEN_REVIEWS = ResourceInfo("tokenreviews", "TokenReview", namespaced=False, singular="tokenreview", group=GROUP,
                             verbs=("create",), definition="io.k8s.api.authentication.v1.TokenReview")
