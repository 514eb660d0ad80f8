"""Jobs and CronJobs over HTTP: the generated selector, the labels a Job takes from its template, status
transitions, the status.successful field selector and Table rows."""

from __future__ import annotations

from typing import Any

from tests.workloads import cron_job, job

BATCH = "/apis/batch/v1/namespaces/default"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
MERGE = {"Content-Type": "application/merge-patch+json"}


async def test_a_job_gets_its_selector_and_after_its_first_status_write_its_templates_labels(client: Any) -> None:
    body = job()
    del body["spec"]["template"]["metadata"]
    created = await (await client.post(f"{BATCH}/jobs", json=body)).json()
    uid = created["metadata"]["uid"]
    assert created["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert "labels" not in created["metadata"]
    started = {"status": {"startTime": "2025-01-01T00:00:00Z", "active": 1, "ready": 0}}
    written = await (await client.patch(f"{BATCH}/jobs/pi/status", json=started, headers=MERGE)).json()
    # upstream's defaulting runs on status writes too: the Job takes its template's labels
    assert written["metadata"]["labels"] == {"batch.kubernetes.io/controller-uid": uid,
                                             "batch.kubernetes.io/job-name": "pi", "controller-uid": uid,
                                             "job-name": "pi"}
    rows = (await (await client.get(f"{BATCH}/jobs", headers={"Accept": TABLE})).json())["rows"]
    assert rows[0]["cells"][:3] == ["pi", "Running", "0/1"]
    assert rows[0]["cells"][5:] == ["web", "nginx:1.27", f"batch.kubernetes.io/controller-uid={uid}"]


async def test_a_job_that_restarts_always_gets_upstreams_status(client: Any) -> None:
    body = job()
    body["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    response = await client.post(f"{BATCH}/jobs", json=body)
    assert response.status == 422
    assert (await response.json())["message"] == (
        'Job.batch "pi" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", '
        '"Never"')


async def test_a_finished_job_cannot_be_reopened_and_the_successful_field_selector(client: Any) -> None:
    await client.post(f"{BATCH}/jobs", json=job())
    await client.post(f"{BATCH}/jobs", json=job("other"))
    done = {"status": {"startTime": "2025-01-01T00:00:00Z", "completionTime": "2025-01-01T00:00:09Z",
                       "succeeded": 1, "conditions": [{"type": "SuccessCriteriaMet", "status": "True"},
                                                      {"type": "Complete", "status": "True"}]}}
    assert (await client.patch(f"{BATCH}/jobs/pi/status", json=done, headers=MERGE)).status == 200
    reopened = await client.patch(f"{BATCH}/jobs/pi/status", json={"status": {"conditions": []}}, headers=MERGE)
    assert reopened.status == 422
    assert (await reopened.json())["details"]["causes"][0]["message"] == (
        "Invalid value: 2025-01-01 00:00:09 +0000 UTC: cannot set completionTime when there is no Complete=True "
        "condition")
    listed = await (await client.get(f"{BATCH}/jobs?fieldSelector=status.successful=1")).json()
    assert [item["metadata"]["name"] for item in listed["items"]] == ["pi"]
    rows = (await (await client.get(f"{BATCH}/jobs/pi", headers={"Accept": TABLE})).json())["rows"]
    assert rows[0]["cells"][1:4] == ["Complete", "1/1", "9s"]


async def test_a_cron_job_with_its_time_zone(client: Any) -> None:
    response = await client.post(f"{BATCH}/cronjobs", json=cron_job(timeZone="Europe/Paris"))
    assert response.status == 201
    created = await response.json()
    assert (created["spec"]["concurrencyPolicy"], created["spec"]["successfulJobsHistoryLimit"]) == ("Allow", 3)
    rows = (await (await client.get(f"{BATCH}/cronjobs", headers={"Accept": TABLE})).json())["rows"]
    assert rows[0]["cells"][:6] == ["hourly", "0 * * * *", "Europe/Paris", "False", 0, "<none>"]
    bad = await client.post(f"{BATCH}/cronjobs", json=cron_job("bad", schedule="* * *"))
    assert (await bad.json())["message"] == (
        'CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: '
        "[* * *]")
