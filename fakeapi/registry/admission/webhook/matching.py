"""Which webhooks a request goes to (upstream's webhook/predicates/rules, namespace and object matchers): the
rules' operations, groups, versions, resources with subresources and scope, the match policy, the namespace
and object selectors. Requests about webhook configurations and admission policies never go to a webhook."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.labelselector import selector_matches
from fakeapi.registry.admission import Attributes

ADMISSION_GROUP = "admissionregistration.k8s.io"
EXEMPT_RESOURCES = frozenset(("mutatingwebhookconfigurations", "validatingwebhookconfigurations",
                              "validatingadmissionpolicies", "validatingadmissionpolicybindings",
                              "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"))


def exempt(attributes: Attributes) -> bool:
    """upstream's IsExemptAdmissionConfigurationResource."""
    return attributes.info.group == ADMISSION_GROUP and attributes.info.resource in EXEMPT_RESOURCES


def rule_matches(rule: JSON, attributes: Attributes, version_matters: bool) -> bool:
    info = attributes.info
    operations = rule.get("operations") or []
    if "*" not in operations and attributes.operation not in operations:
        return False
    groups = rule.get("apiGroups") or []
    if "*" not in groups and info.group not in groups:
        return False
    versions = rule.get("apiVersions") or []
    if version_matters and "*" not in versions and info.version not in versions:
        return False
    scope = rule.get("scope") or "*"
    if scope == "Cluster" and info.namespaced or scope == "Namespaced" and not info.namespaced:
        return False
    return _resource_matches(rule.get("resources") or [], info.resource, attributes.subresource)


def _resource_matches(resources: list[Any], resource: str, subresource: str) -> bool:
    for entry in resources:
        wanted_resource, _, wanted_sub = str(entry).partition("/")
        if wanted_resource not in ("*", resource):
            continue
        if wanted_sub in ("*", subresource):
            return True
    return False


def rules_match(webhook: JSON, attributes: Attributes, equivalent_versions: Callable[[], bool]) -> bool:
    """Exact: a rule names the request's group, version and resource. Equivalent: also a rule that names the
    same resource in another version the server serves (the object is still sent in the request's version)."""
    rules = [rule for rule in webhook.get("rules") or [] if isinstance(rule, dict)]
    if any(rule_matches(rule, attributes, True) for rule in rules):
        return True
    if webhook.get("matchPolicy", "Equivalent") != "Equivalent" or not equivalent_versions():
        return False
    return any(rule_matches(rule, attributes, False) for rule in rules)


def selectors_match(webhook: JSON, attributes: Attributes, namespace: JSON | None) -> bool:
    """The object selector against the object's or the old object's labels; the namespace selector against
    the labels of the request's namespace (a namespace's own for a namespace; cluster-scoped objects match)."""
    object_selector = webhook.get("objectSelector") or {}
    if object_selector and not any(
            selector_matches(object_selector, (obj.get("metadata") or {}).get("labels") or {})
            for obj in (attributes.obj, attributes.old) if obj is not None):
        return False
    namespace_selector = webhook.get("namespaceSelector") or {}
    if not namespace_selector:
        return True
    if attributes.info.group == "" and attributes.info.resource == "namespaces":
        namespace = attributes.obj if attributes.obj is not None else attributes.old
    elif not attributes.info.namespaced:
        return True
    labels = ((namespace or {}).get("metadata") or {}).get("labels") or {}
    return selector_matches(namespace_selector, labels)
