"""An authorizer's answer and the modes that need nothing but the request (upstream's authorizer.Decision,
AlwaysAllow, AlwaysDeny, the privileged group `system:masters`), and the union that asks each in turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from fakeapi.registry.authorization.attributes import Attributes

ALLOW, DENY, NO_OPINION = "Allow", "Deny", "NoOpinion"
PRIVILEGED_GROUP = "system:masters"


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: str  # ALLOW | DENY | NO_OPINION
    reason: str = ""

    @property
    def allowed(self) -> bool:
        return self.verdict == ALLOW


class Authorizer(Protocol):
    def authorize(self, attrs: Attributes) -> Decision: ...


class AlwaysAllow:
    def authorize(self, attrs: Attributes) -> Decision:
        return Decision(ALLOW)


class AlwaysDeny:
    def authorize(self, attrs: Attributes) -> Decision:
        return Decision(NO_OPINION, "Everything is forbidden.")


class PrivilegedGroups:
    """Members of `system:masters` may do everything, whatever the modes (kube-apiserver puts it first)."""

    def authorize(self, attrs: Attributes) -> Decision:
        return Decision(ALLOW if PRIVILEGED_GROUP in attrs.user.groups else NO_OPINION)


class Union:
    """The authorizers in order: the first Allow or Deny decides; else no opinion, with their reasons."""

    def __init__(self, authorizers: Sequence[Authorizer]) -> None:
        self.authorizers = tuple(authorizers)

    def authorize(self, attrs: Attributes) -> Decision:
        reasons: list[str] = []
        for authorizer in self.authorizers:
            decision = authorizer.authorize(attrs)
            if decision.verdict != NO_OPINION:
                return decision
            if decision.reason:
                reasons.append(decision.reason)
        return Decision(NO_OPINION, "\n".join(reasons))
