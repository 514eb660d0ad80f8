"""Defaults and validation of Jobs and CronJobs, after upstream's batch validation: the generated selector,
Indexed completion, podFailurePolicy, backoffLimitPerIndex, successPolicy, suspend, status transitions, the
schedule and the time zone."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.kinds.cronjob import CRON_JOB
from fakeapi.kinds.job import JOB
from tests.workloads import create_errors, cron_job, job, stored, template, update_errors

UID = "00000000-0000-0000-0000-000000000001"


def test_a_job_is_defaulted_and_gets_a_generated_selector() -> None:
    obj = stored(JOB, job())
    spec = obj["spec"]
    assert {key: spec[key] for key in ("completions", "parallelism", "backoffLimit", "completionMode", "suspend",
                                       "podReplacementPolicy", "manualSelector", "selector")} == {
        "completions": 1, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed", "suspend": False,
        "podReplacementPolicy": "TerminatingOrFailed", "manualSelector": False,
        "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": UID}}}
    assert spec["template"]["metadata"]["labels"] == {
        "app": "web", "job-name": "pi", "batch.kubernetes.io/job-name": "pi", "controller-uid": UID,
        "batch.kubernetes.io/controller-uid": UID}
    # the labels were defaulted from the template's when the Job was decoded, before the selector was generated
    assert obj["metadata"]["labels"] == {"app": "web"}
    assert create_errors(JOB, job()) == []


def test_job_defaults_that_depend_on_other_fields() -> None:
    per_index = stored(JOB, job(completionMode="Indexed", completions=3, backoffLimitPerIndex=1,
                                podFailurePolicy={"rules": [{"action": "Ignore", "onPodConditions": [
                                    {"type": "DisruptionTarget"}]}]}))["spec"]
    assert (per_index["backoffLimit"], per_index["podReplacementPolicy"], per_index["parallelism"]) == (
        2147483647, "Failed", 1)
    assert per_index["podFailurePolicy"]["rules"][0]["onPodConditions"] == [
        {"type": "DisruptionTarget", "status": "True"}]


@pytest.mark.parametrize(("spec", "expected"), [
    ({"template": template()},
     ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']),
    ({"template": template(restartPolicy="OnFailure"), "podFailurePolicy": {"rules": [
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1]}}]}},
     ['spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy '
      "is specified"]),
    ({"parallelism": -1, "backoffLimit": -2},
     ["spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
      "spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0"]),
    ({"completionMode": "Indexed"}, []),
    ({"completionMode": "Sometimes"},
     ['spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"']),
    ({"backoffLimitPerIndex": 1, "maxFailedIndexes": 1},
     ["spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
      "spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode"]),
    ({"completionMode": "Indexed", "completions": 2, "maxFailedIndexes": 3},
     ["spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
      "spec.maxFailedIndexes: Invalid value: 3: must be less than or equal to completions"]),
    ({"podFailurePolicy": {"rules": [{"action": "Explode"}, {"action": "FailIndex", "onExitCodes": {
        "operator": "In", "values": [3, 0, 3], "containerName": "nope"}}]}},
     ['spec.podFailurePolicy.rules[0].action: Unsupported value: "Explode": supported values: "Count", '
      '"FailIndex", "FailJob", "Ignore"',
      "spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is "
      "required",
      'spec.podFailurePolicy.rules[1].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be '
      "set",
      'spec.podFailurePolicy.rules[1].onExitCodes.containerName: Invalid value: "nope": must be one of the '
      "container or initContainer names in the pod template",
      "spec.podFailurePolicy.rules[1].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator",
      "spec.podFailurePolicy.rules[1].onExitCodes.values[2]: Duplicate value: 3",
      "spec.podFailurePolicy.rules[1].onExitCodes.values: Invalid value: []int32{3, 0, 3}: must be ordered"]),
    ({"podFailurePolicy": {"rules": [{"onPodConditions": [{"type": "bad type", "status": "Maybe"}]}]}},
     ['spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" '
      '"Ignore"]',
      'spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: "bad type": name part must consist '
      "of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
      "'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?"
      "[A-Za-z0-9]')",
      'spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "Maybe": supported values: '
      '"False", "True", "Unknown"']),
    ({"successPolicy": {"rules": [{"succeededCount": 1}]}},
     ["spec.successPolicy: Invalid value: batch.SuccessPolicy{...}: requires indexed completion mode"]),
    ({"completionMode": "Indexed", "completions": 5, "successPolicy": {"rules": [
        {"succeededIndexes": "0-2,1", "succeededCount": 9}, {}]}},
     ['spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-2,1": error parsing succeededIndexes: '
      "non-increasing order, previous: 2, current: 1",
      "spec.successPolicy.rules[0].succeededCount: Invalid value: 9: must be less than or equal to 5 (the number "
      "of specified completions)",
      "spec.successPolicy.rules[0].succeededCount: Invalid value: 9: must be less than or equal to 0 (the number "
      "of indexes in the specified succeededIndexes field)",
      "spec.successPolicy.rules[1]: Required value: at least one of succeededCount or succeededIndexes must be "
      "specified"]),
    ({"podReplacementPolicy": "Whenever"},
     ['spec.podReplacementPolicy: Unsupported value: "Whenever": supported values: "Failed", '
      '"TerminatingOrFailed"']),
])
def test_job_spec_errors(spec: dict[str, Any], expected: list[str]) -> None:
    assert create_errors(JOB, job(**spec)) == expected


def test_a_manual_selector_must_match_and_a_generated_one_must_be_the_servers() -> None:
    assert create_errors(JOB, job(manualSelector=True, selector={"matchLabels": {"app": "db"}})) == [
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match '
        "template `labels`"]
    assert create_errors(JOB, job(selector={"matchLabels": {"app": "web"}})) == [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", '
        '"batch.kubernetes.io/controller-uid":"00000000-0000-0000-0000-000000000001"}, '
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated"]


def test_an_indexed_job_needs_room_for_its_pods_hostnames() -> None:
    name = "j" * 61
    assert create_errors(JOB, job(name, completionMode="Indexed", completions=100)) == [
        f'metadata.name: Invalid value: "{name}": will not able to create pod with invalid DNS label: {name}-99']


def test_a_job_template_is_immutable_unless_suspended_and_never_started() -> None:
    old = stored(JOB, job())
    changed = copy.deepcopy(old)
    changed["spec"]["template"]["spec"]["nodeSelector"] = {"zone": "a"}
    assert update_errors(JOB, old, changed) == ["spec.template: Invalid value: core.PodTemplateSpec{...}: field is "
                                                "immutable"]
    suspended = stored(JOB, job(suspend=True))
    changed = copy.deepcopy(suspended)
    changed["spec"]["template"]["spec"]["nodeSelector"] = {"zone": "a"}
    changed["spec"]["suspend"] = False
    assert update_errors(JOB, suspended, changed) == []
    rescaled = copy.deepcopy(old)
    rescaled["spec"]["completions"] = 3
    assert update_errors(JOB, old, rescaled) == ["spec.completions: Invalid value: 3: field is immutable"]


def test_job_status_transitions_are_checked_where_they_change() -> None:
    old = stored(JOB, job())
    old["status"] = {"startTime": "2025-01-01T00:00:00Z", "active": 1}
    complete = copy.deepcopy(old)
    complete["status"] = {"startTime": "2025-01-01T00:00:00Z", "active": 1, "succeeded": 1,
                          "conditions": [{"type": "Complete", "status": "True"}]}
    assert update_errors(JOB, old, complete, "status") == [
        "status.completionTime: Required value: completionTime is required for Complete jobs",
        "status.active: Invalid value: 1: active>0 is invalid for finished job"]
    complete["status"].update(active=0, completionTime="2025-01-01T00:01:00Z",
                              conditions=[{"type": "SuccessCriteriaMet", "status": "True"},
                                          {"type": "Complete", "status": "True"}])
    assert update_errors(JOB, old, complete, "status") == []
    reopened = copy.deepcopy(complete)
    reopened["status"]["conditions"] = []
    reopened["status"]["succeeded"] = 0
    assert update_errors(JOB, complete, reopened, "status") == [
        "status.completionTime: Invalid value: 2025-01-01 00:01:00 +0000 UTC: cannot set completionTime when "
        "there is no Complete=True condition",
        "status.conditions: Invalid value: cannot disable the terminal Complete=True condition",
        "status.succeeded: Invalid value: 0: cannot decrease the succeeded counter",
        "status.conditions: Invalid value: cannot disable the SuccessCriteriaMet=True condition"]


def test_a_cron_job_is_defaulted_but_its_job_template_gets_no_job_defaults() -> None:
    spec = stored(CRON_JOB, cron_job())["spec"]
    assert {key: spec[key] for key in ("concurrencyPolicy", "suspend", "successfulJobsHistoryLimit",
                                       "failedJobsHistoryLimit")} == {
        "concurrencyPolicy": "Allow", "suspend": False, "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1}
    assert set(spec["jobTemplate"]["spec"]) == {"template"}
    assert spec["jobTemplate"]["spec"]["template"]["spec"]["dnsPolicy"] == "ClusterFirst"


@pytest.mark.parametrize(("name", "spec", "expected"), [
    ("hourly", {"schedule": "61 * * * *"},
     ['spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61']),
    ("hourly", {"schedule": "TZ=UTC 0 * * * *"},
     ['spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field '
      "instead"]),
    ("hourly", {"timeZone": "Mars/Olympus"}, ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone '
                                              "Mars/Olympus"]),
    ("hourly", {"timeZone": "Europe/Paris"}, []),
    ("hourly", {"timeZone": "local"},
     ['spec.timeZone: Invalid value: "local": timeZone must be an explicit time zone as defined in '
      "https://www.iana.org/time-zones",
      'spec.timeZone: Invalid value: "local": unknown time zone local']),
    ("hourly", {"concurrencyPolicy": "Sometimes"},
     ['spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"']),
    ("hourly", {"jobTemplate": {"spec": {"selector": {"matchLabels": {"a": "b"}}, "manualSelector": True,
                                         "template": template(restartPolicy="Never")}}},
     ['spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, '
      "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated",
      'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"']),
    ("c" * 53, {}, [f'metadata.name: Invalid value: "{"c" * 53}": must be no more than 52 characters']),
])
def test_cron_job_errors(name: str, spec: dict[str, Any], expected: list[str]) -> None:
    assert create_errors(CRON_JOB, cron_job(name, **spec)) == expected
