"""Calls to many member clusters at once, each bounded by one deadline: a cluster that has not answered
in time is named as timed out, never waited for, and one cluster's failure never hides the others'."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Generic, TypeVar

from clusters.k8s import KubeError
from clusters.models import Cluster

T = TypeVar("T")
# Member calls wait on the network, not the CPU: many overlap even on two cores.
MAX_PARALLEL = 32
DEFAULT_DEADLINE = 2.0


@dataclass(frozen=True)
class Answer(Generic[T]):
    """One cluster's outcome: a value, or an error sentence (`timed_out` when the deadline passed)."""

    cluster: str
    value: T | None = None
    error: str = ""
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return not self.error


def _call(cluster: Cluster, read: Callable[[Cluster], T]) -> Answer[T]:
    try:
        return Answer(cluster.name, value=read(cluster))
    except KubeError as exc:
        return Answer(cluster.name, error=exc.message)
    except ValueError as exc:  # credentials that cannot be decrypted or parsed
        return Answer(cluster.name, error=f"The credentials of {cluster.name} cannot be used: {exc}")


def each_answer(
    clusters: Iterable[Cluster], read: Callable[[Cluster], T], deadline: float = DEFAULT_DEADLINE
) -> Iterator[Answer[T]]:
    """Answers in the order clusters give them; when the deadline passes, one timed-out answer for each
    cluster still running (its thread finishes on its own, bounded by the client's own timeout)."""
    targets = list(clusters)
    if not targets:
        return
    pool = ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(targets)), thread_name_prefix="fanout")
    running: dict[Future[Answer[T]], str] = {pool.submit(_call, c, read): c.name for c in targets}
    ends = time.monotonic() + deadline
    try:
        while running:
            left = ends - time.monotonic()
            if left <= 0:
                break
            done, _ = wait(running, timeout=left, return_when=FIRST_COMPLETED)
            for future in done:
                running.pop(future)
                yield future.result()
        for name in sorted(running.values()):
            yield Answer(name, error=f"{name} did not answer within {deadline:g} s.", timed_out=True)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def gather(
    clusters: Iterable[Cluster], read: Callable[[Cluster], T], deadline: float = DEFAULT_DEADLINE
) -> dict[str, Answer[T]]:
    """Every cluster's answer by name, once all have answered or the deadline passed."""
    return {answer.cluster: answer for answer in each_answer(clusters, read, deadline)}
