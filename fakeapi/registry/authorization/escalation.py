"""RBAC's escalation and bind prevention (upstream pkg/registry/rbac/*/policybased and
pkg/registry/rbac/validation): a user may write a Role or ClusterRole only with rules it holds itself (or
with the `escalate` verb on it), and a binding only to a role whose rules it holds (or with the `bind` verb
on that role). Members of system:masters, and the server's own writes, are not checked; nor is anything
when RBAC is not among the authorization modes (upstream checks against RBAC's rules whatever the modes).

Registered as the write hooks of the four RBAC registries: they run after admission, before validation, as
upstream's policy-based storage wraps the standard one."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from fakeapi.kinds.kind import ResourceInfo
from fakeapi.machinery.errors import Forbidden
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo
from fakeapi.registry.authorization.attributes import Attributes
from fakeapi.registry.authorization.decision import PRIVILEGED_GROUP
from fakeapi.registry.authorization.modes import ServerAuthorizer
from fakeapi.registry.options import WriteOptions

GROUP = "rbac.authorization.k8s.io"
_GC_FIELDS = ("ownerReferences", "finalizers", "managedFields", "resourceVersion", "generation")


class EscalationCheck:
    """The write hooks of one RBAC registry (roles, clusterroles, rolebindings or clusterrolebindings)."""

    def __init__(self, authorizer: ServerAuthorizer, info: ResourceInfo) -> None:
        self.authorizer = authorizer
        self.info = info
        self.binding = info.resource.endswith("bindings")

    def begin_create(self, obj: JSON, options: WriteOptions) -> None:
        self._check(obj, None, options.user)

    def begin_update(self, new: JSON, old: JSON, options: WriteOptions) -> None:
        self._check(new, old, options.user)

    def _check(self, obj: JSON, old: JSON | None, user: UserInfo | None) -> None:
        if user is None or self.authorizer.rbac is None or PRIVILEGED_GROUP in user.groups:
            return
        if old is not None and _only_gc_fields_change(obj, old):
            return
        meta: JSON = obj.get("metadata") or {}
        namespace, name = meta.get("namespace") or "", meta.get("name") or ""
        if self.binding:
            self._check_binding(obj, user, namespace, name)
            return
        escalate = Attributes(user, "escalate", True, namespace, GROUP, self.info.resource,
                              name=name if old is not None else "")
        if not self.authorizer.authorize(escalate).allowed:
            self._confirm_held(user, namespace, name, obj.get("rules") or [])

    def _check_binding(self, binding: JSON, user: UserInfo, namespace: str, name: str) -> None:
        ref: JSON = binding.get("roleRef") or {}
        resource = "roles" if ref.get("kind") == "Role" else "clusterroles"
        bind = Attributes(user, "bind", True, namespace, ref.get("apiGroup") or "", resource,
                          name=ref.get("name") or "")
        if self.authorizer.authorize(bind).allowed:
            return
        rules = self._role_rules(resource, namespace, ref.get("name") or "")
        if rules is None:
            raise Forbidden.for_object(self.info.resource, name,
                                       f'{resource}.{GROUP} "{ref.get("name") or ""}" not found', group=GROUP)
        self._confirm_held(user, namespace, name, rules)

    def _role_rules(self, resource: str, namespace: str, name: str) -> list[JSON] | None:
        assert self.authorizer.rbac is not None  # (checked only under RBAC)
        index = self.authorizer.rbac.index
        if resource == "roles":
            return index.role_rules.get((namespace, name))
        return index.cluster_role_rules.get(name)

    def _confirm_held(self, user: UserInfo, namespace: str, name: str, rules: list[JSON]) -> None:
        """Upstream's ConfirmNoEscalation: every rule is covered by the rules the user holds."""
        assert self.authorizer.rbac is not None
        held, errors = self.authorizer.rbac.rules_for(user, namespace)
        missing = [part for rule in rules for part in breakdown(rule) if not any(covers(own, part) for own in held)]
        if not missing:
            return
        described = sorted({compact_string(rule) for rule in compact(missing)})
        groups = " ".join(_quote(group) for group in user.groups)
        message = (f"user {_quote(user.username)} (groups=[{groups}]) is attempting to grant RBAC permissions not "
                   f"currently held:\n" + "\n".join(described))
        if errors:
            message += f"; resolution errors: [{', '.join(errors)}]"
        raise Forbidden.for_object(self.info.resource, name, message, group=GROUP)


@dataclass(frozen=True)
class _Simple:
    group: str
    resource: str
    names: tuple[str, ...]


def breakdown(rule: JSON) -> list[JSON]:
    """A rule as rules of one verb, group, resource (and name) or one verb and URL each."""
    parts: list[JSON] = []
    verbs = list(rule.get("verbs") or [])
    names = list(rule.get("resourceNames") or [])
    for group in rule.get("apiGroups") or []:
        for resource in rule.get("resources") or []:
            for verb in verbs:
                base: JSON = {"apiGroups": [group], "resources": [resource], "verbs": [verb]}
                parts += [{**base, "resourceNames": [name]} for name in names] if names else [base]
    for url in rule.get("nonResourceURLs") or []:
        parts += [{"nonResourceURLs": [url], "verbs": [verb]} for verb in verbs]
    return parts


def covers(owner: JSON, requested: JSON) -> bool:
    """Upstream's ruleCovers."""
    owner_verbs, owner_groups = owner.get("verbs") or [], owner.get("apiGroups") or []
    owner_names = owner.get("resourceNames") or []
    requested_names = requested.get("resourceNames") or []
    if "*" not in owner_verbs and not set(requested.get("verbs") or []) <= set(owner_verbs):
        return False
    if "*" not in owner_groups and not set(requested.get("apiGroups") or []) <= set(owner_groups):
        return False
    if not _resources_cover(owner.get("resources") or [], requested.get("resources") or []):
        return False
    if not all(_url_covers(owner.get("nonResourceURLs") or [], url) for url in requested.get("nonResourceURLs") or []):
        return False
    if not requested_names:
        return not owner_names
    return not owner_names or set(requested_names) <= set(owner_names)


def _resources_cover(owned: list[str], requested: list[str]) -> bool:
    if "*" in owned or set(requested) <= set(owned):
        return True
    for path in requested:
        if path in owned:
            continue
        if "/" not in path or "*/" + path.split("/", 1)[1] not in owned:
            return False
    return True


def _url_covers(owned: list[str], url: str) -> bool:
    return any(own == url or (own.endswith("*") and url.startswith(own.rstrip("*"))) for own in owned)


def compact(rules: list[JSON]) -> list[JSON]:
    """Upstream's CompactRules: rules of one group and resource (and at most one name) that differ only by
    verb become one."""
    compacted: list[JSON] = []
    simple: dict[_Simple, JSON] = {}
    for rule in rules:
        groups, resources = rule.get("apiGroups") or [], rule.get("resources") or []
        names = rule.get("resourceNames") or []
        if len(names) > 1 or rule.get("nonResourceURLs") or len(groups) != 1 or len(resources) != 1:
            compacted.append(rule)
            continue
        key = _Simple(groups[0], resources[0], tuple(names))
        if key in simple:
            simple[key]["verbs"] = [*simple[key]["verbs"], *(rule.get("verbs") or [])]
        else:
            simple[key] = {**rule, "verbs": list(rule.get("verbs") or [])}
    return compacted + list(simple.values())


def compact_string(rule: JSON) -> str:
    """Upstream's rbacv1helpers.CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`."""
    parts = [f"{label}:[{' '.join(_quote(value) for value in rule[field])}]"
             for label, field in (("APIGroups", "apiGroups"), ("Resources", "resources"),
                                  ("NonResourceURLs", "nonResourceURLs"), ("ResourceNames", "resourceNames"),
                                  ("Verbs", "verbs")) if rule.get(field)]
    return "{" + ", ".join(parts) + "}"


def _only_gc_fields_change(new: JSON, old: JSON) -> bool:
    """Upstream's IsOnlyMutatingGCFields: nothing but owner references and finalizers change."""
    def without(obj: JSON) -> JSON:
        meta = {key: value for key, value in (obj.get("metadata") or {}).items() if key not in _GC_FIELDS}
        return {**obj, "metadata": meta}

    return without(new) == without(old)


def _quote(text: str) -> str:
    return orjson.dumps(text).decode()
