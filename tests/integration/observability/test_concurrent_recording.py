"""Counters and histograms stay exact with many writers at once, inside and outside their transactions."""

import logging
import threading

import pytest
from django.db import connection, transaction

from metrics import recording
from metrics.catalogue import BY_NAME
from metrics.models import Tally
from observability.expr import labels_of
from observability.values import counter_values, histogram_values

WRITERS = 8
ROUNDS = 40
CLUSTERS = ("beijing", "shanghai", "guangzhou", "shenzhen")
ATTEMPTS = "karmada_scheduler_schedule_attempts_total"
SCHEDULED = {"result": "scheduled", "schedule_type": "ReconcileSchedule"}
APPLY = "work_sync_workload_duration_seconds"

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="SQLite serialises every writer on one file lock; row locks and deadlocks need PostgreSQL",
)


def writer(index: int, start: threading.Barrier, errors: list[BaseException]) -> None:
    """One worker: every round applies to every cluster in its own order inside one transaction, as a
    dispatch chunk does; every third transaction rolls back after recording."""
    order = CLUSTERS[index % 4 :] + CLUSTERS[: index % 4]
    if index % 2:
        order = order[::-1]
    try:
        start.wait()
        for round_ in range(ROUNDS):
            try:
                with transaction.atomic():
                    for cluster in order:
                        recording.observe(APPLY, 0.003, {"result": "success", "member_cluster": cluster})
                    recording.count(ATTEMPTS, SCHEDULED)
                    if round_ % 3 == 2:
                        raise RuntimeError("the work failed after it was measured")
            except RuntimeError:
                pass
            recording.count(ATTEMPTS, SCHEDULED)  # and one outside any transaction
    except BaseException as exc:  # reported to the test's thread
        errors.append(exc)
    finally:
        connection.close()


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_eight_concurrent_writers_lose_no_increment_and_never_deadlock(caplog):
    start, errors = threading.Barrier(WRITERS), []
    threads = [threading.Thread(target=writer, args=(i, start, errors)) for i in range(WRITERS)]
    with caplog.at_level(logging.WARNING, logger="metrics.recording"):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    assert not any(thread.is_alive() for thread in threads), "a writer is stuck"
    assert errors == []
    assert [r.getMessage() for r in caplog.records] == []  # no deadlock, nothing retried

    assert counter_values(BY_NAME[ATTEMPTS]) == {labels_of(SCHEDULED): WRITERS * ROUNDS * 2}
    applied = histogram_values(BY_NAME[APPLY])
    for cluster in CLUSTERS:
        series = applied[labels_of({"result": "success", "member_cluster": cluster})]
        assert series.count == WRITERS * ROUNDS
        assert dict(series.buckets)["0.004"] == WRITERS * ROUNDS
        assert series.sum == pytest.approx(0.003 * WRITERS * ROUNDS)


@pytest.mark.django_db
def test_a_record_inside_the_works_transaction_takes_no_row_until_the_work_ends():
    with transaction.atomic():
        recording.count(ATTEMPTS, SCHEDULED)
        assert not Tally.objects.exists()  # nothing locked on behalf of the work
    recording.flush()
    assert counter_values(BY_NAME[ATTEMPTS]) == {labels_of(SCHEDULED): 1}


@pytest.mark.django_db
def test_the_increments_of_a_rolled_back_transaction_are_still_counted():
    with pytest.raises(RuntimeError), transaction.atomic():
        recording.count(ATTEMPTS, SCHEDULED, by=2)
        raise RuntimeError("the work failed after it was measured")
    recording.count(ATTEMPTS, SCHEDULED)
    assert counter_values(BY_NAME[ATTEMPTS]) == {labels_of(SCHEDULED): 3}


@pytest.mark.django_db(transaction=True)  # real commits: each would have written its increments
def test_records_of_many_transactions_inside_together_leave_in_one_write_at_its_end():
    """An apply chunk writes its outcomes in several transactions; their increments wait for the chunk."""
    with recording.together():
        for cluster in CLUSTERS[:2]:
            with transaction.atomic():
                recording.observe(APPLY, 0.003, {"result": "success", "member_cluster": cluster})
            assert not Tally.objects.exists()  # not at each commit
        recording.observe(APPLY, 0.5, {"result": "error", "member_cluster": CLUSTERS[0]})
        assert not Tally.objects.exists()
    applied = histogram_values(BY_NAME[APPLY])
    assert {labels: series.count for labels, series in applied.items()} == {
        labels_of({"result": "success", "member_cluster": CLUSTERS[0]}): 1,
        labels_of({"result": "success", "member_cluster": CLUSTERS[1]}): 1,
        labels_of({"result": "error", "member_cluster": CLUSTERS[0]}): 1,
    }
