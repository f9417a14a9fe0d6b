"""The eager-Celery switch: `.delay()` runs inline, as a worker would, while a block or a test lasts."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from karmada_ui.celery import app


@contextlib.contextmanager
def eager_tasks(propagate: bool = True) -> Iterator[None]:
    """Run `.delay()` inline, so that a transaction's on_commit chain completes before the call returns.

    With `propagate` a task's exception reaches the caller, which is what most tests want to see.
    Without it a failing task is recorded as a worker would record it: Celery's eager retries need that,
    and so do tests that check the recorded outcome of a failure rather than the exception.
    """
    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, propagate
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = saved
