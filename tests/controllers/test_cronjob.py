"""The cronjob controller, one upstream behaviour per test, on a frozen clock (starting 2030-06-01 12:00 UTC)."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import events_of

MINUTES_AT_NOON = 1_906_545_600 // 60  # 2030-06-01T12:00:00Z in minutes since the epoch


@pytest.fixture
def batch(api: Any) -> Any:
    return k8s.BatchV1Api(api)


def cron_job(schedule: str = "*/5 * * * *", exit_after: str = "30s", **spec: Any) -> dict[str, Any]:
    manifest = workloads.cron_job(schedule=schedule, **spec)
    template = manifest["spec"]["jobTemplate"]["spec"]["template"]
    template["metadata"]["annotations"] = {"fakeapi.dev/exit-after": exit_after}
    return manifest


def jobs(batch: Any) -> list[str]:
    return sorted(job.metadata.name for job in batch.list_namespaced_job("default").items)


def test_a_job_is_created_at_each_scheduled_time(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    cronjob = batch.create_namespaced_cron_job("default", cron_job())
    cluster.clock.advance(300)
    assert jobs(batch) == []  # looked at 100 ms past the time, as upstream
    cluster.clock.advance(0.1)
    name = f"hourly-{MINUTES_AT_NOON + 5}"
    assert jobs(batch) == [name]
    job = batch.read_namespaced_job(name, "default")
    assert job.metadata.annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"] == "2030-06-01T12:05:00Z"
    assert [(r.kind, r.uid, r.controller) for r in job.metadata.owner_references] == [
        ("CronJob", cronjob.metadata.uid, True)]
    status = batch.read_namespaced_cron_job("hourly", "default").status
    assert [ref.name for ref in status.active] == [name]
    assert status.last_schedule_time.isoformat() == "2030-06-01T12:05:00+00:00"
    assert events_of(core, "hourly") == [("Normal", "SuccessfulCreate", f"Created job {name}")]


def test_a_finished_job_leaves_the_active_list(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    batch.create_namespaced_cron_job("default", cron_job(exit_after="10s"))
    cluster.clock.advance(301)
    cluster.clock.advance(15)
    status = batch.read_namespaced_cron_job("hourly", "default").status
    assert status.active is None and status.last_successful_time is not None
    name = f"hourly-{MINUTES_AT_NOON + 5}"
    assert events_of(core, "hourly")[-1] == ("Normal", "SawCompletedJob",
                                              f"Saw completed job: {name}, condition: Complete")


def test_forbid_skips_a_run_while_the_previous_one_runs(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    batch.create_namespaced_cron_job("default", cron_job(exit_after="1h", concurrencyPolicy="Forbid"))
    cluster.clock.advance(601)
    assert jobs(batch) == [f"hourly-{MINUTES_AT_NOON + 5}"]
    assert events_of(core, "hourly")[-1] == (
        "Normal", "JobAlreadyActive",
        "Not starting job because prior execution is running and concurrency policy is Forbid")


def test_replace_deletes_the_running_job_for_the_new_one(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    batch.create_namespaced_cron_job("default", cron_job(exit_after="1h", concurrencyPolicy="Replace"))
    cluster.clock.advance(601)
    first, second = f"hourly-{MINUTES_AT_NOON + 5}", f"hourly-{MINUTES_AT_NOON + 10}"
    assert ("Normal", "SuccessfulDelete", f"Deleted job {first}") in events_of(core, "hourly")
    cluster.clock.advance(2)
    assert jobs(batch) == [second]


def test_allow_runs_jobs_side_by_side(cluster: FakeAPIServer, batch: Any) -> None:
    batch.create_namespaced_cron_job("default", cron_job(exit_after="1h"))
    cluster.clock.advance(601)
    assert jobs(batch) == [f"hourly-{MINUTES_AT_NOON + 5}", f"hourly-{MINUTES_AT_NOON + 10}"]
    assert len(batch.read_namespaced_cron_job("hourly", "default").status.active) == 2


def test_the_oldest_finished_jobs_beyond_the_history_limit_are_deleted(cluster: FakeAPIServer, batch: Any) -> None:
    batch.create_namespaced_cron_job("default", cron_job(exit_after="10s", successfulJobsHistoryLimit=2))
    cluster.clock.advance(4 * 300 + 20)
    assert jobs(batch) == [f"hourly-{MINUTES_AT_NOON + 15}", f"hourly-{MINUTES_AT_NOON + 20}"]


def test_a_suspended_cron_job_starts_nothing_and_on_resume_only_the_latest_missed_time(
        cluster: FakeAPIServer, batch: Any) -> None:
    batch.create_namespaced_cron_job("default", cron_job(schedule="0 * * * *", suspend=True))
    cluster.clock.advance(5 * 3600 + 60)
    assert jobs(batch) == []
    batch.patch_namespaced_cron_job("hourly", "default", {"spec": {"suspend": False}})
    assert jobs(batch) == [f"hourly-{MINUTES_AT_NOON + 5 * 60}"]


def test_too_many_missed_start_times_are_reported(cluster: FakeAPIServer, batch: Any, core: Any) -> None:
    batch.create_namespaced_cron_job("default", cron_job(schedule="* * * * *", suspend=True))
    cluster.clock.advance(3 * 3600)
    batch.patch_namespaced_cron_job("hourly", "default", {"spec": {"suspend": False}})
    assert ("Warning", "TooManyMissedTimes", "too many missed start times. Set or decrease "
            ".spec.startingDeadlineSeconds or check clock skew") in events_of(core, "hourly")
    assert jobs(batch) == [f"hourly-{MINUTES_AT_NOON + 180}"]


def test_the_schedule_is_read_in_the_cron_jobs_time_zone(cluster: FakeAPIServer, batch: Any) -> None:
    batch.create_namespaced_cron_job("default", cron_job(schedule="0 15 * * *", timeZone="Europe/Paris"))
    cluster.clock.advance(3 * 3600)  # 15:00 in Paris is 13:00 UTC in June
    name = f"hourly-{MINUTES_AT_NOON + 60}"
    assert jobs(batch) == [name]
    annotations = batch.read_namespaced_job(name, "default").metadata.annotations
    assert annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"] == "2030-06-01T15:00:00+02:00"


def test_the_controller_writes_as_cronjob_controller(cluster: FakeAPIServer, batch: Any) -> None:
    batch.create_namespaced_cron_job("default", cron_job())
    cluster.clock.advance(301)
    writes = [r for r in cluster.requests if r.resource in ("jobs", "cronjobs") and r.verb in ("create", "update")
              and r.user.username.endswith(":cronjob-controller")]
    assert {(r.verb, r.resource, r.subresource) for r in writes} == {("create", "jobs", ""),
                                                                      ("update", "cronjobs", "status")}
