"""Recorded counters keep their totals forever and their minute rows for windowed increases."""

from datetime import timedelta

import pytest
from django.utils import timezone

from metrics import recording
from metrics.catalogue import BY_NAME
from metrics.models import COMPACTED, Tally
from observability.expr import labels_of
from observability.values import DatabaseSource, counter_values

ATTEMPTS = "karmada_scheduler_schedule_attempts_total"
ERROR = {"result": "error", "schedule_type": "ReconcileSchedule"}


def age_rows(minutes):
    """Move every minute row back in time, as if it had been recorded `minutes` ago."""
    for row in Tally.objects.exclude(window=COMPACTED):
        row.window -= timedelta(minutes=minutes)
        row.save()


@pytest.mark.django_db
def test_an_increase_counts_only_what_happened_inside_the_window():
    recording.count(ATTEMPTS, ERROR, by=4)
    age_rows(30)
    recording.count(ATTEMPTS, ERROR)
    source = DatabaseSource()
    assert source.increase(ATTEMPTS, 600) == {labels_of(ERROR): 1}
    assert source.instant(ATTEMPTS) == {labels_of(ERROR): 5}


@pytest.mark.django_db
def test_compaction_folds_old_minutes_into_one_row_without_changing_the_total():
    recording.count(ATTEMPTS, ERROR, by=2)
    age_rows(90)
    recording.count(ATTEMPTS, ERROR, by=3)
    age_rows(70)
    recording.count(ATTEMPTS, ERROR)
    assert Tally.objects.count() == 3
    assert recording.compact() == 2
    assert recording.compact() == 0
    assert Tally.objects.filter(window=COMPACTED).get().count == 5
    assert counter_values(BY_NAME[ATTEMPTS]) == {labels_of(ERROR): 6}
    assert DatabaseSource().increase(ATTEMPTS, 600) == {labels_of(ERROR): 1}


@pytest.mark.django_db
def test_a_histogram_count_is_a_series_the_rules_can_read():
    labels = {"result": "error", "member_cluster": "beijing"}
    recording.observe("work_sync_workload_duration_seconds", 0.02, labels)
    recording.observe("work_sync_workload_duration_seconds", 9.0, labels)
    source = DatabaseSource(now=timezone.now())
    assert source.increase("work_sync_workload_duration_seconds_count", 600) == {labels_of(labels): 2}
    assert source.instant("work_sync_workload_duration_seconds_sum") == {labels_of(labels): 9.02}
