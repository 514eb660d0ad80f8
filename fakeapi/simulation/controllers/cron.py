"""Cron schedules as the cronjob controller reads them (robfig/cron v3's standard parser): five fields
(minute, hour, day of month, month, day of week) with `*`, `?`, lists, ranges, steps and names (JAN, MON), the
descriptors @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly and `@every <duration>`, and an
optional `CRON_TZ=` or `TZ=` prefix. Times are computed in the schedule's time zone."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

MONTHS = {name: number for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
DAYS = {name: number for number, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
DESCRIPTORS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
               "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
SEARCH_YEARS = 5  # robfig gives up looking for a matching time after five years


class ScheduleError(ValueError):
    """A schedule the parser refuses, with robfig/cron's message."""


@dataclass(frozen=True)
class Field:
    values: frozenset[int]
    star: bool  # written `*` or `?` (matters for day of month and day of week)


@dataclass(frozen=True)
class Schedule:
    minutes: Field
    hours: Field
    days: Field
    months: Field
    weekdays: Field
    zone: ZoneInfo | None  # None: the controller's own zone (UTC)
    every: float = 0.0  # seconds, for @every

    def next(self, after: datetime) -> datetime | None:
        """The first time after `after` that the schedule fires; None when there is none within five years."""
        if self.every:
            step = max(1.0, float(int(self.every)))
            return (after + timedelta(seconds=step)).replace(microsecond=0)
        zone = self.zone or ZoneInfo("UTC")
        original = after.tzinfo
        moment = after.astimezone(zone).replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = moment.year + SEARCH_YEARS
        while moment.year <= limit:
            if moment.month not in self.months.values:
                moment = _start_of_next_month(moment)
                continue
            if not self._day_matches(moment):
                moment = (moment + timedelta(days=1)).replace(hour=0, minute=0)
                continue
            if moment.hour not in self.hours.values:
                moment = (moment + timedelta(hours=1)).replace(minute=0)
                continue
            if moment.minute not in self.minutes.values:
                moment = moment + timedelta(minutes=1)
                continue
            return moment.astimezone(original)
        return None

    def _day_matches(self, moment: datetime) -> bool:
        day = moment.day in self.days.values
        weekday = (moment.isoweekday() % 7) in self.weekdays.values
        if self.days.star or self.weekdays.star:
            return day and weekday
        return day or weekday


def _start_of_next_month(moment: datetime) -> datetime:
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    return moment.replace(year=year, month=month, day=1, hour=0, minute=0)


def parse(text: str, time_zone: str | None = None) -> Schedule:
    """ParseStandard, with the CronJob's timeZone (as `CRON_TZ=` the controller prefixes)."""
    spec = text.strip()
    zone_name = time_zone
    if spec.startswith(("CRON_TZ=", "TZ=")):
        prefix, _, spec = spec.partition(" ")
        zone_name = prefix.split("=", 1)[1]
        spec = spec.strip()
    zone = _zone(zone_name) if zone_name else None
    if spec.startswith("@"):
        if spec.startswith("@every "):
            return Schedule(_all_field(0, 59), _all_field(0, 23), _all_field(1, 31), _all_field(1, 12),
                            _all_field(0, 6), zone, every=_duration(spec[len("@every "):].strip()))
        if spec not in DESCRIPTORS:
            raise ScheduleError(f"unrecognized descriptor: {spec}")
        spec = DESCRIPTORS[spec]
    fields = spec.split()
    if len(fields) != 5:
        raise ScheduleError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    return Schedule(_field(fields[0], 0, 59, {}), _field(fields[1], 0, 23, {}), _field(fields[2], 1, 31, {}),
                    _field(fields[3], 1, 12, MONTHS), _field(fields[4], 0, 6, DAYS), zone)


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(f"provided bad location {name}: unknown time zone {name}") from None


def _all_field(low: int, high: int) -> Field:
    return Field(frozenset(range(low, high + 1)), True)


def _field(text: str, low: int, high: int, names: dict[str, int]) -> Field:
    values: set[int] = set()
    star = False
    for part in text.split(","):
        part_values, part_star = _range(part, low, high, names)
        values |= part_values
        star = star or part_star
    return Field(frozenset(values), star)


def _range(text: str, low: int, high: int, names: dict[str, int]) -> tuple[set[int], bool]:
    range_text, slash, step_text = text.partition("/")
    bounds = range_text.split("-")
    star = False
    if bounds[0] in ("*", "?"):
        start, end, star = low, high, True
    else:
        start = _number(bounds[0], names)
        if len(bounds) == 1:
            end = start
        elif len(bounds) == 2:
            end = _number(bounds[1], names)
        else:
            raise ScheduleError(f"too many hyphens: {text}")
    step = 1
    if slash:
        step = _number(step_text, {})
        if len(bounds) == 1 and not star:
            end = high  # `N/step` means N-max/step
        if step > 1:
            star = False
    if start < low:
        raise ScheduleError(f"beginning of range ({start}) below minimum ({low}): {text}")
    if end > high:
        raise ScheduleError(f"end of range ({end}) above maximum ({high}): {text}")
    if start > end:
        raise ScheduleError(f"beginning of range ({start}) beyond end of range ({end}): {text}")
    if step == 0:
        raise ScheduleError(f"step of range should be a positive number: {text}")
    return set(range(start, end + 1, step)), star


def _number(text: str, names: dict[str, int]) -> int:
    if text.lower() in names:
        return names[text.lower()]
    if not text.isdigit():
        raise ScheduleError(f"failed to parse int from {text}: strconv.Atoi: parsing {text!r}: invalid syntax"
                            .replace("'", '"'))
    return int(text)


def _duration(text: str) -> float:
    """A Go duration (`1h30m`, `90s`)."""
    position, total = 0, 0.0
    for match in _DURATION_PART.finditer(text):
        if match.start() != position:
            break
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        position = match.end()
    if not text or position != len(text):
        raise ScheduleError(f"failed to parse duration @every {text}: time: invalid duration {text!r}"
                            .replace("'", '"'))
    return total
