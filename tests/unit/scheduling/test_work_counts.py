"""count_works counts a binding's targets only, from aggregatedStatus, as the workload page shows them."""

from scheduling.karmada.work_counts import WorkCounts, count_works
from scheduling.templatetags.replica_chips import health_counts

TARGETS = [{"name": "a", "replicas": 3}, {"name": "b", "replicas": 2}, {"name": "c", "replicas": 1}]
STATUS = [
    {"clusterName": "a", "applied": True, "health": "Healthy", "status": {"readyReplicas": 3}},
    {"clusterName": "b", "applied": False, "health": "Unhealthy", "appliedMessage": "refused"},
    {"clusterName": "gone", "applied": True, "health": "Healthy", "status": {"readyReplicas": 9}},
]


def test_only_the_targets_count_and_a_target_not_reported_is_unknown():
    counts = count_works(TARGETS, 6, STATUS)
    assert counts == WorkCounts(clusters=3, applied=1, healthy=1, unhealthy=1, failed=1, desired=6, ready=3)
    assert counts.unknown == 1
    assert counts.as_dict()["unknown"] == 1


def test_a_binding_without_replicas_desires_none_and_an_empty_one_counts_nothing():
    assert count_works(TARGETS, 0, STATUS).desired == 0
    assert count_works([], 0, []) == WorkCounts()


def test_the_chips_name_every_count_that_is_not_zero():
    text = health_counts(count_works(TARGETS, 6, STATUS))
    shown = ("3 clusters", "1 healthy", "1 unhealthy", "1 unknown", "1 apply failed", "1 not applied yet")
    assert all(part in text for part in shown), text
    assert "not applied" not in health_counts(WorkCounts(clusters=1, applied=1, healthy=1))
