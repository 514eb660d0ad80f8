"""Upstream's validation of the access reviews (pkg/apis/authorization/validation).

Exactly one of resourceAttributes and nonResourceAttributes; a SubjectAccessReview names a user or a
group; a selector gives a raw selector or requirements, not both and not neither; metadata stays empty
(managedFields aside). Bad values print as upstream's `%#v` of the internal Go types.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.validation.values import GoText, as_dict, as_list, as_str, go_quote, go_string_map, go_struct

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def validate_self_subject_access_review(review: dict[str, Any]) -> list[FieldError]:
    spec = as_dict(review.get("spec"))
    return _attribute_errors(spec) + _metadata_errors(review)


def validate_subject_access_review(review: dict[str, Any]) -> list[FieldError]:
    spec = as_dict(review.get("spec"))
    errs = _attribute_errors(spec, who=True)
    return errs + _metadata_errors(review)


def validate_local_subject_access_review(review: dict[str, Any]) -> list[FieldError]:
    """Upstream's ValidateLocalSubjectAccessReview: metadata empty but for the namespace, which the
    resource attributes must name; no non-resource attributes."""
    spec = as_dict(review.get("spec"))
    errs = _attribute_errors(spec, who=True)
    meta = as_dict(review.get("metadata"))
    namespace = as_str(meta.get("namespace"))
    if _metadata_errors({"metadata": {key: value for key, value in meta.items() if key != "namespace"}}):
        errs.append(fe.invalid("metadata", _object_meta_literal(meta), "must be empty except for namespace"))
    resource = spec.get("resourceAttributes")
    if resource is not None and as_str(as_dict(resource).get("namespace")) != namespace:
        errs.append(fe.invalid("spec.resourceAttributes.namespace", as_str(as_dict(resource).get("namespace")),
                               "must match metadata.namespace"))
    if spec.get("nonResourceAttributes") is not None:
        errs.append(fe.invalid("spec.nonResourceAttributes", _non_resource_literal(spec["nonResourceAttributes"]),
                               "disallowed on this kind of request"))
    return errs


def _attribute_errors(spec: dict[str, Any], who: bool = False) -> list[FieldError]:
    errs: list[FieldError] = []
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if resource is not None and non_resource is not None:
        errs.append(fe.invalid("spec.nonResourceAttributes", _non_resource_literal(non_resource),
                               "cannot be specified in combination with resourceAttributes"))
    if resource is None and non_resource is None:
        # upstream passes the nil pointer, which field.Error prints as "null"
        errs.append(fe.invalid("spec.resourceAttributes", "null",
                               "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
    if who and not spec.get("user") and not spec.get("groups"):
        errs.append(fe.invalid("spec.user", as_str(spec.get("user")),
                               "at least one of user or group must be specified"))
    if resource is not None:
        attributes = as_dict(resource)
        for name in ("fieldSelector", "labelSelector"):
            errs += _selector_errors(attributes.get(name), f"spec.resourceAttributes.{name}")
    return errs


def _selector_errors(selector: Any, path: str) -> list[FieldError]:
    if selector is None:
        return []
    selector = as_dict(selector)
    raw, requirements = as_str(selector.get("rawSelector")), as_list(selector.get("requirements"))
    errs: list[FieldError] = []
    if raw and requirements:
        errs.append(fe.invalid(f"{path}.rawSelector", raw, "may not specified at the same time as requirements"))
    if not raw and not requirements:
        errs.append(fe.required(f"{path}.requirements",
                                f"when {path} is specified, requirements or rawSelector is required"))
    return errs


def _non_resource_literal(attributes: Any) -> GoText:
    attributes = as_dict(attributes)
    return go_struct("authorization.NonResourceAttributes",
                     [("Path", as_str(attributes.get("path"))), ("Verb", as_str(attributes.get("verb")))])


# ---- metadata: must be empty


def _metadata_errors(review: dict[str, Any]) -> list[FieldError]:
    meta = as_dict(review.get("metadata"))
    # Semantic.DeepEqual with an empty ObjectMeta: empty maps and lists count as unset, managedFields aside
    if all(key == "managedFields" or value in (None, "", 0, {}, []) for key, value in meta.items()):
        return []
    return [fe.invalid("metadata", _object_meta_literal(meta), "must be empty")]


def _object_meta_literal(meta: dict[str, Any]) -> GoText:
    """`%#v` of a v1.ObjectMeta as the apiserver decoded it (times in its local zone, taken to be UTC)."""
    strings = [(go, as_str(meta.get(wire))) for go, wire in (
        ("Name", "name"), ("GenerateName", "generateName"), ("Namespace", "namespace"), ("SelfLink", "selfLink"),
        ("UID", "uid"), ("ResourceVersion", "resourceVersion"))]
    return go_struct("v1.ObjectMeta", [
        *strings,
        ("Generation", GoText(str(meta.get("generation") or 0))),
        ("CreationTimestamp", _go_time(meta.get("creationTimestamp"), zero=True)),
        ("DeletionTimestamp", _go_time(meta.get("deletionTimestamp"), zero=False)),
        ("DeletionGracePeriodSeconds", GoText("(*int64)(nil)")),
        ("Labels", go_string_map(meta.get("labels"))),
        ("Annotations", go_string_map(meta.get("annotations"))),
        ("OwnerReferences", GoText("[]v1.OwnerReference(nil)")),
        ("Finalizers", _go_strings(meta.get("finalizers"))),
        ("ManagedFields", GoText("[]v1.ManagedFieldsEntry(nil)")),
    ])


def _go_strings(values: Any) -> GoText:
    if not values:
        return GoText("[]string(nil)")
    return GoText("[]string{" + ", ".join(go_quote(as_str(value)) for value in as_list(values)) + "}")


def _go_time(value: Any, zero: bool) -> GoText:
    """time.Time's GoString: the zero time in UTC; a decoded one in time.Local; a nil *Time as <nil>."""
    if not value:
        return GoText("time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)" if zero else "<nil>")
    when = datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(UTC)
    return GoText(f"time.Date({when.year}, time.{_MONTHS[when.month - 1]}, {when.day}, {when.hour}, "
                  f"{when.minute}, {when.second}, {when.microsecond * 1000}, time.Local)")
