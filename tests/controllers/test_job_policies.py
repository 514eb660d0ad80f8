"""The job controller's pod failure policy, backoff limit per index and success policy, one upstream behaviour
per test, on a frozen clock."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import events_of
from tests.controllers.test_job import conditions, exiting, job_pods, status

INDEX = "batch.kubernetes.io/job-completion-index"
FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"


@pytest.fixture
def batch(api: Any) -> Any:
    return k8s.BatchV1Api(api)


def main(after: str = "2s", code: int = 0) -> dict[str, Any]:
    """A template whose one container, `main`, exits with `code`."""
    template = exiting(after, code)
    template["spec"]["containers"][0]["name"] = "main"
    return template


def running(script: str) -> dict[str, Any]:
    """A template whose container runs a shell script (JOB_COMPLETION_INDEX in its environment)."""
    template = workloads.template(restartPolicy="Never")
    template["spec"]["containers"][0].update(command=["sh", "-c", script])
    return template


def failing_index(index: int, others: str = "") -> dict[str, Any]:
    """A template whose pod fails (exit code 1) after a second for completion index `index`, and succeeds then
    for the others (after running `others` first)."""
    return running(f"sleep 1; test $JOB_COMPLETION_INDEX = {index} && exit 1; {others or 'true'}")


def by_index(core: Any) -> dict[int, list[Any]]:
    pods: dict[int, list[Any]] = {}
    for pod in job_pods(core):
        pods.setdefault(int(pod.metadata.labels[INDEX]), []).append(pod)
    return pods


def on_exit_codes(action: str, *codes: int, operator: str = "In", **extra: Any) -> dict[str, Any]:
    return {"action": action, "onExitCodes": {"operator": operator, "values": list(codes), **extra}}


def test_a_fail_job_rule_fails_the_job_with_the_rule_message(cluster: FakeAPIServer, batch: Any,
                                                             core: Any) -> None:
    policy = {"rules": [on_exit_codes("FailJob", 42, containerName="main")]}
    batch.create_namespaced_job("default", workloads.job(template=main("2s", code=42), backoffLimit=6,
                                                         podFailurePolicy=policy))
    [pod] = job_pods(core)
    cluster.clock.advance(3)
    message = f"Container main for pod default/{pod.metadata.name} failed with exit code 42 matching FailJob rule " \
              "at index 0"
    assert conditions(batch) == [("FailureTarget", "True", "PodFailurePolicy", message),
                                 ("Failed", "True", "PodFailurePolicy", message)]
    assert status(batch).failed == 1 and len(job_pods(core)) == 1  # not retried, though backoffLimit is 6
    assert events_of(core, "pi")[-1] == ("Warning", "PodFailurePolicy", message)


def test_a_fail_job_rule_terminates_the_other_pods_before_failed(cluster: FakeAPIServer, batch: Any,
                                                                 core: Any) -> None:
    policy = {"rules": [on_exit_codes("FailJob", 0, operator="NotIn")]}
    manifest = workloads.job(parallelism=2, completions=2, completionMode="Indexed", podFailurePolicy=policy,
                             template=failing_index(0, others="sleep 3600"))
    batch.create_namespaced_job("default", manifest)
    second = by_index(core)[1][0]
    cluster.clock.advance(2)
    [(kind, state, reason, message)] = conditions(batch)
    assert (kind, state, reason) == ("FailureTarget", "True", "PodFailurePolicy")
    assert message.endswith("failed with exit code 1 matching FailJob rule at index 0")
    assert core.read_namespaced_pod(second.metadata.name, "default").metadata.deletion_timestamp is not None
    cluster.clock.advance(3)
    assert [c[0] for c in conditions(batch)] == ["FailureTarget", "Failed"]


def test_an_ignore_rule_does_not_count_the_failure(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    policy = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    batch.create_namespaced_job("default", workloads.job(backoffLimit=0, podFailurePolicy=policy,
                                                         template=main("2s", code=1)))
    [pod] = job_pods(core)
    core.patch_namespaced_pod_status(pod.metadata.name, "default", {"status": {"conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI"}]}})
    cluster.clock.advance(3)
    assert conditions(batch) == [] and status(batch).failed is None  # backoffLimit 0 is not reached
    assert job_pods(core)[0].metadata.finalizers is None  # let go uncounted
    cluster.clock.advance(10)  # a new pod after the back-off
    assert len(job_pods(core)) == 2


def test_a_failure_no_rule_matches_counts_towards_the_backoff_limit(cluster: FakeAPIServer, batch: Any) -> None:
    policy = {"rules": [on_exit_codes("Ignore", 42)]}
    batch.create_namespaced_job("default", workloads.job(backoffLimit=0, podFailurePolicy=policy,
                                                         template=main("2s", code=1)))
    cluster.clock.advance(3)
    assert [c[2] for c in conditions(batch)] == ["BackoffLimitExceeded", "BackoffLimitExceeded"]


def test_a_terminating_pod_is_replaced_once_it_failed_with_a_pod_failure_policy(cluster: FakeAPIServer,
                                                                                batch: Any, core: Any) -> None:
    policy = {"rules": [on_exit_codes("Ignore", 42)]}
    job = batch.create_namespaced_job("default", workloads.job(podFailurePolicy=policy, template=main("1h")))
    assert job.spec.pod_replacement_policy == "Failed"
    [pod] = job_pods(core)
    cluster.clock.advance(1)
    core.delete_namespaced_pod(pod.metadata.name, "default", grace_period_seconds=30)
    cluster.clock.advance(0.1)
    assert len(job_pods(core)) == 1 and status(batch).terminating == 1  # not replaced while it terminates


def test_each_index_has_its_own_backoff_limit(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    manifest = workloads.job(completions=3, parallelism=3, completionMode="Indexed", backoffLimitPerIndex=1,
                             template=failing_index(1))
    job = batch.create_namespaced_job("default", manifest)
    assert job.spec.backoff_limit == 2**31 - 1
    assert [pods[0].metadata.annotations[FAILURE_COUNT] for pods in by_index(core).values()] == ["0", "0", "0"]
    cluster.clock.advance(3)
    assert (status(batch).completed_indexes, status(batch).failed_indexes, status(batch).failed) == ("0,2", "", 1)
    cluster.clock.advance(10)  # index 1 again, after its back-off, its failure counted
    retried = by_index(core)[1][-1]
    assert len(by_index(core)[1]) == 2 and retried.metadata.annotations[FAILURE_COUNT] == "1"
    cluster.clock.advance(3)  # failed twice: more than backoffLimitPerIndex
    assert status(batch).failed_indexes == "1" and status(batch).failed == 2
    failed = ("FailedIndexes", "Job has failed indexes")
    assert conditions(batch) == [("FailureTarget", "True", *failed), ("Failed", "True", *failed)]


def test_more_failed_indexes_than_max_failed_indexes_fail_the_job(cluster: FakeAPIServer, batch: Any,
                                                                  core: Any) -> None:
    manifest = workloads.job(completions=4, parallelism=2, completionMode="Indexed", backoffLimitPerIndex=0,
                             maxFailedIndexes=0, template=failing_index(0, others="sleep 3600"))
    batch.create_namespaced_job("default", manifest)
    cluster.clock.advance(2)  # index 0 failed at 1 s; index 1 still runs
    exceeded = ("MaxFailedIndexesExceeded", "Job has exceeded the specified maximal number of failed indexes")
    assert conditions(batch) == [("FailureTarget", "True", *exceeded)]
    assert status(batch).failed_indexes == "0"
    assert by_index(core)[1][0].metadata.deletion_timestamp is not None
    cluster.clock.advance(2)
    assert [c[0] for c in conditions(batch)] == ["FailureTarget", "Failed"] and 2 not in by_index(core)


def test_a_fail_index_rule_fails_the_index_at_once(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    policy = {"rules": [on_exit_codes("FailIndex", 1)]}
    manifest = workloads.job(completions=2, parallelism=2, completionMode="Indexed", backoffLimitPerIndex=3,
                             podFailurePolicy=policy, template=failing_index(1))
    batch.create_namespaced_job("default", manifest)
    cluster.clock.advance(3)
    assert (status(batch).failed_indexes, status(batch).completed_indexes) == ("1", "0")
    assert [c[2] for c in conditions(batch)] == ["FailedIndexes", "FailedIndexes"]
    assert len(by_index(core)[1]) == 1


def test_a_met_success_policy_completes_the_job_and_deletes_the_pods_left(cluster: FakeAPIServer, batch: Any,
                                                                          core: Any) -> None:
    policy = {"rules": [{"succeededIndexes": "0-1", "succeededCount": 1}]}
    manifest = workloads.job(completions=3, parallelism=3, completionMode="Indexed", successPolicy=policy,
                             template=running("test $JOB_COMPLETION_INDEX = 0 && sleep 2 || sleep 3600"))
    batch.create_namespaced_job("default", manifest)
    cluster.clock.advance(3)
    met = ("SuccessPolicy", "Matched rules at index 0")
    assert conditions(batch) == [("SuccessCriteriaMet", "True", *met)]
    assert status(batch).completed_indexes == "0"
    assert [pods[0].metadata.deletion_timestamp is not None for pods in by_index(core).values()] == [
        False, True, True]
    cluster.clock.advance(2)
    assert conditions(batch) == [("SuccessCriteriaMet", "True", *met), ("Complete", "True", *met)]
    assert status(batch).completion_time is not None and status(batch).active is None
