"""A Job's policies as the job controller reads them (upstream's pkg/controller/job pod_failure_policy.go,
success_policy.go and the per-index parts of indexed_job_utils.go): which rule a failed pod matches, whether
the succeeded indexes meet a success rule, and the index sets written as `1,3-5`."""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi.machinery.types import JSON

FAIL_JOB, FAIL_INDEX, IGNORE, COUNT = "FailJob", "FailIndex", "Ignore", "Count"
INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"
INDEX_IGNORED_FAILURE_COUNT = "batch.kubernetes.io/job-index-ignored-failure-count"


@dataclass(frozen=True)
class Match:
    """What a failed pod matched: the rule's action (None: no rule), whether the failure counts towards the
    back-off limits, and the Job's failure message for a FailJob rule."""

    action: str | None = None
    counts: bool = True
    message: str | None = None


def match_pod_failure_policy(policy: JSON | None, pod: JSON) -> Match:
    """matchPodFailurePolicy: the first rule the failed pod matches, by a container's exit code or by a pod
    condition."""
    if not policy:
        return Match()
    meta: JSON = pod.get("metadata") or {}
    status: JSON = pod.get("status") or {}
    for index, rule in enumerate(policy.get("rules") or []):
        action = str(rule.get("action", ""))
        requirement: JSON | None = rule.get("onExitCodes")
        if requirement is not None:
            container = _matching_container(status, requirement)
            if container is None:
                continue
            code = container["state"]["terminated"].get("exitCode", 0)
            message = (f"Container {container.get('name', '')} for pod {meta.get('namespace', '')}/"
                       f"{meta.get('name', '')} failed with exit code {code} matching {action} rule at index {index}")
        elif rule.get("onPodConditions") is not None:
            condition = _matching_condition(status, rule["onPodConditions"])
            if condition is None:
                continue
            message = (f"Pod {meta.get('namespace', '')}/{meta.get('name', '')} has condition "
                       f"{condition.get('type', '')} matching {action} rule at index {index}")
        else:
            continue
        if action == IGNORE:
            return Match(IGNORE, counts=False)
        if action == FAIL_JOB:
            return Match(FAIL_JOB, message=message)
        if action in (FAIL_INDEX, COUNT):
            return Match(action)
    return Match()


def _matching_container(status: JSON, requirement: JSON) -> JSON | None:
    """matchOnExitCodes: the first terminated container (then init container) whose non-zero exit code the
    operator accepts."""
    name = requirement.get("containerName")
    values = set(requirement.get("values") or [])
    operator = requirement.get("operator")
    for group in ("containerStatuses", "initContainerStatuses"):
        for container in status.get(group) or []:
            terminated = (container.get("state") or {}).get("terminated")
            if terminated is None or (name is not None and container.get("name") != name):
                continue
            code = int(terminated.get("exitCode") or 0)
            if code == 0:
                continue
            if (operator == "In" and code in values) or (operator == "NotIn" and code not in values):
                return dict(container)
    return None


def _matching_condition(status: JSON, patterns: list[JSON]) -> JSON | None:
    for condition in status.get("conditions") or []:
        for pattern in patterns:
            if condition.get("type") == pattern.get("type") and condition.get("status") == pattern.get("status"):
                return dict(condition)
    return None


def match_success_policy(policy: JSON | None, completions: int, succeeded: set[int]) -> str | None:
    """matchSuccessPolicy: the message of the first rule the succeeded indexes meet (`Matched rules at index
    0`), or None."""
    if not policy or not succeeded:
        return None
    for index, rule in enumerate(policy.get("rules") or []):
        required_text = rule.get("succeededIndexes")
        count = rule.get("succeededCount")
        if required_text is not None:
            required = parse_indexes(str(required_text), completions)
            if not required:
                continue
            done = len(required & succeeded)
            if (count is None and done == len(required)) or (count is not None and done >= int(count)):
                return f"Matched rules at index {index}"
        elif count is not None and len(succeeded) >= int(count):
            return f"Matched rules at index {index}"
    return None


def parse_indexes(text: str, completions: int) -> set[int]:
    """parseIndexesFromString: an index text (`1,3-5`) as a set, indexes from `completions` on left out."""
    found: set[int] = set()
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            continue
        if int(first) >= completions:
            break
        found.update(range(int(first), min(int(last or first), completions - 1) + 1))
    return found


def index_text(indexes: set[int]) -> str:
    """Indexes as upstream writes them (orderedIntervals.String): ascending intervals, a pair as `1,2`, three
    or more as `3-5`."""
    intervals: list[list[int]] = []
    for index in sorted(indexes):
        if intervals and index == intervals[-1][1] + 1:
            intervals[-1][1] = index
        else:
            intervals.append([index, index])
    parts = []
    for first, last in intervals:
        if first == last:
            parts.append(str(first))
        else:
            parts.append(f"{first}{',' if last == first + 1 else '-'}{last}")
    return ",".join(parts)


def annotation_count(pod: JSON, annotation: str) -> int:
    """An index failure count annotation of a pod (0 when absent or not a valid int32)."""
    value = ((pod.get("metadata") or {}).get("annotations") or {}).get(annotation, "")
    try:
        count = int(value)
    except ValueError:
        return 0
    return count if 0 <= count <= 2**31 - 1 else 0
