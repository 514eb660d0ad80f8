"""Cron schedules as upstream reads them (robfig/cron/v3 ParseStandard): five fields or a descriptor, with
that parser's error messages, and the next time a schedule fires."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

_MONTHS = {name: number for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_DAYS = {name: number for number, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# (minimum, maximum, names) of minute, hour, day of month, month, day of week
_BOUNDS = ((0, 59, None), (0, 23, None), (1, 31, None), (1, 12, _MONTHS), (0, 6, _DAYS))
_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}
_EVERY = "@every "
_DURATION = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
_INT64_MAX = (1 << 63) - 1


class ScheduleError(ValueError):
    """A schedule robfig/cron refuses; the message is that parser's."""


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule: the allowed values of each field, or a fixed interval (`@every`)."""

    fields: tuple[frozenset[int], ...] = ()
    every: timedelta | None = None
    # whether day of month and day of week were `*` (cron's rule: when both are restricted, either matches)
    any_day_of_month: bool = True
    any_day_of_week: bool = True

    def matches_day(self, when: datetime) -> bool:
        dom = when.day in self.fields[2]
        dow = (when.isoweekday() % 7) in self.fields[4]
        if self.any_day_of_month or self.any_day_of_week:
            return dom and dow
        return dom or dow

    def next_after(self, after: datetime) -> datetime | None:
        """The first time after `after` (in its time zone) the schedule fires; None within five years."""
        if self.every is not None:
            step = max(self.every, timedelta(seconds=1))
            return after.replace(microsecond=0) + step
        when = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = after + timedelta(days=5 * 366)
        minute, hour, _dom, month, _dow = self.fields
        while when <= limit:
            if when.month not in month:
                when = (when.replace(day=1, hour=0, minute=0) + timedelta(days=32)).replace(day=1)
            elif not self.matches_day(when):
                when = when.replace(hour=0, minute=0) + timedelta(days=1)
            elif when.hour not in hour:
                when = when.replace(minute=0) + timedelta(hours=1)
            elif when.minute not in minute:
                when += timedelta(minutes=1)
            else:
                return when
        return None


def parse_schedule(spec: str) -> Schedule:
    """cron.ParseStandard; ScheduleError with its message when the spec is refused."""
    if not spec:
        raise ScheduleError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space = spec.find(" ")
        zone = spec[spec.find("=") + 1:space if space >= 0 else len(spec)]
        if not _known_zone(zone):
            raise ScheduleError(f"provided bad location {zone}: unknown time zone {zone}")
        spec = spec[space:].strip() if space >= 0 else ""
    if spec.startswith("@"):
        return _descriptor(spec)
    fields = spec.split()
    if len(fields) != 5:
        raise ScheduleError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    parsed = tuple(_field(text, *bounds) for text, bounds in zip(fields, _BOUNDS, strict=True))
    return Schedule(parsed, any_day_of_month=fields[2] in ("*", "?"), any_day_of_week=fields[4] in ("*", "?"))


def _known_zone(name: str) -> bool:
    from fakeapi.kinds.cronjob.timezones import load_zone

    return load_zone(name) is not None


def _descriptor(spec: str) -> Schedule:
    if spec in _DESCRIPTORS:
        return parse_schedule(_DESCRIPTORS[spec])
    if spec.startswith(_EVERY):
        return Schedule(every=timedelta(seconds=_go_duration(spec[len(_EVERY):], spec)))
    raise ScheduleError(f"unrecognized descriptor: {spec}")


def _go_duration(text: str, spec: str) -> float:
    """time.ParseDuration of `@every`'s argument."""
    original, sign, total = text, 1.0, 0.0
    if text[:1] in "+-" and text:
        sign, text = (-1.0 if text[0] == "-" else 1.0), text[1:]
    if text == "0":
        return 0.0
    if not text:
        raise ScheduleError(f'failed to parse duration {spec}: time: invalid duration "{original}"')
    position = 0
    while position < len(text):
        match = _DURATION.match(text, position)
        if match is None or match.group(1) in ("", "."):
            unit_missing = match is None and re.match(r"[0-9.]+$", text[position:])
            problem = "missing unit in duration" if unit_missing else "invalid duration"
            raise ScheduleError(f'failed to parse duration {spec}: time: {problem} "{original}"')
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        position = match.end()
    return sign * total


def _field(text: str, minimum: int, maximum: int, names: dict[str, int] | None) -> frozenset[int]:
    values: set[int] = set()
    for expression in (part for part in text.split(",") if part):
        values |= _range(expression, minimum, maximum, names)
    return frozenset(values)


def _range(expression: str, minimum: int, maximum: int, names: dict[str, int] | None) -> set[int]:
    range_and_step = expression.split("/")
    low_and_high = range_and_step[0].split("-")
    if low_and_high[0] in ("*", "?"):
        start, end = minimum, maximum
    else:
        start = _int_or_name(low_and_high[0], names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], names)
        else:
            raise ScheduleError(f"too many hyphens: {expression}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _int(range_and_step[1])
        if len(low_and_high) == 1:  # "N/step" is "N-max/step"
            end = maximum
    else:
        raise ScheduleError(f"too many slashes: {expression}")
    if start < minimum:
        raise ScheduleError(f"beginning of range ({start}) below minimum ({minimum}): {expression}")
    if end > maximum:
        raise ScheduleError(f"end of range ({end}) above maximum ({maximum}): {expression}")
    if start > end:
        raise ScheduleError(f"beginning of range ({start}) beyond end of range ({end}): {expression}")
    if step == 0:
        raise ScheduleError(f"step of range should be a positive number: {expression}")
    return set(range(start, end + 1, step))


def _int_or_name(text: str, names: dict[str, int] | None) -> int:
    if names is not None and text.lower() in names:
        return names[text.lower()]
    return _int(text)


def _int(text: str) -> int:
    """mustParseInt: strconv.Atoi's errors, and no negative numbers."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ScheduleError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": invalid syntax')
    number = int(text)
    if abs(number) > _INT64_MAX:
        raise ScheduleError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": value out of range')
    if number < 0:
        raise ScheduleError(f"negative number ({number}) not allowed: {text}")
    return number
