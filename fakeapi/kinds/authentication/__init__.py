"""authentication.k8s.io/v1: SelfSubjectReview (who am I), a create-only resource that is never stored."""

from __future__ import annotations

from fakeapi.kinds.kind import ResourceInfo

GROUP = "authentication.k8s.io"

SELF_SUBJECT_REVIEWS = ResourceInfo("selfsubjectreviews", "SelfSubjectReview", namespaced=False,
                                    singular="selfsubjectreview", group=GROUP, verbs=("create",))
