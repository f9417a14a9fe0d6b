"""An event's batch of bindings starts with a small task, so its first member writes begin while the
rest is still planned and rendered; bulk work keeps its even tasks."""

from __future__ import annotations

import pytest

from scheduling import tasks


def sent_args(task, monkeypatch) -> list[tuple]:
    calls: list[tuple] = []
    monkeypatch.setattr(task, "apply_async", lambda args, kwargs=None, **options: calls.append(args))
    return calls


def test_batches_take_the_head_first_then_full_slices():
    assert tasks.batches(list(range(25)), 10, 1) == [
        [0],
        list(range(1, 11)),
        list(range(11, 21)),
        [21, 22, 23, 24],
    ]
    assert tasks.batches(list(range(5)), 2) == [[0, 1], [2, 3], [4]]
    assert tasks.batches([7], 10, 1) == [[7]]
    assert tasks.batches([], 10, 1) == []


@pytest.mark.django_db
def test_an_events_syncs_begin_with_one_binding(django_capture_on_commit_callbacks, monkeypatch):
    calls = sent_args(tasks.sync_bindings, monkeypatch)
    ids = list(range(1, 1 + 2 * tasks.SYNC_BATCH))
    with django_capture_on_commit_callbacks(execute=True):
        tasks.queue_sync(ids, replanned=ids)
    parts = [args[0] for args in calls]
    assert [len(part) for part in parts] == [tasks.HEAD_SYNC_BATCH, tasks.SYNC_BATCH, tasks.SYNC_BATCH - 1]
    assert [i for part in parts for i in part] == ids
    assert all(args[1] == args[0] for args in calls)  # each task told which of its bindings were re-planned


@pytest.mark.django_db
def test_bulk_syncs_stay_even(django_capture_on_commit_callbacks, monkeypatch):
    calls = sent_args(tasks.sync_bindings, monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        tasks.queue_sync(list(range(5)), bulk=True)
    assert [args[0] for args in calls] == [[0, 1], [2, 3], [4]]


@pytest.mark.django_db
def test_detected_bindings_are_scheduled_small_first(django_capture_on_commit_callbacks, monkeypatch):
    calls = sent_args(tasks.schedule_detected, monkeypatch)
    ids = list(range(150))
    with django_capture_on_commit_callbacks(execute=True):
        tasks.queue_detected(ids)
        tasks.queue_detected(ids, bulk=True)
    sizes = [len(args[0]) for args in calls]
    head = tasks.HEAD_DIRTY_BATCH
    bulk = tasks.BULK_DIRTY_BATCH
    assert sizes[:2] == [head, tasks.DIRTY_BATCH] and sum(sizes[:3]) == 150
    assert sizes[3:] == [bulk] * (150 // bulk)
