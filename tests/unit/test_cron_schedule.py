"""Cron schedules as robfig/cron's ParseStandard reads them: what it accepts, its error messages, and the next
time a schedule fires."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fakeapi.kinds.cronjob.schedule import ScheduleError, parse_schedule


@pytest.mark.parametrize("spec", ["* * * * *", "*/5 0-6,22-23 1 jan-mar MON-fri", "0 0 ? * sun", "@hourly",
                                  "@every 1h30m", "15 3 * * 6", "0 0 1 1 *"])
def test_accepted_schedules(spec: str) -> None:
    parse_schedule(spec)


@pytest.mark.parametrize(("spec", "message"), [
    ("", "empty spec string"),
    ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
    ("0 0 * * * *", "expected exactly 5 fields, found 6: [0 0 * * * *]"),
    ("60 * * * *", "end of range (60) above maximum (59): 60"),
    ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("* * * * 7", "end of range (7) above maximum (6): 7"),
    ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("*/2/3 * * * *", "too many slashes: */2/3"),
    ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
    ("* * * foo *", 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax'),
    ("@fortnightly", "unrecognized descriptor: @fortnightly"),
    ("@every soon", 'failed to parse duration @every soon: time: invalid duration "soon"'),
])
def test_refused_schedules_get_robfigs_messages(spec: str, message: str) -> None:
    with pytest.raises(ScheduleError) as refused:
        parse_schedule(spec)
    assert str(refused.value) == message


@pytest.mark.parametrize(("spec", "after", "expected"), [
    ("*/15 * * * *", datetime(2025, 1, 1, 10, 7, tzinfo=UTC), datetime(2025, 1, 1, 10, 15, tzinfo=UTC)),
    ("0 3 * * *", datetime(2025, 1, 1, 3, 0, tzinfo=UTC), datetime(2025, 1, 2, 3, 0, tzinfo=UTC)),
    ("0 0 1 * *", datetime(2025, 1, 31, 12, 0, tzinfo=UTC), datetime(2025, 2, 1, 0, 0, tzinfo=UTC)),
    ("30 9 * * mon", datetime(2025, 1, 1, 0, 0, tzinfo=UTC), datetime(2025, 1, 6, 9, 30, tzinfo=UTC)),
    # both days restricted: either matches (the 13th, or a Friday)
    ("0 0 13 * 5", datetime(2025, 1, 1, 0, 0, tzinfo=UTC), datetime(2025, 1, 3, 0, 0, tzinfo=UTC)),
])
def test_the_next_time_a_schedule_fires(spec: str, after: datetime, expected: datetime) -> None:
    assert parse_schedule(spec).next_after(after) == expected
