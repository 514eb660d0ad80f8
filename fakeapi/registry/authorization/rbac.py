"""The RBAC authorizer (upstream plugin/pkg/auth/authorizer/rbac): a request is allowed when a rule of a
role bound to its user (by name, by group, or as a service account) allows it. ClusterRoleBindings apply
everywhere, RoleBindings in their namespace.

The bindings are indexed by subject, per server: the index is rebuilt on the first request after an RBAC
object changed (the store tells every write), and decisions are remembered until then, so a request pays
for one dictionary lookup however many bindings there are."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import orjson

from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo
from fakeapi.registry.authorization.attributes import Attributes
from fakeapi.registry.authorization.decision import ALLOW, NO_OPINION, Decision
from fakeapi.registry.authorization.rules import Rule, compile_rules
from fakeapi.storage.store import Event, Store

GROUP = "rbac.authorization.k8s.io"
ROLES, CLUSTER_ROLES = f"roles.{GROUP}", f"clusterroles.{GROUP}"
ROLE_BINDINGS, CLUSTER_ROLE_BINDINGS = f"rolebindings.{GROUP}", f"clusterrolebindings.{GROUP}"
RBAC_RESOURCES = frozenset({ROLES, CLUSTER_ROLES, ROLE_BINDINGS, CLUSTER_ROLE_BINDINGS})
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
MAX_REMEMBERED = 50_000  # decisions kept between changes of the policy

SubjectKey = tuple[str, str]  # ("User" | "Group", name); a service account is the user it authenticates as


@dataclass(frozen=True, slots=True)
class BindingRef:
    """A binding as seen from one of its subjects: what it grants, and how upstream describes it."""

    binding: str  # `ClusterRoleBinding "x"` or `RoleBinding "x/ns"`
    role_kind: str
    role_name: str
    namespace: str  # the binding's ("" for a ClusterRoleBinding)
    subject: str  # `User "jane"`, `ServiceAccount "sa/ns"`

    def describe(self) -> str:
        return f"{self.binding} of {self.role_kind} {_quote(self.role_name)} to {self.subject}"


@dataclass
class PolicyIndex:
    cluster_roles: dict[str, tuple[Rule, ...]] = field(default_factory=dict)
    cluster_role_rules: dict[str, list[JSON]] = field(default_factory=dict)
    roles: dict[tuple[str, str], tuple[Rule, ...]] = field(default_factory=dict)
    role_rules: dict[tuple[str, str], list[JSON]] = field(default_factory=dict)
    cluster_bindings: dict[SubjectKey, list[BindingRef]] = field(default_factory=dict)
    bindings: dict[str, dict[SubjectKey, list[BindingRef]]] = field(default_factory=dict)  # by namespace

    def rules_of(self, ref: BindingRef) -> tuple[Rule, ...] | None:
        if ref.role_kind == "Role":
            return self.roles.get((ref.namespace, ref.role_name))
        return self.cluster_roles.get(ref.role_name)

    def policy_rules_of(self, ref: BindingRef) -> list[JSON] | None:
        if ref.role_kind == "Role":
            return self.role_rules.get((ref.namespace, ref.role_name))
        return self.cluster_role_rules.get(ref.role_name)


class RBACAuthorizer:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._index: PolicyIndex | None = None
        self._decisions: dict[tuple[object, ...], Decision] = {}
        store.subscribe(self.on_event)

    def on_event(self, event: Event) -> None:
        """Store listener: a change to a role or binding makes the index and the decisions stale."""
        if event.key.resource in RBAC_RESOURCES:
            self.reload()

    def reload(self) -> None:
        """The policy changed (or every object was replaced at once: a reset, a restore)."""
        self._index = None
        self._decisions.clear()

    after_reset = reload
    after_restore = reload

    @property
    def index(self) -> PolicyIndex:
        if self._index is None:
            self._index = self._build()
        return self._index

    def authorize(self, attrs: Attributes) -> Decision:
        user = attrs.user
        key = (user.username, user.groups, attrs.verb, attrs.resource_request, attrs.namespace, attrs.api_group,
               attrs.resource, attrs.subresource, attrs.name, attrs.path)
        decision = self._decisions.get(key)
        if decision is None:
            decision = self._decide(attrs)
            if len(self._decisions) >= MAX_REMEMBERED:
                self._decisions.clear()
            self._decisions[key] = decision
        return decision

    def _decide(self, attrs: Attributes) -> Decision:
        index = self.index
        errors: list[str] = []
        for ref in self.bindings_of(attrs.user, attrs.namespace):
            rules = index.rules_of(ref)
            if rules is None:
                errors.append(_missing(ref))
            elif any(rule.allows(attrs) for rule in rules):
                return Decision(ALLOW, f"RBAC: allowed by {ref.describe()}")
        if not errors:
            return Decision(NO_OPINION)
        error = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        return Decision(NO_OPINION, f"RBAC: {error}")

    def bindings_of(self, user: UserInfo, namespace: str) -> Iterator[BindingRef]:
        """The bindings that apply to `user` in `namespace` (cluster bindings first; "": those only)."""
        index = self.index
        keys = [("User", user.username), *(("Group", group) for group in user.groups)]
        for key in keys:
            yield from index.cluster_bindings.get(key, ())
        if namespace:
            in_namespace = index.bindings.get(namespace)
            if in_namespace:
                for key in keys:
                    yield from in_namespace.get(key, ())

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[JSON], list[str]]:
        """The policy rules `user` holds in `namespace` (upstream's RulesFor), and the bindings whose role
        is missing."""
        rules: list[JSON] = []
        errors: list[str] = []
        for ref in self.bindings_of(user, namespace):
            found = self.index.policy_rules_of(ref)
            if found is None:
                errors.append(_missing(ref))
            else:
                rules.extend(found)
        return rules, errors

    def _build(self) -> PolicyIndex:
        index = PolicyIndex()
        for key, data in self.store.items(CLUSTER_ROLES):
            rules = orjson.loads(data).get("rules") or []
            index.cluster_roles[key.name] = compile_rules(rules)
            index.cluster_role_rules[key.name] = rules
        for key, data in self.store.items(ROLES):
            rules = orjson.loads(data).get("rules") or []
            index.roles[(key.namespace, key.name)] = compile_rules(rules)
            index.role_rules[(key.namespace, key.name)] = rules
        for key, data in self.store.items(CLUSTER_ROLE_BINDINGS):
            _add_binding(index.cluster_bindings, orjson.loads(data), f"ClusterRoleBinding {_quote(key.name)}", "")
        for key, data in self.store.items(ROLE_BINDINGS):
            _add_binding(index.bindings.setdefault(key.namespace, {}), orjson.loads(data),
                         f"RoleBinding {_quote(key.name + '/' + key.namespace)}", key.namespace)
        return index


def _add_binding(by_subject: dict[SubjectKey, list[BindingRef]], binding: JSON, described: str,
                 namespace: str) -> None:
    ref: JSON = binding.get("roleRef") or {}
    for subject in binding.get("subjects") or []:
        kind, name = subject.get("kind"), subject.get("name", "")
        if kind == "ServiceAccount":
            sa_namespace = subject.get("namespace") or namespace
            key: SubjectKey = ("User", f"{SERVICE_ACCOUNT_PREFIX}{sa_namespace}:{name}")
            shown = f"ServiceAccount {_quote(name + '/' + sa_namespace)}"
        elif kind in ("User", "Group"):
            key, shown = (kind, name), f"{kind} {_quote(name)}"
        else:
            continue
        by_subject.setdefault(key, []).append(
            BindingRef(described, ref.get("kind", ""), ref.get("name", ""), namespace, shown))


def _missing(ref: BindingRef) -> str:
    resource = "role" if ref.role_kind == "Role" else "clusterrole"
    return f'{resource}.{GROUP} "{ref.role_name}" not found'


def _quote(text: str) -> str:
    return orjson.dumps(text).decode()
