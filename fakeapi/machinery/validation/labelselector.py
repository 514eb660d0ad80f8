"""metav1.LabelSelector in validation: apimachinery's ValidateLabelSelector, what LabelSelectorAsSelector
accepts and matches, and the selector as Go's `%#v` prints it in a field error."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_label_name, validate_labels
from fakeapi.machinery.validation.values import GoText, as_dict, as_list, as_str, go_quote, go_string_map

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def validate_label_selector(selector: Any, path: str) -> list[FieldError]:
    """ValidateLabelSelector with label values checked (AllowInvalidLabelValueInSelector off)."""
    if not isinstance(selector, dict):
        return []
    errs = validate_labels(selector.get("matchLabels"), f"{path}.matchLabels")
    for index, raw in enumerate(as_list(selector.get("matchExpressions"))):
        requirement, at = as_dict(raw), f"{path}.matchExpressions[{index}]"
        operator, values = requirement.get("operator"), as_list(requirement.get("values"))
        if operator in ("In", "NotIn"):
            if not values:
                errs.append(
                    fe.required(f"{at}.values", "must be specified when `operator` is 'In' or 'NotIn'")
                )
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                errs.append(fe.forbidden(f"{at}.values", detail))
        else:
            errs.append(fe.invalid(f"{at}.operator", as_str(operator), "not a valid selector operator"))
        errs += validate_label_name(as_str(requirement.get("key")), f"{at}.key")
        for value_index, value in enumerate(values):
            value_at = f"{at}.values[{value_index}]"
            errs += [fe.invalid(value_at, value, msg) for msg in names.is_valid_label_value(as_str(value))]
    return errs


def selector_is_valid(selector: Any) -> bool:
    """Whether LabelSelectorAsSelector turns the selector into a labels.Selector (a null one is Nothing,
    which is valid)."""
    if selector is None:
        return True
    if not isinstance(selector, dict):
        return False
    for key, value in as_dict(selector.get("matchLabels")).items():
        if names.is_qualified_name(key) or names.is_valid_label_value(as_str(value)):
            return False
    for raw in as_list(selector.get("matchExpressions")):
        requirement = as_dict(raw)
        operator, values = requirement.get("operator"), as_list(requirement.get("values"))
        key = as_str(requirement.get("key"))
        if operator not in _OPERATORS or names.is_qualified_name(key):
            return False
        if (operator in ("In", "NotIn")) != bool(values):
            return False
        if any(names.is_valid_label_value(as_str(value)) for value in values):
            return False
    return True


def selector_is_empty(selector: Any) -> bool:
    """No requirement at all: LabelSelectorAsSelector gives labels.Everything()."""
    selector = as_dict(selector)
    return not as_dict(selector.get("matchLabels")) and not as_list(selector.get("matchExpressions"))


def selector_matches(selector: Any, labels: Any) -> bool:
    """Whether a (valid) LabelSelector matches a label set; a null selector matches nothing, an empty one
    everything."""
    if selector is None:
        return False
    labels = as_dict(labels)
    selector = as_dict(selector)
    for key, value in as_dict(selector.get("matchLabels")).items():
        if labels.get(key) != value:
            return False
    for raw in as_list(selector.get("matchExpressions")):
        requirement = as_dict(raw)
        key, operator = as_str(requirement.get("key")), requirement.get("operator")
        values = {as_str(value) for value in as_list(requirement.get("values"))}
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def go_label_selector(selector: Any) -> GoText:
    """The selector as a field error prints it (Go's `%#v` of v1.LabelSelector; a null one is `null`)."""
    if selector is None:
        return GoText("null")
    selector = as_dict(selector)
    match_labels = selector.get("matchLabels")
    labels = go_string_map({str(k): as_str(v) for k, v in match_labels.items()}) \
        if isinstance(match_labels, dict) and match_labels else GoText("map[string]string(nil)")
    expressions = as_list(selector.get("matchExpressions"))
    if expressions:
        shown = ", ".join(_go_requirement(as_dict(e)) for e in expressions)
        requirements = f"[]v1.LabelSelectorRequirement{{{shown}}}"
    else:
        requirements = "[]v1.LabelSelectorRequirement(nil)"
    return GoText(f"v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{requirements}}}")


def _go_requirement(requirement: dict[str, Any]) -> str:
    values = as_list(requirement.get("values"))
    shown = ("[]string{" + ", ".join(go_quote(as_str(v)) for v in values) + "}") if values else "[]string(nil)"
    return (f"v1.LabelSelectorRequirement{{Key:{go_quote(as_str(requirement.get('key')))}, "
            f"Operator:{go_quote(as_str(requirement.get('operator')))}, Values:{shown}}}")
