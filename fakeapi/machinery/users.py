"""Who made a request, as upstream's authenticators describe a user (user.Info)."""

from __future__ import annotations

from dataclasses import dataclass, field

from fakeapi.machinery.types import JSON

ANONYMOUS_NAME = "system:anonymous"
AUTHENTICATED_GROUP = "system:authenticated"
UNAUTHENTICATED_GROUP = "system:unauthenticated"


@dataclass(frozen=True)
class UserInfo:
    """A user: name, uid, groups and the authenticator's extra values (all as the authenticator gave them)."""

    username: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)

    def to_json(self) -> JSON:
        """The authentication.k8s.io/v1 UserInfo: empty fields left out, as Go's omitempty leaves them."""
        out: JSON = {"username": self.username} if self.username else {}
        if self.uid:
            out["uid"] = self.uid
        if self.groups:
            out["groups"] = list(self.groups)
        if self.extra:
            out["extra"] = {key: list(values) for key, values in self.extra.items()}
        return out

    def authenticated(self) -> UserInfo:
        """The user with `system:authenticated` added last, as upstream's AuthenticatedGroupAdder adds it
        to everyone but the anonymous user and users already in either of the two groups."""
        if self.username == ANONYMOUS_NAME or AUTHENTICATED_GROUP in self.groups \
                or UNAUTHENTICATED_GROUP in self.groups:
            return self
        return UserInfo(self.username, self.uid, (*self.groups, AUTHENTICATED_GROUP), self.extra)


# what upstream's anonymous authenticator makes of a request without credentials
ANONYMOUS = UserInfo(ANONYMOUS_NAME, groups=(UNAUTHENTICATED_GROUP,))
