"""Job validation (upstream batch ValidateJob, ValidateJobUpdate, ValidateJobUpdateStatus) and the JobSpec
checks a CronJob's job template shares, with upstream's messages and field paths."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fakeapi.kinds.podtemplate.validation import SELECTOR_MISMATCH, template_labels, validate_pod_template_spec
from fakeapi.kinds.workload.validation import nonnegative
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.labelselector import (
    go_label_selector,
    selector_is_valid,
    selector_matches,
    validate_label_selector,
)
from fakeapi.machinery.validation.objectmeta import (
    FIELD_IMMUTABLE,
    validate_object_meta,
    validate_object_meta_update,
)
from fakeapi.machinery.validation.values import (
    GoText,
    as_dict,
    as_int,
    as_list,
    as_str,
    go_string_map,
    semantic_equal,
)

LEGACY_CONTROLLER_UID, CONTROLLER_UID = "controller-uid", "batch.kubernetes.io/controller-uid"
LEGACY_JOB_NAME, JOB_NAME = "job-name", "batch.kubernetes.io/job-name"
MAX_PARALLELISM_INDEXED = 100_000
MAX_FAILED_INDEXES = 100_000
COMPLETIONS_SOFT_LIMIT = 100_000
PARALLELISM_LIMIT_HIGH_COMPLETIONS = 10_000
MAX_FAILED_INDEXES_HIGH_COMPLETIONS = 10_000
MAX_POD_FAILURE_POLICY_RULES = 20
MAX_EXIT_CODE_VALUES = 255
MAX_CONDITION_PATTERNS = 20
MAX_MANAGED_BY = 63
MAX_SUCCEEDED_INDEXES = 64 * 1024
MAX_SUCCESS_POLICY_RULES = 20
ACTIONS = ["Count", "FailIndex", "FailJob", "Ignore"]
CONDITION_STATUSES = ["False", "True", "Unknown"]
EXIT_CODE_OPERATORS = ["In", "NotIn"]
_HTTP_PATH = re.compile(r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+")


def _quoted_list(values: list[str]) -> str:
    """Go's %q of a []string: `["a" "b"]`."""
    return "[" + " ".join(f'"{value}"' for value in values) + "]"


def go_elided(type_name: str) -> GoText:
    """A large internal struct upstream prints in full with `%#v`; shown by its type only."""
    return GoText(f"{type_name}{{...}}")


@dataclass(frozen=True)
class JobOptions:
    """Upstream's JobValidationOptions, as the strategy works them out."""

    require_prefixed_labels: bool = True
    allow_mutable_scheduling_directives: bool = False


def validate_job(job: JSON, options: JobOptions) -> list[FieldError]:
    meta, spec = as_dict(job.get("metadata")), as_dict(job.get("spec"))
    errs = validate_object_meta(meta, True, "metadata", names.name_is_dns_subdomain)
    errs += _validate_generated_selector(job, options.require_prefixed_labels)
    errs += validate_job_spec(spec, "spec")
    completions = spec.get("completions")
    if spec.get("completionMode") == "Indexed" and isinstance(completions, int) and completions > 0:
        hostname = f"{as_str(meta.get('name'))}-{completions - 1}"
        if names.is_dns1123_label(hostname):
            errs.append(fe.invalid("metadata.name", as_str(meta.get("name")),
                                   f"will not able to create pod with invalid DNS label: {hostname}"))
    return errs


def _validate_generated_selector(job: JSON, batch_labels: bool) -> list[FieldError]:
    """A generated selector (manualSelector unset or false) is the job's uid, and the template has the labels
    the server generated."""
    meta, spec = as_dict(job.get("metadata")), as_dict(job.get("spec"))
    if spec.get("manualSelector") is True or spec.get("selector") is None:
        return []
    uid, name = as_str(meta.get("uid")), as_str(meta.get("name"))
    errs = [] if uid else [fe.required("metadata.uid")]
    labels = template_labels(spec.get("template"))
    expected = {LEGACY_CONTROLLER_UID: uid, LEGACY_JOB_NAME: name}
    checks = [(LEGACY_CONTROLLER_UID, uid), (LEGACY_JOB_NAME, name)]
    if batch_labels:
        checks += [(CONTROLLER_UID, uid), (JOB_NAME, name)]
        expected = {CONTROLLER_UID: uid, JOB_NAME: name, **expected}
    for key, value in checks:
        at = f"spec.template.metadata.labels[{key}]"
        if key not in labels:
            errs.append(fe.required(at, value))
        elif labels[key] != value:
            errs.append(fe.invalid(at, go_string_map({k: as_str(v) for k, v in labels.items()}), f"must be '{value}'"))
    selector = spec.get("selector")
    if selector_is_valid(selector) and not selector_matches(selector, expected):
        errs.append(fe.invalid("spec.selector", go_label_selector(selector), "`selector` not auto-generated"))
    return errs


def validate_job_spec(spec: JSON, path: str) -> list[FieldError]:
    """ValidateJobSpec: the template checks, a selector (required), matching the template."""
    errs = validate_job_template_spec(spec, path)
    selector = spec.get("selector")
    if selector is None:
        errs.append(fe.required(f"{path}.selector"))
    else:
        errs += validate_label_selector(selector, f"{path}.selector")
    if selector_is_valid(selector) and not selector_matches(selector, template_labels(spec.get("template"))):
        labels = template_labels(spec.get("template"))
        shown = go_string_map({k: as_str(v) for k, v in labels.items()} if labels else None)
        errs.append(fe.invalid(f"{path}.template.metadata.labels", shown, SELECTOR_MISMATCH))
    return errs


def validate_job_template_spec(spec: JSON, path: str) -> list[FieldError]:
    """validateJobSpec: counts, indexed completion, the failure and success policies, the pod template
    (restartPolicy OnFailure or Never)."""
    errs: list[FieldError] = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex"):
        if spec.get(key) is not None:
            errs += nonnegative(spec.get(key), f"{path}.{key}")
    if spec.get("maxFailedIndexes") is not None:
        errs += nonnegative(spec.get("maxFailedIndexes"), f"{path}.maxFailedIndexes")
        if spec.get("backoffLimitPerIndex") is None:
            errs.append(fe.required(f"{path}.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    if spec.get("managedBy") is not None:
        errs += _validate_managed_by(as_str(spec.get("managedBy")), f"{path}.managedBy")
    errs += _validate_completion_mode(spec, path)
    if spec.get("podFailurePolicy") is not None:
        errs += _validate_pod_failure_policy(spec, f"{path}.podFailurePolicy")
    if spec.get("successPolicy") is not None:
        if spec.get("completionMode") != "Indexed":
            errs.append(fe.invalid(f"{path}.successPolicy", go_elided("batch.SuccessPolicy"),
                                   "requires indexed completion mode"))
        else:
            errs += _validate_success_policy(spec, f"{path}.successPolicy")
    errs += _validate_pod_replacement_policy(spec, f"{path}.podReplacementPolicy")
    template = spec.get("template")
    errs += validate_pod_template_spec(template, f"{path}.template")
    restart = as_str(as_dict(as_dict(template).get("spec")).get("restartPolicy"))
    at = f"{path}.template.spec.restartPolicy"
    if restart in ("Always", ""):
        errs.append(fe.required(at, 'valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        errs.append(fe.not_supported(at, restart, ["OnFailure", "Never"]))
    elif spec.get("podFailurePolicy") is not None and restart != "Never":
        errs.append(fe.invalid(at, restart, 'only "Never" is supported when podFailurePolicy is specified'))
    return errs


def _validate_managed_by(managed_by: str, path: str) -> list[FieldError]:
    """IsDomainPrefixedPath, at most 63 characters."""
    errs: list[FieldError] = []
    if not managed_by:
        errs.append(fe.required(path))
    else:
        host, _, rest = managed_by.partition("/")
        if not host or not rest:
            errs.append(fe.invalid(path, managed_by, 'must be a domain-prefixed path (such as "acme.io/foo")'))
        else:
            errs += [fe.invalid(path, host, message) for message in names.is_dns1123_subdomain(host)]
            if not _HTTP_PATH.fullmatch(rest):
                errs.append(fe.invalid(path, rest, names.regex_error("Invalid path", _HTTP_PATH.pattern)))
    if len(managed_by.encode()) > MAX_MANAGED_BY:
        errs.append(fe.too_long(path, MAX_MANAGED_BY))
    return errs


def _validate_completion_mode(spec: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    mode = spec.get("completionMode")
    completions, parallelism = spec.get("completions"), spec.get("parallelism")
    limit_per_index, max_failed = spec.get("backoffLimitPerIndex"), spec.get("maxFailedIndexes")
    if mode is not None:
        if mode not in ("NonIndexed", "Indexed"):
            errs.append(fe.not_supported(f"{path}.completionMode", mode, ["NonIndexed", "Indexed"]))
        if mode == "Indexed":
            if completions is None:
                errs.append(fe.required(f"{path}.completions", "when completion mode is Indexed"))
            if isinstance(parallelism, int) and parallelism > MAX_PARALLELISM_INDEXED:
                errs.append(fe.invalid(f"{path}.parallelism", parallelism, "must be less than or equal to "
                                       f"{MAX_PARALLELISM_INDEXED} when completion mode is Indexed"))
            if isinstance(completions, int) and isinstance(max_failed, int) and max_failed > completions:
                errs.append(fe.invalid(f"{path}.maxFailedIndexes", max_failed,
                                       "must be less than or equal to completions"))
            if isinstance(max_failed, int) and max_failed > MAX_FAILED_INDEXES:
                errs.append(fe.invalid(f"{path}.maxFailedIndexes", max_failed,
                                       f"must be less than or equal to {MAX_FAILED_INDEXES}"))
            if isinstance(completions, int) and completions > COMPLETIONS_SOFT_LIMIT and limit_per_index is not None:
                high = f"when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
                if max_failed is None:
                    errs.append(fe.required(f"{path}.maxFailedIndexes",
                                            f"must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}"))
                if isinstance(parallelism, int) and parallelism > PARALLELISM_LIMIT_HIGH_COMPLETIONS:
                    errs.append(fe.invalid(f"{path}.parallelism", parallelism, "must be less than or equal to "
                                           f"{PARALLELISM_LIMIT_HIGH_COMPLETIONS} {high}"))
                if isinstance(max_failed, int) and max_failed > MAX_FAILED_INDEXES_HIGH_COMPLETIONS:
                    errs.append(fe.invalid(f"{path}.maxFailedIndexes", max_failed, "must be less than or equal to "
                                           f"{MAX_FAILED_INDEXES_HIGH_COMPLETIONS} {high}"))
    if mode in (None, "NonIndexed"):
        if limit_per_index is not None:
            errs.append(fe.invalid(f"{path}.backoffLimitPerIndex", as_int(limit_per_index),
                                   "requires indexed completion mode"))
        if max_failed is not None:
            errs.append(fe.invalid(f"{path}.maxFailedIndexes", as_int(max_failed), "requires indexed completion mode"))
    return errs


def _validate_pod_failure_policy(spec: JSON, path: str) -> list[FieldError]:
    rules = as_list(as_dict(spec.get("podFailurePolicy")).get("rules"))
    errs: list[FieldError] = []
    if len(rules) > MAX_POD_FAILURE_POLICY_RULES:
        errs.append(fe.too_many(f"{path}.rules", len(rules), MAX_POD_FAILURE_POLICY_RULES))
    template_spec = as_dict(as_dict(spec.get("template")).get("spec"))
    containers = {as_str(as_dict(c).get("name")) for key in ("containers", "initContainers")
                  for c in as_list(template_spec.get(key))}
    for index, raw in enumerate(rules):
        errs += _validate_pod_failure_policy_rule(spec, as_dict(raw), f"{path}.rules[{index}]", containers)
    return errs


def _validate_pod_failure_policy_rule(spec: JSON, rule: JSON, path: str, containers: set[str]) -> list[FieldError]:
    errs: list[FieldError] = []
    action = as_str(rule.get("action"))
    if not action:
        errs.append(fe.required(f"{path}.action", f"valid values: {_quoted_list(ACTIONS)}"))
    elif action == "FailIndex":
        if spec.get("backoffLimitPerIndex") is None:
            errs.append(fe.invalid(f"{path}.action", action, "requires the backoffLimitPerIndex to be set"))
    elif action not in ACTIONS:
        errs.append(fe.not_supported(f"{path}.action", action, ACTIONS))
    exit_codes, conditions = rule.get("onExitCodes"), as_list(rule.get("onPodConditions"))
    if exit_codes is not None:
        errs += _validate_on_exit_codes(as_dict(exit_codes), f"{path}.onExitCodes", containers)
    if conditions:
        errs += _validate_on_pod_conditions(conditions, f"{path}.onPodConditions")
    if exit_codes is not None and conditions:
        errs.append(fe.invalid(path, fe.OMIT, "specifying both OnExitCodes and OnPodConditions is not supported"))
    if exit_codes is None and not conditions:
        errs.append(fe.invalid(path, fe.OMIT, "specifying one of OnExitCodes and OnPodConditions is required"))
    return errs


def _validate_on_pod_conditions(patterns: list[Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if len(patterns) > MAX_CONDITION_PATTERNS:
        errs.append(fe.too_many(path, len(patterns), MAX_CONDITION_PATTERNS))
    for index, raw in enumerate(patterns):
        pattern, at = as_dict(raw), f"{path}[{index}]"
        kind = as_str(pattern.get("type"))
        errs += [fe.invalid(f"{at}.type", kind, message) for message in names.is_qualified_name(kind)]
        status = as_str(pattern.get("status"))
        if not status:
            errs.append(fe.required(f"{at}.status", f"valid values: {_quoted_list(CONDITION_STATUSES)}"))
        elif status not in CONDITION_STATUSES:
            errs.append(fe.not_supported(f"{at}.status", status, CONDITION_STATUSES))
    return errs


def _go_int32s(values: list[int]) -> GoText:
    return GoText("[]int32{" + ", ".join(str(v) for v in values) + "}" if values else "[]int32(nil)")


def _validate_on_exit_codes(requirement: JSON, path: str, containers: set[str]) -> list[FieldError]:
    errs: list[FieldError] = []
    operator = as_str(requirement.get("operator"))
    if not operator:
        errs.append(fe.required(f"{path}.operator", f"valid values: {_quoted_list(EXIT_CODE_OPERATORS)}"))
    elif operator not in EXIT_CODE_OPERATORS:
        errs.append(fe.not_supported(f"{path}.operator", operator, EXIT_CODE_OPERATORS))
    container = requirement.get("containerName")
    if container is not None and as_str(container) not in containers:
        errs.append(fe.invalid(f"{path}.containerName", as_str(container),
                               "must be one of the container or initContainer names in the pod template"))
    values = [as_int(v) for v in as_list(requirement.get("values"))]
    if not values:
        errs.append(fe.invalid(f"{path}.values", _go_int32s(values), "at least one value is required"))
    elif len(values) > MAX_EXIT_CODE_VALUES:
        errs.append(fe.too_many(f"{path}.values", len(values), MAX_EXIT_CODE_VALUES))
    seen: set[int] = set()
    ordered = True
    for index, value in enumerate(values):
        at = f"{path}.values[{index}]"
        if operator == "In" and value == 0:
            errs.append(fe.invalid(at, value, "must not be 0 for the In operator"))
        if value in seen:
            errs.append(fe.duplicate(at, value))
        seen.add(value)
        if index > 0 and values[index - 1] > value:
            ordered = False
    if not ordered:
        errs.append(fe.invalid(f"{path}.values", _go_int32s(values), "must be ordered"))
    return errs


def _validate_success_policy(spec: JSON, path: str) -> list[FieldError]:
    rules = as_list(as_dict(spec.get("successPolicy")).get("rules"))
    errs: list[FieldError] = []
    if not rules:
        errs.append(fe.required(f"{path}.rules", "at least one rules must be specified when the successPolicy is "
                                                  "specified"))
    if len(rules) > MAX_SUCCESS_POLICY_RULES:
        errs.append(fe.too_many(f"{path}.rules", len(rules), MAX_SUCCESS_POLICY_RULES))
    completions = as_int(spec.get("completions"))
    for index, raw in enumerate(rules):
        rule, at = as_dict(raw), f"{path}.rules[{index}]"
        count, indexes = rule.get("succeededCount"), rule.get("succeededIndexes")
        if count is None and indexes is None:
            errs.append(fe.required(at, "at least one of succeededCount or succeededIndexes must be specified"))
        total = 0
        if indexes is not None:
            if len(as_str(indexes)) > MAX_SUCCEEDED_INDEXES:
                errs.append(fe.too_long(f"{at}.succeededIndexes", MAX_SUCCEEDED_INDEXES))
            try:
                total = count_indexes(as_str(indexes), completions)
            except ValueError as error:
                errs.append(fe.invalid(f"{at}.succeededIndexes", as_str(indexes),
                                       f"error parsing succeededIndexes: {error}"))
        if count is not None:
            errs += nonnegative(count, f"{at}.succeededCount")
            if as_int(count) > completions:
                errs.append(fe.invalid(f"{at}.succeededCount", as_int(count), f"must be less than or equal to "
                                       f"{completions} (the number of specified completions)"))
            if indexes is not None and as_int(count) > total:
                errs.append(fe.invalid(f"{at}.succeededCount", as_int(count), f"must be less than or equal to "
                                       f"{total} (the number of indexes in the specified succeededIndexes field)"))
    return errs


def count_indexes(text: str, completions: int) -> int:
    """validateIndexesFormat: `1,3-5,7` in increasing order, each below completions; how many indexes."""
    if not text:
        return 0
    last: int | None = None
    total = 0
    for interval in text.split(","):
        low, high = parse_index_interval(interval, completions)
        if last is not None and last >= low:
            raise ValueError(f"non-increasing order, previous: {last}, current: {low}")
        total += high - low + 1
        last = high
    return total


def parse_index_interval(interval: str, completions: int) -> tuple[int, int]:
    limits = interval.split("-")
    if len(limits) > 2:
        raise ValueError(f'the fragment "{interval}" violates the requirement that an index interval can have at '
                         "most two parts separated by '-'")
    low = _index(limits[0], completions)
    if len(limits) == 1:
        return low, low
    high = _index(limits[1], completions)
    if low >= high:
        raise ValueError(f"non-increasing order, previous: {low}, current: {high}")
    return low, high


def _index(text: str, completions: int) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(f'cannot convert string to integer for index: "{text}"')
    value = int(text)
    if value >= completions:
        raise ValueError(f'too large index: "{text}"')
    return value


def _validate_pod_replacement_policy(spec: JSON, path: str) -> list[FieldError]:
    policy = spec.get("podReplacementPolicy")
    if policy is None:
        return []
    if spec.get("podFailurePolicy") is not None:
        return [] if policy == "Failed" else [fe.not_supported(path, as_str(policy), ["Failed"])]
    supported = ["Failed", "TerminatingOrFailed"]
    return [] if policy in supported else [fe.not_supported(path, as_str(policy), supported)]


def validate_job_update(new: JSON, old: JSON, options: JobOptions) -> list[FieldError]:
    """ValidateJob and ValidateJobUpdate, as the strategy runs both (so a spec error is reported twice, as
    upstream reports it)."""
    errs = validate_job(new, options)
    errs += validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    errs += validate_job_spec(spec, "spec")
    errs += _validate_completions_update(spec, old_spec)
    if not semantic_equal(spec.get("selector"), old_spec.get("selector")):
        errs.append(fe.invalid("spec.selector", go_label_selector(spec.get("selector")), FIELD_IMMUTABLE))
    errs += _validate_template_update(spec, old_spec, options)
    for key, shown_type in (("completionMode", None), ("podFailurePolicy", "batch.PodFailurePolicy"),
                            ("backoffLimitPerIndex", None), ("managedBy", None),
                            ("successPolicy", "batch.SuccessPolicy")):
        if not semantic_equal(spec.get(key), old_spec.get(key)):
            value = spec.get(key)
            shown = GoText("null") if value is None else go_elided(shown_type) if shown_type else value
            errs.append(fe.invalid(f"spec.{key}", shown, FIELD_IMMUTABLE))
    return errs


def _validate_completions_update(spec: JSON, old_spec: JSON) -> list[FieldError]:
    """Completions never change for a NonIndexed Job; an Indexed one's change only with parallelism (elastic
    Indexed Jobs, on since v1.27)."""
    completions = spec.get("completions")
    if semantic_equal(completions, old_spec.get("completions")):
        return []
    shown = GoText("null") if completions is None else completions
    if spec.get("completionMode") != "Indexed":
        return [fe.invalid("spec.completions", shown, FIELD_IMMUTABLE)]
    if completions is not None and completions != spec.get("parallelism"):
        return [fe.invalid("spec.completions", shown, "can only be modified in tandem with spec.parallelism")]
    return []


def _validate_template_update(spec: JSON, old_spec: JSON, options: JobOptions) -> list[FieldError]:
    """The template never changes, except, for a suspended Job that never started, its scheduling directives
    (node affinity, node selector, tolerations, scheduling gates) and its labels and annotations."""
    template, old_template = as_dict(spec.get("template")), as_dict(old_spec.get("template"))
    if options.allow_mutable_scheduling_directives:
        template_spec, old_template_spec = as_dict(template.get("spec")), dict(as_dict(old_template.get("spec")))
        for key in ("nodeSelector", "tolerations", "schedulingGates"):
            old_template_spec[key] = template_spec.get(key)
        affinity, old_affinity = template_spec.get("affinity"), old_template_spec.get("affinity")
        if affinity is None and isinstance(old_affinity, dict):
            rest = {key: value for key, value in old_affinity.items() if key != "nodeAffinity"}
            old_template_spec["affinity"] = rest or None
        elif isinstance(affinity, dict):
            old_template_spec["affinity"] = {**as_dict(old_affinity), "nodeAffinity": affinity.get("nodeAffinity")}
        old_meta = {**as_dict(old_template.get("metadata"))}
        meta = as_dict(template.get("metadata"))
        old_meta["labels"], old_meta["annotations"] = meta.get("labels"), meta.get("annotations")
        old_template = {**old_template, "metadata": old_meta, "spec": old_template_spec}
    if semantic_equal(template, old_template):
        return []
    return [fe.invalid("spec.template", go_elided("core.PodTemplateSpec"), FIELD_IMMUTABLE)]
