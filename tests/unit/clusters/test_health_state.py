"""The Ready state machine: thresholds both ways, no flapping on a blip, first observation taken directly."""

from datetime import UTC, datetime, timedelta

from clusters.health import (
    FALSE,
    NOT_READY_TAINT,
    TRUE,
    UNKNOWN,
    UNREACHABLE_TAINT,
    HealthState,
    Observation,
    Thresholds,
    advance,
    condition_taints,
    confirm_at,
    observe,
    stale,
)
from clusters.k8s import HealthProbe

T0 = datetime(2026, 1, 1, tzinfo=UTC)
LIMITS = Thresholds(failure=3, success=5, unknown_after=40)
UP = Observation(TRUE, "ClusterReady", "ok")
DOWN = Observation(FALSE, "ClusterNotReachable", "no answer")


def at(seconds):
    return T0 + timedelta(seconds=seconds)


def ready_state():
    return HealthState(
        ready=TRUE, reason="ClusterReady", message="ok", since=T0, observed=TRUE, observed_since=T0
    )


def test_a_new_cluster_takes_its_first_observation_directly():
    state = advance(HealthState(UNKNOWN, "", "", None), DOWN, at(0), at(1), LIMITS)
    assert (state.ready, state.reason, state.since) == (FALSE, "ClusterNotReachable", at(1))


def test_a_failure_flips_ready_only_once_it_has_held_for_the_threshold():
    state = advance(ready_state(), DOWN, at(10), at(10.5), LIMITS)
    assert state.ready == TRUE and state.pending()
    assert confirm_at(state, LIMITS) == at(13)
    state = advance(state, DOWN, at(13), at(13.5), LIMITS)
    assert (state.ready, state.reason, state.since) == (FALSE, "ClusterNotReachable", at(13.5))
    assert not state.pending()


def test_a_probe_that_hangs_for_the_whole_threshold_is_a_failure_that_held():
    state = advance(ready_state(), DOWN, at(10), at(13), LIMITS)
    assert (state.ready, state.since) == (FALSE, at(13))


def test_a_single_failed_probe_between_good_ones_does_not_flap():
    state = advance(ready_state(), DOWN, at(10), at(10.2), LIMITS)
    state = advance(state, UP, at(13), at(13.1), LIMITS)
    assert (state.ready, state.since, state.pending()) == (TRUE, T0, False)


def test_recovery_waits_for_the_success_threshold():
    down = HealthState(FALSE, "ClusterNotReachable", "x", at(0), observed=FALSE, observed_since=at(0))
    state = advance(down, UP, at(20), at(20.1), LIMITS)
    assert state.ready == FALSE and confirm_at(state, LIMITS) == at(25.1)
    state = advance(state, UP, at(25.1), at(25.2), LIMITS)
    assert (state.ready, state.reason) == (TRUE, "ClusterReady")


def test_a_probe_that_hung_while_down_and_answered_after_recovery_proves_health_only_from_its_answer():
    down = HealthState(FALSE, "ClusterNotReachable", "x", at(0), observed=FALSE, observed_since=at(0))
    state = advance(down, UP, at(30), at(32.5), LIMITS)
    assert confirm_at(state, LIMITS) == at(37.5)


def test_the_reason_follows_the_observation_while_the_status_stays():
    down = HealthState(FALSE, "ClusterNotReachable", "x", at(0), observed=FALSE, observed_since=at(0))
    state = advance(
        down, Observation(FALSE, "ClusterNotReady", "/readyz answered 500"), at(10), at(10), LIMITS
    )
    assert (state.ready, state.reason, state.since) == (FALSE, "ClusterNotReady", at(0))


def test_no_probe_for_the_grace_period_is_unknown():
    assert stale(ready_state(), at(0), at(39), LIMITS).ready == TRUE
    state = stale(ready_state(), at(0), at(40), LIMITS)
    assert (state.ready, state.reason) == (UNKNOWN, "ClusterStatusUnknown")


def test_probe_outcomes_map_to_karmadas_three_reasons():
    def probe(ok, reachable):
        return HealthProbe(ok=ok, reachable=reachable, status=200 if ok else 503, path="/readyz", latency=0.1)

    assert observe(probe(True, True)).reason == "ClusterReady"
    assert observe(probe(False, True)).reason == "ClusterNotReady"
    assert observe(probe(False, False)).reason == "ClusterNotReachable"


def test_taints_follow_the_ready_status():
    assert condition_taints(TRUE) == set()
    assert condition_taints(FALSE) == {NOT_READY_TAINT}
    assert condition_taints(UNKNOWN) == {UNREACHABLE_TAINT}
