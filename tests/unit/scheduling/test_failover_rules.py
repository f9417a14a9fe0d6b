"""The taint manager's timing, taint-policy conditions and the load-shedding arithmetic."""

from datetime import UTC, datetime

from scheduling.controllers.failover import conditions_hold, eviction_time
from scheduling.controllers.rescheduling import Heat, replicas_to_shed
from scheduling.planner import Toleration

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
ADDED = "2026-11-30T08:59:00Z"
TAINT = {"key": "maintenance", "effect": "NoExecute", "timeAdded": ADDED}


def test_an_untolerated_no_execute_taint_evicts_now():
    verdict = eviction_time([TAINT], (), NOW)
    assert verdict.at == NOW and verdict.taint == "maintenance:NoExecute"


def test_no_schedule_taints_never_evict():
    assert eviction_time([{"key": "x", "effect": "NoSchedule"}], (), NOW).at is None


def test_toleration_seconds_evict_at_time_added_plus_the_smallest_seconds():
    tolerations = (
        Toleration(key="maintenance", operator="Exists", effect="NoExecute", toleration_seconds=300),
        Toleration(operator="Exists", toleration_seconds=120),
    )
    assert eviction_time([TAINT], tolerations, NOW).at == datetime(2026, 11, 30, 9, 1, tzinfo=UTC)


def test_a_toleration_without_seconds_tolerates_for_ever():
    assert eviction_time([TAINT], (Toleration(key="maintenance", operator="Exists"),), NOW).at is None


def test_conditions_match_in_and_not_in_and_a_missing_condition_counts_as_unknown():
    conditions = [{"type": "Ready", "status": "False"}]
    assert conditions_hold(
        conditions, [{"conditionType": "Ready", "operator": "NotIn", "statusValues": ["True"]}]
    )
    assert not conditions_hold(
        conditions, [{"conditionType": "Ready", "operator": "In", "statusValues": ["True"]}]
    )
    assert conditions_hold([], [{"conditionType": "Ready", "operator": "In", "statusValues": ["Unknown"]}])
    assert not conditions_hold(conditions, [])


def test_just_enough_replicas_are_shed_to_get_strictly_under_the_threshold():
    hot = Heat(usage=40000, allocatable=40000)
    assert replicas_to_shed(hot, 80, 3000, 10) == 3  # 40000 - 32000 = 8000 -> 3 x 3000
    assert replicas_to_shed(Heat(usage=32000, allocatable=40000), 80, 3000, 10) == 1  # at the threshold
    assert replicas_to_shed(Heat(usage=20000, allocatable=40000), 80, 3000, 10) == 0
    assert replicas_to_shed(hot, 10, 3000, 4) == 4  # never more than the cluster runs
