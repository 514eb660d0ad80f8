"""`--authorization-mode`: the authorizers a server runs, in the order given (upstream's union), behind the
privileged group `system:masters` unless the only mode is AlwaysAllow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fakeapi.kinds.rbac.bootstrap import NODE_RULES, rule, urls
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo
from fakeapi.registry.authorization.attributes import Attributes
from fakeapi.registry.authorization.decision import (
    ALLOW,
    AlwaysAllow,
    AlwaysDeny,
    Authorizer,
    Decision,
    PrivilegedGroups,
    Union,
)
from fakeapi.registry.authorization.node import NODE_PREFIX, NODES_GROUP, NodeAuthorizer
from fakeapi.registry.authorization.rbac import RBACAuthorizer
from fakeapi.storage.store import Store

ALWAYS_ALLOW, ALWAYS_DENY, NODE, RBAC = "AlwaysAllow", "AlwaysDeny", "Node", "RBAC"
MODES = (ALWAYS_ALLOW, ALWAYS_DENY, NODE, RBAC)


def check_modes(modes: Sequence[str]) -> str | None:
    """Why a list of modes is refused (upstream's messages), or None."""
    if not modes:
        return "at least one authorization-mode must be passed"
    for mode in modes:
        if mode not in MODES:
            return f'authorization-mode "{mode}" is not a valid mode'
    if len(set(modes)) != len(modes):
        listed = " ".join(f'"{mode}"' for mode in modes)
        return f"authorization-mode [{listed}] has mode specified more than once"
    return None


class ServerAuthorizer:
    """The server's authorizers, and the RBAC one by itself (the reviews and escalation checks read its rules)."""

    def __init__(self, modes: Sequence[str], store: Store) -> None:
        self.modes = tuple(modes)
        self.always_allows = self.modes == (ALWAYS_ALLOW,)
        self.rbac: RBACAuthorizer | None = RBACAuthorizer(store) if RBAC in self.modes else None
        authorizers: list[Authorizer] = [] if self.always_allows else [PrivilegedGroups()]
        for mode in self.modes:
            if mode == ALWAYS_ALLOW:
                authorizers.append(AlwaysAllow())
            elif mode == ALWAYS_DENY:
                authorizers.append(AlwaysDeny())
            elif mode == NODE:
                authorizers.append(NodeAuthorizer(store, NODE_RULES))
            elif self.rbac is not None:
                authorizers.append(self.rbac)
        self.union = Union(authorizers)

    def authorize(self, attrs: Attributes) -> Decision:
        if self.always_allows:
            return ALLOWED
        return self.union.authorize(attrs)

    def rules_for(self, user: UserInfo, namespace: str) -> RuleList:
        """What `user` may do in `namespace`, as each mode can tell it (upstream's union RuleResolver)."""
        rules: list[JSON] = []
        incomplete = False
        errors: list[str] = []
        for mode in self.modes:
            if mode == ALWAYS_ALLOW:
                rules += [rule("*", "*", "*"), urls("*", "*")]
            elif mode == NODE and user.username.startswith(NODE_PREFIX) and NODES_GROUP in user.groups:
                incomplete = True
                errors.append("node authorizer does not support user rule resolution")
            elif mode == RBAC and self.rbac is not None:
                found, missing = self.rbac.rules_for(user, namespace)
                rules += found
                errors += missing
        error = "" if not errors else errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        return RuleList(rules, incomplete or bool(errors), error)


@dataclass(frozen=True)
class RuleList:
    rules: list[JSON]  # PolicyRules
    incomplete: bool
    error: str


ALLOWED = Decision(ALLOW)
