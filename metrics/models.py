"""Recorded counters and histograms: one row per minute, series and bucket, shared by every process."""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import models

# Tally rows older than the longest rule window are folded into one row per series at this instant.
COMPACTED = datetime(1970, 1, 1, tzinfo=UTC)


class Tally(models.Model):
    """One minute of a counter, or of one histogram bucket, for one label set.

    Counters and histograms live here rather than in process memory because the web server, the workers
    and beat are separate processes: every process adds to the same rows, and /metrics sums them.
    """

    name = models.CharField(max_length=120)
    labels = models.CharField(max_length=500)  # canonical JSON: sorted [key, value] pairs
    le = models.CharField(max_length=32, blank=True)  # histogram bucket's upper bound; "" for counters
    window = models.DateTimeField()  # the minute the row covers, or COMPACTED
    count = models.FloatField(default=0)
    total = models.FloatField(default=0)  # the sum of observed values (histograms)

    class Meta:
        db_table = "observability_tally"  # the table predates this app
        constraints = [
            models.UniqueConstraint(
                fields=["name", "labels", "le", "window"], name="tally_one_row_per_window"
            )
        ]
        indexes = [models.Index(fields=["name", "window"], name="observabili_name_93609a_idx")]

    def __str__(self) -> str:
        return f"{self.name}{self.labels}[{self.le}]@{self.window.isoformat()}"
