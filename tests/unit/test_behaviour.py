"""The `fakeapi.dev/` annotations a simulated container reads, and the kubelet's back-off."""

from __future__ import annotations

import pytest

from fakeapi.simulation.backoff import Backoff
from fakeapi.simulation.behaviour import NORMAL, Behaviour, behaviour_of, duration, problems


@pytest.mark.parametrize(("text", "seconds"), [
    ("5s", 5.0), ("1m30s", 90.0), ("500ms", 0.5), ("1.5h", 5400.0), ("90", 90.0), ("0", 0.0), ("2.5", 2.5),
    ("1h2m3s4ms", 3723.004),
])
def test_durations_are_gos_or_seconds(text: str, seconds: float) -> None:
    assert duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "5x", "-5s", "s", "1m 30s", "inf", "nan", "5 s"])
def test_other_durations_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        duration(text)


def test_a_pod_wide_annotation_applies_to_every_container_but_the_init_containers() -> None:
    annotations = {"fakeapi.dev/exit-after": "5s", "fakeapi.dev/exit-code": "3"}
    assert behaviour_of(annotations, "web") == Behaviour(exit_after=5.0, exit_code=3)
    assert behaviour_of(annotations, "migrate", init=True) == NORMAL


def test_a_containers_own_annotation_wins_and_reaches_init_containers() -> None:
    annotations = {"fakeapi.dev/exit-code": "3", "fakeapi.dev/exit-code.worker": "7",
                   "fakeapi.dev/exit-code.migrate": "1", "fakeapi.dev/oom-after.worker": "1m"}
    assert behaviour_of(annotations, "worker") == Behaviour(exit_code=7, oom_after=60.0)
    assert behaviour_of(annotations, "web").exit_code == 3
    assert behaviour_of(annotations, "migrate", init=True).exit_code == 1


def test_crash_loop_exits_with_1_after_a_second_unless_told_otherwise() -> None:
    assert behaviour_of({"fakeapi.dev/crash-loop": "true"}, "web") == Behaviour(exit_after=1.0, exit_code=1)
    assert behaviour_of({"fakeapi.dev/crash-loop": "true", "fakeapi.dev/exit-code": "2",
                         "fakeapi.dev/exit-after": "3s"}, "web") == Behaviour(exit_after=3.0, exit_code=2)
    assert behaviour_of({"fakeapi.dev/crash-loop": "false"}, "web") == NORMAL


def test_the_other_behaviours() -> None:
    annotations = {"fakeapi.dev/image-pull": "fail", "fakeapi.dev/never-ready": "true",
                   "fakeapi.dev/liveness-fails-after": "30s", "fakeapi.dev/log-lines": "one\ntwo\n",
                   "fakeapi.dev/image-pull.slow": "20s", "fakeapi.dev/image-pull.stuck": "never"}
    assert behaviour_of(annotations, "web") == Behaviour(image_pull="fail", never_ready=True,
                                                         liveness_fails_after=30.0, log_lines=("one", "two"))
    assert behaviour_of(annotations, "slow").pull_seconds == 20.0
    assert behaviour_of(annotations, "stuck").image_pull == "never"


def test_values_that_do_not_parse_are_left_out_and_reported() -> None:
    annotations = {"fakeapi.dev/exit-after": "soon", "fakeapi.dev/exit-code": "300",
                   "fakeapi.dev/never-ready": "yes", "fakeapi.dev/image-pull": "maybe",
                   "fakeapi.dev/exit-afterr": "5s", "fakeapi.dev/exit-code.wbe": "1",
                   "fakeapi.dev/log-lines.web": "fine", "example.com/other": "x"}
    assert behaviour_of(annotations, "web") == Behaviour(log_lines=("fine",))
    assert problems(annotations, ["web"]) == [
        'fakeapi.dev/exit-after: "soon" is not a duration (such as "5s", "1m30s" or "90")',
        "fakeapi.dev/exit-afterr is not an annotation fakeapi knows (it knows exit-after, exit-code, crash-loop, "
        "oom-after, image-pull, never-ready, liveness-fails-after, log-lines, exec, port-forward)",
        'fakeapi.dev/exit-code: "300" is not an exit code (0 to 255)',
        "fakeapi.dev/exit-code.wbe names no container of this pod",
        'fakeapi.dev/image-pull: "maybe" is not "fail", "never" or a duration',
        'fakeapi.dev/never-ready: "yes" is not "true" or "false"',
    ]


def test_the_backoff_doubles_to_five_minutes_and_starts_over_after_ten_quiet_minutes() -> None:
    backoff = Backoff()
    assert not backoff.in_backoff_since("web", 0.0, 0.0)  # the first exit: restarted at once
    backoff.next("web", 0.0, 0.0)
    delays = []
    now = 0.0
    for _ in range(7):
        now += 1.0  # it runs a second, then exits
        assert backoff.in_backoff_since("web", now, now)
        delays.append(backoff.delay("web"))
        now += backoff.remaining("web", now, now)
        assert not backoff.in_backoff_since("web", now - backoff.delay("web"), now)
        backoff.next("web", now - backoff.delay("web"), now)
    assert delays == [10.0, 20.0, 40.0, 80.0, 160.0, 300.0, 300.0]
    now += 601.0  # it ran for more than 10 min
    assert not backoff.in_backoff_since("web", now, now)
    backoff.next("web", now, now)
    assert backoff.delay("web") == 10.0
