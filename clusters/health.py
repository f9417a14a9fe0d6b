"""The Ready condition as a pure state machine: observations in, a debounced condition out."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from clusters.k8s import HealthProbe

TRUE, FALSE, UNKNOWN = "True", "False", "Unknown"
NOT_READY_TAINT = "cluster.karmada.io/not-ready"
UNREACHABLE_TAINT = "cluster.karmada.io/unreachable"
MESSAGES = {
    "ClusterReady": "cluster is healthy and ready to accept workloads",
    "ClusterNotReady": "cluster is reachable but health endpoint responded without ok",
    "ClusterNotReachable": "cluster is not reachable",
    "ClusterStatusUnknown": "no health probe has completed recently",
    "StatusCollectionFailed": "the cluster's credentials could not be used",
}


@dataclass(frozen=True)
class Thresholds:
    """How long a new observation must hold before Ready follows it (Karmada: 30 s each way)."""

    failure: float
    success: float
    unknown_after: float


@dataclass(frozen=True)
class Observation:
    status: str  # TRUE or FALSE
    reason: str
    message: str


@dataclass(frozen=True)
class HealthState:
    ready: str
    reason: str
    message: str
    since: datetime | None  # lastTransitionTime of Ready
    observed: str = ""
    observed_reason: str = ""
    observed_since: datetime | None = None

    def pending(self) -> bool:
        """An observation differs from the condition and has not yet held long enough."""
        return bool(self.observed) and self.observed != self.ready


def observe(probe: HealthProbe) -> Observation:
    """Karmada's three outcomes: unreachable and not-ok are both Ready=False, with different reasons."""
    if probe.ok:
        return Observation(TRUE, "ClusterReady", MESSAGES["ClusterReady"])
    if not probe.reachable:
        return Observation(FALSE, "ClusterNotReachable", probe.message or MESSAGES["ClusterNotReachable"])
    return Observation(FALSE, "ClusterNotReady", probe.message or MESSAGES["ClusterNotReady"])


def threshold_for(state: HealthState, thresholds: Thresholds) -> float:
    return thresholds.success if state.observed == TRUE else thresholds.failure


def advance(
    state: HealthState, seen: Observation, started: datetime, now: datetime, thresholds: Thresholds
) -> HealthState:
    """Fold one observation (its probe started at `started`, ended at `now`) into the state.

    The condition follows the observation once the observation has held for the threshold, counted
    from the start of the first probe that saw a failure, or the end of the first that saw success.
    A cluster with no condition yet takes its first observation directly, as Karmada does for a newly
    joined cluster.
    """
    if state.observed != seen.status:
        # A failure held from the moment its probe was sent (a hung probe is failing all along);
        # health is proven only once the answer is back.
        since = now if seen.status == TRUE else started
        state = replace(state, observed=seen.status, observed_reason=seen.reason, observed_since=since)
    else:
        state = replace(state, observed_reason=seen.reason)
    if state.ready == seen.status:
        # Same status; the reason and message may still change (NotReady -> NotReachable).
        return replace(state, reason=seen.reason, message=seen.message)
    since = state.observed_since or started
    if state.since is None or (now - since).total_seconds() >= threshold_for(state, thresholds):
        return replace(state, ready=seen.status, reason=seen.reason, message=seen.message, since=now)
    return state


def confirm_at(state: HealthState, thresholds: Thresholds) -> datetime | None:
    """When a pending observation may be confirmed by another probe, or None if nothing is pending."""
    if not state.pending() or state.observed_since is None:
        return None
    return state.observed_since + timedelta(seconds=threshold_for(state, thresholds))


def stale(
    state: HealthState, last_probe_at: datetime | None, now: datetime, thresholds: Thresholds
) -> HealthState:
    """Unknown when no probe has completed for `unknown_after` seconds (a lost worker, a stuck probe)."""
    if last_probe_at is None or (now - last_probe_at).total_seconds() < thresholds.unknown_after:
        return state
    if state.ready == UNKNOWN:
        return state
    return replace(
        state,
        ready=UNKNOWN,
        reason="ClusterStatusUnknown",
        message=MESSAGES["ClusterStatusUnknown"],
        since=now,
        observed="",
        observed_reason="",
        observed_since=None,
    )


def condition_taints(ready: str) -> set[str]:
    """The automatic NoSchedule taint keys that go with a Ready status (none when Ready=True)."""
    if ready == FALSE:
        return {NOT_READY_TAINT}
    if ready == UNKNOWN:
        return {UNREACHABLE_TAINT}
    return set()
