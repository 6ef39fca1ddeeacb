"""Dates as search keys: when a session's messages were written, and the dates a query names.

Each day a session has messages on is filed under four keys (the year, the
month's name, the year-month and the ISO day), on the first message of that
day. A query naming a day (``2023-05-08``, ``8 May 2023``, ``May 8, 2023``), a
month (``May 2023``, ``in March``) or a year (``in 2023``) boosts the sessions
from then: the more precise the date, the larger the boost.
"""

from __future__ import annotations

from .keys import PREFIX

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from datetime import datetime  # (named in annotations only: the prompt hook loads no datetime for a date key)

    #: A period's bounds in epoch seconds for a message written at a time given in days since the epoch.
    Bounds = Callable[[float], tuple[float, float]]

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
#: What ``--since`` and ``--until`` (and the MCP tools' ``since`` and ``until``) take, as help and errors name it
#: (``parse_since`` and ``parse_until`` read it).
SINCE_FORMS = "30d, 12h, 45m (minutes), 2w, 3mo, 1y, YYYY-MM-DD, today, yesterday, tuesday, last week or 3 days ago"
_MONTH = {name: i + 1 for i, name in enumerate(MONTHS)} | {name[:3]: i + 1 for i, name in enumerate(MONTHS)}
_MONTH_RE = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
#: What every date pattern needs: a year's first two digits, or (a month alone) a capitalised month's first letters.
_DATE_MARKS = ("19", "20", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class _Patterns:
    """The date patterns, compiled when a query first might name a date (a few ms: most prompts name none, and a hook
    that sees none never loads ``re``)."""

    def __init__(self) -> None:
        import re

        self.iso = re.compile(r"\b((?:19|20)\d\d)-(\d\d)(?:-(\d\d))?\b")
        self.day_month_year = re.compile(
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_RE}\.?,?\s+((?:19|20)\d\d)\b", re.I
        )
        self.month_day_year = re.compile(rf"\b{_MONTH_RE}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)\b", re.I)
        self.month_year = re.compile(rf"\b{_MONTH_RE}\.?,?\s+((?:19|20)\d\d)\b", re.I)
        # A month alone only when it cannot be the verb "may" or the word "march": capitalised, after "in", "of"
        # or "during"; its name or its abbreviation as a whole word, not a word that starts as one does ("in
        # Decimal", "in Marketing": review45b M3).
        self.in_month = re.compile(
            r"\b(?:in|of|during|since)\s+(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
            r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b(?!\s+\d)"
        )
        self.year = re.compile(r"\b(?:in|of|during|since)\s+((?:19|20)\d\d)\b", re.I)


_PATTERNS: list[_Patterns] = []


def year_key(year: int) -> str:
    return f"{PREFIX}dy:{year}"


def month_key(month: int) -> str:
    return f"{PREFIX}dm:{MONTHS[month - 1]}"


def year_month_key(year: int, month: int) -> str:
    return f"{PREFIX}dym:{year}-{month:02d}"


def day_key(year: int, month: int, day: int) -> str:
    return f"{PREFIX}dd:{year}-{month:02d}-{day:02d}"


def date_keys(when: datetime) -> list[str]:
    """The keys a message written at ``when`` is filed under: year, month name, year-month, ISO day."""
    return [
        year_key(when.year),
        month_key(when.month),
        year_month_key(when.year, when.month),
        day_key(when.year, when.month, when.day),
    ]


def local_period(key: str) -> tuple[dict[str, bool], Bounds] | None:
    """A date key as the person asking means it, a period of their own calendar (the days listings show and
    ``--since`` takes): the keys the index filed that period's messages under (by UTC days: a local day overlaps
    two of them), each with whether all of it lies in the period, and the period's bounds in epoch seconds for a
    message of a given time (a month's name alone, ``in March``, is any year's: the bounds are those of the year
    the message was written in). None in UTC for a month's name alone: ``key`` alone, whole, is that.

    ``time``, not ``datetime``: the prompt hook asks this for a date a prompt names.
    """
    import time

    kind, _, value = key[len(PREFIX) :].partition(":")
    if kind == "dm":
        return _local_month(_month(value))
    if kind not in ("dd", "dym", "dy"):
        return None
    year, month, day = ([int(part) for part in value.split("-")] + [1, 1])[:3]
    nxt = {"dd": (year, month, day + 1), "dym": (year, month + 1, 1), "dy": (year + 1, 1, 1)}[kind]
    start, end = (time.mktime((*ymd, 0, 0, 0, 0, 0, -1)) for ymd in ((year, month, day), nxt))  # (mktime carries over)
    keys: dict[str, bool] = {}
    at = start
    while at < end:
        utc = time.gmtime(at)
        found = (
            day_key(utc.tm_year, utc.tm_mon, utc.tm_mday)
            if kind == "dd"
            else year_month_key(utc.tm_year, utc.tm_mon)
            if kind == "dym"
            else year_key(utc.tm_year)
        )
        midnight = at // 86400 * 86400
        keys[found] = keys.get(found, True) and midnight >= start and midnight + 86400 <= end
        at = midnight + 86400  # the next UTC day
    return keys, lambda _days: (start, end)


def _local_month(month: int) -> tuple[dict[str, bool], Bounds] | None:
    """A month's name alone as a local month of any year: its own UTC month's key and, where the zone moves the
    month's edges into the months beside it (east of UTC its first hours are the UTC month before, west its last
    hours the one after), theirs; none whole, each message's checked against its own year's month."""
    import time

    offsets = {-time.timezone, -time.altzone if time.daylight else -time.timezone}
    if offsets == {0}:
        return None
    keys = {month_key(month): False}
    if max(offsets) > 0:
        keys[month_key((month - 2) % 12 + 1)] = False
    if min(offsets) < 0:
        keys[month_key(month % 12 + 1)] = False
    bounds: dict[int, tuple[float, float]] = {}

    def of_year(days: float) -> tuple[float, float]:
        utc = time.gmtime(days * 86400)
        # December's last hours are January's (of the next year) east of UTC; January's first, December's west.
        year = utc.tm_year + (month == 1 and utc.tm_mon == 12) - (month == 12 and utc.tm_mon == 1)
        if year not in bounds:
            bounds[year] = (
                time.mktime((year, month, 1, 0, 0, 0, 0, 0, -1)),
                time.mktime((year, month + 1, 1, 0, 0, 0, 0, 0, -1)),  # (mktime carries a 13th month over)
            )
        return bounds[year]

    return keys, of_year


def _month(name: str) -> int:
    return _MONTH.get(name.lower()[:3], 0)


def query_dates(query: str) -> list[tuple[str, str]]:
    """The dates ``query`` names, as (key, precision): precision is "day", "month" or "year"."""
    return split_dates(query)[0]


def split_dates(query: str) -> tuple[list[tuple[str, str]], str]:
    """The dates ``query`` names, and the query without the full dates (a day, or a month with its year).

    A month or a year alone stays in the text: it may be a word of what is asked.
    """
    found: list[tuple[str, str]] = []
    if not any(mark in query for mark in _DATE_MARKS):
        return found, query
    p = _patterns()
    rest = query
    for match in p.iso.finditer(query):
        year, month, day = int(match.group(1)), int(match.group(2)), match.group(3)
        if 1 <= month <= 12:
            found.append((day_key(year, month, int(day)), "day") if day else (year_month_key(year, month), "month"))
    rest = p.iso.sub(" ", rest)
    for match in p.day_month_year.finditer(rest):
        found.append((day_key(int(match.group(3)), _month(match.group(2)), int(match.group(1))), "day"))
    rest = p.day_month_year.sub(" ", rest)
    for match in p.month_day_year.finditer(rest):
        found.append((day_key(int(match.group(3)), _month(match.group(1)), int(match.group(2))), "day"))
    rest = p.month_day_year.sub(" ", rest)
    for match in p.month_year.finditer(rest):
        found.append((year_month_key(int(match.group(2)), _month(match.group(1))), "month"))
    rest = p.month_year.sub(" ", rest)
    for match in p.in_month.finditer(rest):
        if _month(match.group(1)):
            found.append((month_key(_month(match.group(1))), "month"))
    for match in p.year.finditer(rest):
        found.append((year_key(int(match.group(1))), "year"))
    return [(key, precision) for key, precision in found if _valid(key)], rest


def dated_words(query: str) -> frozenset[str]:
    """The words of ``query`` (lowercased, without the punctuation around them) in the dates it names (``split_dates``):
    a search says of none of them that no session holds it, for it read them as a date ("what did I do on November 16
    2024" said "no session holds: November 16 2024": review44b L6)."""
    if not any(mark in query for mark in _DATE_MARKS):
        return frozenset()
    p = _patterns()
    spans, rest = [], query
    for pattern in (p.iso, p.day_month_year, p.month_day_year, p.month_year):  # (read in turn, as ``split_dates`` does)
        # a date of no calendar ("31 February 2024") is words no session may hold: review45b M3
        spans += [m[0] for m in pattern.finditer(rest) if query_dates(m[0])]
        rest = pattern.sub(lambda m: " " * len(m[0]), rest)
    spans += [m[1] for pattern in (p.in_month, p.year) for m in pattern.finditer(rest)]
    return frozenset(word.strip(".,;:!?()[]{}'\"`").lower() for span in spans for word in span.split())


def _patterns() -> _Patterns:
    """The date patterns, compiled the first time they are needed."""
    if not _PATTERNS:
        _PATTERNS.append(_Patterns())
    return _PATTERNS[0]


#: What every relative date needs, lowercased: "today", "yesterday", "… ago", "this/last/past week", a weekday…
_RELATIVE_MARKS = ("day", " ago", "this ", "last ", "past ")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: "N units ago" takes a count (not a decimal's or a negative's end: "1.5 days ago", "-1 days ago" name no day) or "a".
_RELATIVE = (
    r"(?<![\w.,+-])(?:(?P<day>today|yesterday)|(?P<count>\d{1,3}|an?) (?P<unit>day|week|month|year)s? ago"
    r"|(?P<which>this|last|past) (?P<period>week|month|year)"
    rf"|(?:(?P<pointed>last|on) )?(?P<weekday>{'|'.join(WEEKDAYS)}))\b"
)


def relative_dates(query: str, now: float, bare_weekday: bool = False) -> tuple[list[tuple[str, str]], str]:
    """The days and periods ``query`` names from ``now`` as a person's own calendar has them ("yesterday", "3 days
    ago", "last week", "this month", "2 years ago", "last tuesday"), as (key, precision), and the query without them:
    they name when, not what. A weekday's name after "last" or "on" is its last day before today (on a Tuesday, "last
    tuesday" is a week ago), as "what did I do last Tuesday" means it (trial48b F7); alone it is a word ("the Sunday
    cron job", "Friday deploy freeze": review48f M1) unless ``bare_weekday`` (a ``--since`` or ``--until`` value,
    which names a time whatever it says), so "next friday" stays two words, not last Friday. A week is Monday to
    Sunday ("this week" up to today; "past week" is the seven days to today, "past month" the thirty), each of its
    days a day's key; a month or a year is its own key ("past year": this year and the last).

    For the words a person types to ``deja search`` or an agent to the MCP tools, not the prompt hook's: a prompt's
    "today" is seldom a date to look up.
    """
    if not any(mark in query.lower() for mark in _RELATIVE_MARKS):
        return [], query
    import re
    import time
    from datetime import date, timedelta

    today = date(*time.localtime(now)[:3])
    found: list[tuple[str, str]] = []

    def days(first: date, last: date) -> None:
        for n in range((last - first).days + 1):
            day = first + timedelta(n)
            found.append((day_key(day.year, day.month, day.day), "day"))

    def read(match: re.Match[str]) -> str:
        named = {name: (value or "").lower() for name, value in match.groupdict().items()}  # ("Last Week" too)
        count, which, unit = named["count"], named["which"], named["unit"] or named["period"]
        back = 1 if count in ("a", "an") else int(count) if count else int(which == "last")
        if named["day"]:
            days(*[today - timedelta(named["day"] == "yesterday")] * 2)
        elif named["weekday"] and not (named["pointed"] or bare_weekday):
            return match.group(0)
        elif named["weekday"]:
            days(*[today - timedelta((today.weekday() - WEEKDAYS.index(named["weekday"]) - 1) % 7 + 1)] * 2)
        elif unit == "day":
            days(today - timedelta(back), today - timedelta(back))
        elif which == "past":
            if unit == "year":
                found.extend((year_key(today.year - n), "year") for n in (0, 1))
            else:
                days(today - timedelta(6 if unit == "week" else 29), today)
        elif unit == "week":
            monday = today - timedelta(today.weekday() + 7 * back)
            days(monday, min(monday + timedelta(6), today))
        elif unit == "month":
            year, month = divmod(today.year * 12 + today.month - 1 - back, 12)
            found.append((year_month_key(year, month + 1), "month"))
        else:
            found.append((year_key(today.year - back), "year"))
        return " "

    rest = re.compile(_RELATIVE, re.I).sub(read, query)
    return found, rest


def _valid(key: str) -> bool:
    """Whether a day's key names a day of the calendar: "31 February 2024" is none (review45b M3)."""
    import re

    day = re.search(r"dd:(\d{4})-(\d\d)-(\d\d)$", key)
    if day is None:
        return True
    year, month, date = map(int, day.groups())
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 1 <= month <= 12 and 1 <= date <= (31, 28 + leap, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]


def parse_since(value: str, noun: str = "date", now: datetime | None = None) -> datetime:
    """``value`` as ``--since`` and the MCP tools' ``since`` take it (``SINCE_FORMS``): ``30d``, ``12h``, ``2w``,
    ``45m`` (minutes, as ``docker logs --since`` reads it), ``3mo``, ``1y``, ``YYYY-MM-DD``, ``today`` or
    ``yesterday`` (a local day's first moment), or a day or period in the words ``deja search`` reads
    (``relative_dates``: ``last week``, ``3 days ago``, ``this month``: its first moment) as an aware datetime. Anything else raises ValueError whose message
    is the refusal, for the interface to put after the value's name in its own error: "'…' is not a {noun}: use …"
    (the CLI's ``--since`` takes a date, the MCP tools' ``since`` a time).

    A period longer than the clock's past is the epoch (``--since 99999999d``: everything), not an overflow. A moment
    after ``now`` is refused as in the future (``2030-01-01``, a typo for a past year, was taken and matched nothing:
    trial43 F7), in these words for the CLI and the MCP tools alike; ``0d`` is now.
    """
    from datetime import UTC, datetime

    now = now or datetime.now(UTC)
    moment = _since_moment(value, noun, now)
    if moment > now:
        from .redaction import echoed

        raise ValueError(f"{echoed(value)} is in the future: give a past {noun} or a span (7d)")
    return moment


def period_cut(given: str, words: Sequence[str]) -> str:
    """The period that ``given`` (an option's value) and a word or two of ``words`` make, where the shell cut one
    typed unquoted (``3 days ago``, ``last tuesday``: no period of ``SINCE_FORMS`` has more than three words); the
    first found, from the first word on, one word before two; "" when none is. The one rule for both places that say
    to quote it: a plain search's ``--since``/``--until`` (``fastpath._moment``; the shell may have put the query's
    words first: ``deja search deploy --until last tuesday``) and ``deja sessions``' extra arguments
    (``cli._quote_hint``; ``--since 7d api``: "api" is no part of a period, review42d)."""
    for first, taken in ((first, taken) for first in range(len(words)) for taken in (1, 2)):
        period = " ".join([given, *words[first : first + taken]])
        try:
            parse_since(period)
        except ValueError:
            continue
        return period
    return ""


def parse_until(value: str, noun: str = "date", now: datetime | None = None) -> datetime:
    """``value`` as ``--until`` takes it, the forms ``--since`` takes (``SINCE_FORMS``) read as the moment its period
    ends: a day or period named (``YYYY-MM-DD``, ``tuesday``, ``yesterday``, ``last week``) counts whole, to its
    last moment, as "what did I do until Tuesday" means it; a span back from now (``3d``) and a moment given with
    its time are that moment. So ``--since tuesday --until tuesday`` is Tuesday (trial48b F7). A moment in the
    future is taken (``--until today`` ends tonight). Anything else raises ValueError as ``parse_since`` does."""
    from datetime import UTC, datetime

    now = now or datetime.now(UTC)
    if (end := _period_end(value, now.timestamp())) is not None:
        return datetime.fromtimestamp(end).astimezone()
    return _since_moment(value, noun, now)


def _period_end(given: str, now: float) -> float | None:
    """The moment after the day or period ``given`` names (``_period_start``'s, or a ``YYYY-MM-DD`` day's), in
    epoch seconds; None when it names none."""
    import re

    found, rest = relative_dates(given.strip(), now, bare_weekday=True)
    if (day := re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)", given.strip())) and _valid(
        key := day_key(*map(int, day.groups()))
    ):
        found, rest = [(key, "day")], ""
    ends = [period[1](0)[1] for key, _ in found if (period := local_period(key))]
    return max(ends) if ends and not rest.strip() else None


def _since_moment(value: str, noun: str, now: datetime) -> datetime:
    """The moment ``value`` names (``parse_since``), in the future or not."""
    import re
    from datetime import UTC, datetime

    given = value.strip()
    match = re.fullmatch(r"(\d{1,4000})\s*(h|d|w|m|min|mo|y)", given.lower())
    if match:  # (a billion years or more is all of it, as a float can hold)
        amount, unit = min(int(match.group(1)), 10**12), match.group(2)
        days = {"h": 1 / 24, "d": 1, "w": 7, "m": 1 / 1440, "min": 1 / 1440, "mo": 30, "y": 365}[unit] * amount
        return datetime.fromtimestamp(max(now.timestamp() - days * 86400, 0), tz=UTC)
    if given.lower() in _DAYS_BACK:
        day = datetime.fromtimestamp(now.timestamp()).date().toordinal() - _DAYS_BACK[given.lower()]
        return _local_moment(datetime.fromordinal(day))
    if (start := _period_start(given, now.timestamp())) is not None:
        return datetime.fromtimestamp(start).astimezone()
    try:
        parsed = datetime.fromisoformat(given)
        return parsed if parsed.tzinfo else _local_moment(parsed)
    except (ValueError, OverflowError):  # (OverflowError: 0001-01-01 in a zone east of UTC)
        from .redaction import echoed

        raise ValueError(f"{echoed(value)!r} is not a {noun}: use {SINCE_FORMS}") from None


def _period_start(given: str, now: float) -> float | None:
    """The first moment of the day or period ``given`` names in words from ``now`` (``last week``: last Monday's
    start), as ``relative_dates`` reads them for a search; None when it names none, or says more than that."""
    found, rest = relative_dates(given, now, bare_weekday=True)
    starts = [period[1](0)[0] for key, _ in found if (period := local_period(key))]
    return min(starts) if starts and not rest.strip() else None


#: The days ``--since`` names by a word, as days back from today.
_DAYS_BACK = {"today": 0, "yesterday": 1}


def _local_moment(naive: datetime) -> datetime:
    """``naive`` read as this machine's local time; one the clocks skipped (a day whose 00:00 a change to summer
    time jumps over, as in Chile or Lebanon) is the first moment after it, not an hour of the day before: the later
    of its two readings, whichever ``fold`` gives it (Python 3.12 swapped them: 3.11's ``fold=1`` reading of a
    skipped time is 3.12's ``fold=0``, and ``--since`` took the hour before on 3.12)."""
    local = naive.astimezone()
    if local.replace(tzinfo=None) != naive:
        local = max(local, naive.replace(fold=1 - naive.fold).astimezone())
    return local
