"""A clock a test moves by hand, for code that takes a `clusters.collector.Clock`: sleeping steps it."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from clusters.collector import Clock


class SteppedClock(Clock):
    """Real time plus the steps taken, or, from a given `start`, time that stands still between steps.

    `sleep` advances the clock instead of waiting, so the collector's confirmation waits cost nothing.
    """

    def __init__(self, start: datetime | None = None) -> None:
        self.start = start
        self.offset = timedelta()
        super().__init__(now=self.read, sleep=self.advance)

    def read(self) -> datetime:
        return (self.start or timezone.now()) + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += timedelta(seconds=seconds)
