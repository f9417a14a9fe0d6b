"""When Karmada schedules a binding: the five conditions of spec §2.0, in order."""

from datetime import UTC, datetime, timedelta

import pytest

from scheduling.karmada.triggers import (
    CLUSTER_DELETING,
    EVERY_RECONCILE,
    PLACEMENT_CHANGED,
    REPLICAS_CHANGED,
    RESCHEDULE_TRIGGERED,
    schedule_trigger,
)

T0 = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
DIVIDED = {
    "clusterAffinity": {"clusterNames": ["a", "b"]},
    "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"},
}


def trigger(**changes):
    inputs = {
        "placement": DIVIDED,
        "applied_placement": DIVIDED,
        "observed_affinity": "",
        "replicas": 10,
        "replica_requirements": None,
        "clusters": [{"name": "a", "replicas": 5}, {"name": "b", "replicas": 5}],
        "reschedule_triggered_at": None,
        "last_scheduled_time": T0,
        "deleting_clusters": (),
    }
    inputs.update(changes)
    return schedule_trigger(**inputs)


def test_a_settled_divided_binding_is_left_alone():
    assert trigger() is None


def test_a_missing_or_different_applied_placement_triggers_scheduling():
    assert trigger(applied_placement=None) == PLACEMENT_CHANGED
    assert (
        trigger(applied_placement={**DIVIDED, "clusterAffinity": {"clusterNames": ["a"]}})
        == PLACEMENT_CHANGED
    )


def test_a_replica_sum_that_differs_triggers_scheduling_only_with_replica_scheduling():
    assert trigger(replicas=11) == REPLICAS_CHANGED
    duplicated = {"clusterAffinity": {"clusterNames": ["a"]}}
    assert trigger(placement=duplicated, applied_placement=duplicated, replicas=11) == EVERY_RECONCILE


def test_an_explicit_reschedule_after_the_last_schedule_triggers_fresh_scheduling():
    assert trigger(reschedule_triggered_at=T0 + timedelta(seconds=1)) == RESCHEDULE_TRIGGERED
    assert trigger(reschedule_triggered_at=T0 - timedelta(seconds=1)) is None
    assert trigger(reschedule_triggered_at=T0, last_scheduled_time=None) is None


def test_non_workloads_and_duplicated_workloads_are_scheduled_on_every_reconcile():
    no_replicas = trigger(
        replicas=0, clusters=[{"name": "a", "replicas": 0}], placement={}, applied_placement={}
    )
    assert no_replicas == EVERY_RECONCILE
    dup = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}
    assert (
        trigger(placement=dup, applied_placement=dup, clusters=[{"name": "a", "replicas": 10}])
        == EVERY_RECONCILE
    )


def test_a_target_cluster_being_deleted_triggers_scheduling():
    assert trigger(deleting_clusters={"b"}) == CLUSTER_DELETING
    assert trigger(deleting_clusters={"c"}) is None


@pytest.mark.parametrize(
    "edit,expected",
    [
        ({"clusterNames": ["b"]}, None),  # a change to a term that is not observed
        ("primary", PLACEMENT_CHANGED),  # a change to the observed term
    ],
)
def test_with_cluster_affinities_only_the_observed_term_counts(edit, expected):
    def terms(primary, backup):
        return {
            "clusterAffinities": [
                {"affinityName": "primary", "clusterNames": primary},
                {"affinityName": "backup", "clusterNames": backup},
            ],
            "replicaScheduling": DIVIDED["replicaScheduling"],
        }

    applied = terms(["a"], ["b"])
    placement = terms(["a", "c"], ["b"]) if edit == "primary" else terms(["a"], ["b", "c"])
    got = trigger(placement=placement, applied_placement=applied, observed_affinity="primary")
    assert got == expected
