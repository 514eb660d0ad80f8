"""The job and ttl-after-finished controllers, one upstream behaviour per test, on a frozen clock."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import events_of


@pytest.fixture
def batch(api: Any) -> Any:
    return k8s.BatchV1Api(api)


def exiting(after: str = "3s", code: int = 0, **spec: Any) -> dict[str, Any]:
    """A pod template whose container exits with `code` after running `after`."""
    template = workloads.template(restartPolicy=spec.pop("restartPolicy", "Never"), **spec)
    template["metadata"]["annotations"] = {"fakeapi.dev/exit-after": after, "fakeapi.dev/exit-code": str(code)}
    return template


def status(batch: Any, name: str = "pi") -> Any:
    return batch.read_namespaced_job(name, "default").status


def conditions(batch: Any, name: str = "pi") -> list[tuple[str, str, str, str]]:
    return [(c.type, c.status, c.reason, c.message) for c in status(batch, name).conditions or []]


def job_pods(core: Any) -> list[Any]:
    return sorted(core.list_namespaced_pod("default").items, key=lambda p: p.metadata.creation_timestamp)


def test_pods_are_made_from_the_template_with_the_tracking_finalizer(cluster: FakeAPIServer, batch: Any,
                                                                     core: Any) -> None:
    job = batch.create_namespaced_job("default", workloads.job(template=exiting()))
    [pod] = job_pods(core)
    assert pod.metadata.generate_name == "pi-" and pod.metadata.finalizers == ["batch.kubernetes.io/job-tracking"]
    assert pod.metadata.labels["batch.kubernetes.io/job-name"] == "pi"
    assert [(r.kind, r.uid, r.controller) for r in pod.metadata.owner_references] == [("Job", job.metadata.uid, True)]
    assert events_of(core, "pi") == [("Normal", "SuccessfulCreate", f"Created pod: {pod.metadata.name}")]
    assert (status(batch).active, status(batch).start_time) == (1, cluster.clock.now())


def test_parallelism_and_completions_bound_the_pods(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(completions=5, parallelism=2, template=exiting("2s")))
    assert len(job_pods(core)) == 2
    cluster.clock.advance(3)  # the first two succeeded: two more
    assert (status(batch).succeeded, status(batch).active) == (2, 2)
    cluster.clock.advance(3)
    assert (status(batch).succeeded, status(batch).active) == (4, 1)  # only one completion left
    cluster.clock.advance(3)
    assert status(batch).succeeded == 5 and len(job_pods(core)) == 5


def test_a_job_completes_with_success_criteria_met_then_complete(cluster: FakeAPIServer, batch: Any,
                                                                 core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(template=exiting("2s")))
    cluster.clock.advance(3)
    reached = ("CompletionsReached", "Reached expected number of succeeded pods")
    assert conditions(batch) == [("SuccessCriteriaMet", "True", *reached), ("Complete", "True", *reached)]
    done = status(batch)
    assert (done.succeeded, done.active, done.ready, done.terminating) == (1, None, 0, 0)
    assert done.completion_time is not None and done.uncounted_terminated_pods.succeeded is None
    assert events_of(core, "pi")[-1] == ("Normal", "Completed", "Job completed")
    assert job_pods(core)[0].metadata.finalizers is None  # counted, then let go


def test_finished_pods_are_counted_through_uncounted_terminated_pods(cluster: FakeAPIServer, batch: Any,
                                                                     core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(template=exiting("2s")))
    cluster.clear_requests()
    cluster.clock.advance(3)
    writes = [r.json()["status"] for r in cluster.requests if r.resource == "jobs" and r.subresource == "status"]
    uid = job_pods(core)[0].metadata.uid
    listed = next(index for index, status in enumerate(writes) if status["uncountedTerminatedPods"])
    assert writes[listed]["uncountedTerminatedPods"] == {"succeeded": [uid]} and "succeeded" not in writes[listed]
    assert writes[listed + 1]["uncountedTerminatedPods"] == {} and writes[listed + 1]["succeeded"] == 1


def test_failed_pods_are_retried_after_a_doubling_back_off(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(backoffLimit=6, template=exiting("1s", code=1)))
    cluster.clock.advance(2)  # the first pod failed at 1 s
    assert (status(batch).failed, len(job_pods(core))) == (1, 1)
    cluster.clock.advance(8)  # 10 s after the failure
    assert len(job_pods(core)) == 1
    cluster.clock.advance(2)
    assert len(job_pods(core)) == 2
    cluster.clock.advance(2)  # the second failed: 20 s this time
    cluster.clock.advance(18)
    assert len(job_pods(core)) == 2
    cluster.clock.advance(2)
    assert len(job_pods(core)) == 3


def test_more_failures_than_the_backoff_limit_fail_the_job(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(backoffLimit=0, template=exiting("1s", code=1)))
    cluster.clock.advance(2)
    limit = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
    assert conditions(batch) == [("FailureTarget", "True", *limit), ("Failed", "True", *limit)]
    assert status(batch).failed == 1 and status(batch).completion_time is None
    assert events_of(core, "pi")[-1] == ("Warning", *limit)


def test_a_job_active_past_its_deadline_fails_and_its_pods_are_deleted(cluster: FakeAPIServer, batch: Any,
                                                                       core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(activeDeadlineSeconds=10, template=exiting("1h")))
    cluster.clock.advance(9)
    assert conditions(batch) == []
    cluster.clock.advance(1)
    deadline = ("DeadlineExceeded", "Job was active longer than specified deadline")
    assert conditions(batch) == [("FailureTarget", "True", *deadline)]  # Failed once its pod is gone
    assert job_pods(core)[0].metadata.deletion_timestamp is not None
    cluster.clock.advance(2)  # the pod stopped and was counted
    assert conditions(batch) == [("FailureTarget", "True", *deadline), ("Failed", "True", *deadline)]
    assert ("Warning", *deadline) in events_of(core, "pi")


def test_a_job_without_completions_completes_when_a_pod_succeeds(cluster: FakeAPIServer, batch: Any) -> None:
    manifest = workloads.job(parallelism=2, template=exiting("2s"))
    batch.create_namespaced_job("default", manifest)
    cluster.clock.advance(3)
    assert status(batch).succeeded == 2 and conditions(batch)[-1][0] == "Complete"


def test_an_indexed_job_gives_each_pod_its_index(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(completions=3, parallelism=3, completionMode="Indexed",
                                                         template=exiting("2s")))
    pods = sorted(job_pods(core), key=lambda p: p.metadata.labels["batch.kubernetes.io/job-completion-index"])
    assert [p.metadata.annotations["batch.kubernetes.io/job-completion-index"] for p in pods] == ["0", "1", "2"]
    assert [p.spec.hostname for p in pods] == ["pi-0", "pi-1", "pi-2"]
    assert [p.metadata.generate_name for p in pods] == ["pi-0-", "pi-1-", "pi-2-"]
    env = pods[0].spec.containers[0].env
    assert [(e.name, e.value_from.field_ref.field_path) for e in env] == [
        ("JOB_COMPLETION_INDEX", "metadata.labels['batch.kubernetes.io/job-completion-index']")]
    cluster.clock.advance(3)
    assert status(batch).completed_indexes == "0-2"


def test_suspending_deletes_the_active_pods_and_resuming_starts_again(cluster: FakeAPIServer, batch: Any,
                                                                      core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(completions=2, template=exiting("1h")))
    cluster.clock.advance(2)
    batch.patch_namespaced_job("pi", "default", {"spec": {"suspend": True}})
    assert conditions(batch) == [("Suspended", "True", "JobSuspended", "Job suspended")]
    assert job_pods(core)[0].metadata.deletion_timestamp is not None
    cluster.clock.advance(5)  # (its stopped container exited 0: it counts as a success)
    batch.patch_namespaced_job("pi", "default", {"spec": {"suspend": False}})
    assert conditions(batch) == [("Suspended", "False", "JobResumed", "Job resumed")]
    assert status(batch).start_time == cluster.clock.now()
    assert (status(batch).succeeded, status(batch).active) == (1, 1)
    assert [e[1] for e in events_of(core, "pi") if e[1] in ("Suspended", "Resumed")] == ["Suspended", "Resumed"]


def test_deleting_a_job_without_a_policy_orphans_its_pods_with_a_warning(cluster: FakeAPIServer, core: Any) -> None:
    batch = k8s.BatchV1Api(cluster.kubernetes_client())
    batch.create_namespaced_job("default", workloads.job(template=exiting("1h")))
    _body, _status, headers = batch.delete_namespaced_job_with_http_info("pi", "default")
    assert headers["Warning"] == (
        '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to '
        'remove them or set propagationPolicy=Orphan to suppress this warning"')
    [pod] = job_pods(core)
    assert pod.metadata.owner_references is None and pod.metadata.deletion_timestamp is None


def test_a_finished_job_is_deleted_after_its_ttl(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(ttlSecondsAfterFinished=30, template=exiting("2s")))
    cluster.clock.advance(3)
    cluster.clock.advance(25)
    assert batch.list_namespaced_job("default").items != []
    cluster.clock.advance(10)
    assert batch.list_namespaced_job("default").items == []
    assert core.list_namespaced_pod("default").items == []  # deleted in the foreground
    deletes = [r for r in cluster.requests if r.verb == "delete" and r.resource == "jobs"]
    assert [(r.user.username, r.json()["propagationPolicy"]) for r in deletes] == [
        ("system:serviceaccount:kube-system:ttl-after-finished-controller", "Foreground")]


def test_the_pods_of_a_job_deleted_in_the_background_go(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(parallelism=2, completions=2, template=exiting("1h")))
    cluster.clock.advance(2)
    batch.delete_namespaced_job("pi", "default", body=k8s.V1DeleteOptions(propagation_policy="Background"))
    cluster.clock.advance(2)  # deleted by the garbage collector, stopped, let go by the job controller
    assert core.list_namespaced_pod("default").items == []


def test_the_pods_of_an_orphaned_job_lose_the_tracking_finalizer(cluster: FakeAPIServer, batch: Any,
                                                                 core: Any) -> None:
    batch.create_namespaced_job("default", workloads.job(template=exiting("1h")))
    cluster.clock.advance(2)
    batch.delete_namespaced_job("pi", "default", body=k8s.V1DeleteOptions(propagation_policy="Orphan"))
    [pod] = core.list_namespaced_pod("default").items
    assert (pod.metadata.owner_references, pod.metadata.finalizers, pod.status.phase) == (None, None, "Running")
