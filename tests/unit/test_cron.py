"""Cron schedules as kube-controller-manager's cronjob controller reads them (robfig/cron's standard parser)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fakeapi.simulation.controllers import cron

AT = datetime(2030, 6, 1, 12, 0, 0, tzinfo=UTC)  # a Saturday


def next_times(spec: str, count: int = 3, after: datetime = AT, zone: str | None = None) -> list[str]:
    schedule = cron.parse(spec, zone)
    times, moment = [], after
    for _ in range(count):
        upcoming = schedule.next(moment)
        assert upcoming is not None
        times.append(upcoming.strftime("%Y-%m-%d %H:%M %a"))
        moment = upcoming
    return times


def test_every_minute_fires_on_the_next_minutes() -> None:
    assert next_times("* * * * *") == ["2030-06-01 12:01 Sat", "2030-06-01 12:02 Sat", "2030-06-01 12:03 Sat"]


def test_steps_ranges_and_lists() -> None:
    assert next_times("*/15 9-10 * * *", 4) == ["2030-06-02 09:00 Sun", "2030-06-02 09:15 Sun",
                                                "2030-06-02 09:30 Sun", "2030-06-02 09:45 Sun"]
    assert next_times("5,10 12 * * *", 2) == ["2030-06-01 12:05 Sat", "2030-06-01 12:10 Sat"]
    assert next_times("30/10 * * * *", 3) == ["2030-06-01 12:30 Sat", "2030-06-01 12:40 Sat",
                                              "2030-06-01 12:50 Sat"]


def test_names_of_months_and_days() -> None:
    assert next_times("0 0 * JAN mon", 2) == ["2031-01-06 00:00 Mon", "2031-01-13 00:00 Mon"]


def test_day_of_month_and_day_of_week_both_restricted_match_either() -> None:
    assert next_times("0 0 13 * 5", 3) == ["2030-06-07 00:00 Fri", "2030-06-13 00:00 Thu", "2030-06-14 00:00 Fri"]


def test_a_star_day_field_makes_the_other_decide() -> None:
    assert next_times("0 0 * * 1", 2) == ["2030-06-03 00:00 Mon", "2030-06-10 00:00 Mon"]


def test_descriptors_and_every() -> None:
    assert next_times("@hourly", 2) == ["2030-06-01 13:00 Sat", "2030-06-01 14:00 Sat"]
    assert next_times("@weekly", 1) == ["2030-06-02 00:00 Sun"]
    assert next_times("@every 90s", 2) == ["2030-06-01 12:01 Sat", "2030-06-01 12:03 Sat"]


def test_the_time_zone_of_the_cronjob() -> None:
    assert next_times("0 9 * * *", 1, zone="Europe/Paris") == ["2030-06-02 07:00 Sun"]  # 09:00 CEST in UTC
    assert next_times("CRON_TZ=America/New_York 0 9 * * *", 1) == ["2030-06-01 13:00 Sat"]


def test_a_date_that_never_comes_has_no_next_time() -> None:
    assert cron.parse("0 0 30 2 *").next(AT) is None


@pytest.mark.parametrize(("spec", "message"), [
    ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
    ("61 * * * *", "end of range (61) above maximum (59): 61"),
    ("@often", "unrecognized descriptor: @often"),
    ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
])
def test_bad_schedules_get_the_parsers_messages(spec: str, message: str) -> None:
    with pytest.raises(cron.ScheduleError) as raised:
        cron.parse(spec)
    assert str(raised.value) == message
