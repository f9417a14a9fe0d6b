"""Spec of the staged-rollout planner: waves from the policy's annotations, and when each wave moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from scheduling.planner import (
    ClusterSnapshot,
    InputError,
    MemberStatus,
    plan_rollout,
    plan_waves,
    rollout_spec_from_annotations,
)
from scheduling.planner.waves import ABORTED, HALTED, PAUSED, PROGRESSING

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
FLEET = (
    ClusterSnapshot("staging-1", labels={"env": "staging", "location/region": "cn-east"}),
    ClusterSnapshot("beijing", labels={"env": "prod", "location/region": "cn-north"}),
    ClusterSnapshot("tianjin", labels={"env": "prod", "location/region": "cn-north"}),
    ClusterSnapshot("shanghai", labels={"env": "prod", "location/region": "cn-east"}),
    ClusterSnapshot("guangzhou", labels={"env": "prod", "location/region": "cn-south"}),
)
TARGETS = [cluster.name for cluster in FLEET]
THREE_WAVES = {
    "rollout.karmada-ui.io/waves": "env=staging; location/region=cn-north; *",
    "rollout.karmada-ui.io/soak": "30s",
    "rollout.karmada-ui.io/progress-deadline": "2m",
}


def spec_of(annotations=THREE_WAVES):
    spec = rollout_spec_from_annotations(annotations)
    assert spec is not None
    return spec


def ready(cluster, revision=2, since=NOW - timedelta(minutes=5), desired=3):
    return MemberStatus(
        cluster,
        applied=True,
        revision=revision,
        desired=desired,
        replicas=desired,
        updated=desired,
        available=desired,
        since=since,
    )


def crashing(cluster, revision=2, desired=3):
    # the rolling update keeps the old pods: all available, but the new ones never become ready
    return MemberStatus(
        cluster,
        applied=True,
        revision=revision,
        desired=desired,
        replicas=desired + 1,
        updated=1,
        available=desired,
        since=NOW - timedelta(minutes=5),
    )


def test_a_policy_without_the_waves_annotation_has_no_staged_rollout():
    assert rollout_spec_from_annotations({"other": "x"}) is None
    assert rollout_spec_from_annotations(None) is None


def test_the_annotations_give_the_waves_the_soak_and_the_deadline():
    spec = spec_of()
    assert [rule.text for rule in spec.waves] == ["env=staging", "location/region=cn-north", "*"]
    assert (spec.soak_seconds, spec.progress_deadline_seconds) == (30.0, 120.0)


def test_soak_and_deadline_default_to_a_minute_and_ten_minutes():
    spec = spec_of({"rollout.karmada-ui.io/waves": "env=staging"})
    assert (spec.soak_seconds, spec.progress_deadline_seconds) == (60.0, 600.0)


@pytest.mark.parametrize(
    ("annotations", "path", "reason"),
    [
        ({"rollout.karmada-ui.io/waves": " ; "}, "waves]", "at least one wave"),
        ({"rollout.karmada-ui.io/waves": "env=a;;*"}, "waves]", "empty wave"),
        (
            {"rollout.karmada-ui.io/waves": "*; env=a"},
            "waves]",
            "wave 1: '*' (the rest) can only be the last",
        ),
        ({"rollout.karmada-ui.io/waves": "env in (a"}, "waves]", "wave 1:"),
        ({"rollout.karmada-ui.io/waves": "names:a,,b"}, "waves]", "names: needs cluster names"),
        ({"rollout.karmada-ui.io/waves": "*", "rollout.karmada-ui.io/soak": "soon"}, "soak]", "duration"),
        (
            {"rollout.karmada-ui.io/waves": "*", "rollout.karmada-ui.io/progress-deadline": "-1s"},
            "progress-deadline]",
            "negative",
        ),
    ],
)
def test_bad_annotations_are_refused_with_the_annotation_and_the_reason(annotations, path, reason):
    with pytest.raises(InputError) as caught:
        rollout_spec_from_annotations(annotations)
    assert caught.value.path.startswith("metadata.annotations[rollout.karmada-ui.io/")
    assert caught.value.path.endswith(path)
    assert reason in caught.value.message


def test_each_target_goes_to_the_first_wave_that_takes_it():
    waves = plan_waves(spec_of(), FLEET, TARGETS)
    assert [(w.number, w.rule, w.clusters) for w in waves] == [
        (1, "env=staging", ("staging-1",)),
        (2, "location/region=cn-north", ("beijing", "tianjin")),
        (3, "*", ("guangzhou", "shanghai")),
    ]


def test_clusters_no_wave_takes_make_a_last_wave_of_their_own():
    spec = spec_of({"rollout.karmada-ui.io/waves": "env=staging"})
    waves = plan_waves(spec, FLEET, ["staging-1", "beijing"])
    assert [(w.rule, w.clusters) for w in waves] == [("env=staging", ("staging-1",)), ("*", ("beijing",))]


def test_a_names_wave_keeps_the_order_written_and_an_empty_wave_stays_in_the_plan():
    spec = spec_of({"rollout.karmada-ui.io/waves": "names:tianjin,beijing; env=qa; *"})
    waves = plan_waves(spec, FLEET, ["beijing", "tianjin", "shanghai"])
    assert [w.clusters for w in waves] == [("tianjin", "beijing"), (), ("shanghai",)]


def test_only_target_clusters_are_planned():
    waves = plan_waves(spec_of(), FLEET, ["beijing", "shanghai"])
    assert [w.clusters for w in waves] == [(), ("beijing",), ("shanghai",)]


def rollout(statuses, released, phase=PROGRESSING, spec=None, targets=TARGETS):
    spec = spec or spec_of()
    waves = plan_waves(spec, FLEET, targets)
    return plan_rollout(spec, waves, 2, statuses, released, phase, NOW, previous_revision=1)


def test_a_new_rollout_releases_the_first_wave_alone():
    result = rollout({}, {})
    assert result.release == ("staging-1",)
    assert result.current_wave == 1
    assert result.stages["beijing"].state == "held"
    assert result.stages["beijing"].message == "waits for wave 1 (staging-1: updated now)"


def test_the_next_wave_waits_while_the_previous_one_soaks():
    released = {"staging-1": NOW - timedelta(seconds=40)}
    result = rollout({"staging-1": ready("staging-1", since=NOW - timedelta(seconds=10))}, released)
    assert result.release == ()
    assert result.stages["staging-1"].state == "soaking"
    assert result.stages["beijing"].message == (
        "waits for wave 1 (staging-1: every replica ready; soaking, 20s left)"
    )


def test_the_next_wave_is_released_once_every_cluster_of_the_previous_one_has_soaked():
    released = {"staging-1": NOW - timedelta(minutes=2)}
    result = rollout({"staging-1": ready("staging-1")}, released)
    assert result.release == ("beijing", "tianjin")
    assert result.current_wave == 2


def test_one_cluster_of_a_wave_still_updating_holds_the_next_wave():
    released = {name: NOW - timedelta(minutes=1) for name in ("staging-1", "beijing", "tianjin")}
    statuses = {
        "staging-1": ready("staging-1"),
        "beijing": ready("beijing"),
        "tianjin": MemberStatus(
            "tianjin", applied=True, revision=2, desired=3, replicas=4, updated=2, available=3, since=NOW
        ),
    }
    result = rollout(statuses, released)
    assert result.release == ()
    assert result.stages["tianjin"].state == "updating"
    assert result.stages["shanghai"].message == (
        "waits for wave 2 (tianjin: 2 of 3 replicas updated, 3 available)"
    )


def test_a_member_still_reporting_the_old_revision_is_not_ready_even_with_every_replica_available():
    released = {"staging-1": NOW - timedelta(seconds=5)}
    result = rollout({"staging-1": ready("staging-1", revision=1)}, released)
    assert result.stages["staging-1"].state == "updating"
    assert result.stages["staging-1"].message == "the member still reports revision 1"


def test_a_cluster_not_ready_within_the_deadline_fails_and_stops_every_release():
    released = {
        "staging-1": NOW - timedelta(minutes=10),
        "beijing": NOW - timedelta(minutes=3),
        "tianjin": NOW - timedelta(minutes=3),
    }
    statuses = {"staging-1": ready("staging-1"), "beijing": crashing("beijing"), "tianjin": ready("tianjin")}
    result = rollout(statuses, released)
    assert [stage.cluster for stage in result.failed] == ["beijing"]
    assert result.failed[0].code == "ProgressDeadlineExceeded"
    assert "1 of 3 replicas updated" in result.failed[0].message
    assert result.release == ()
    assert result.stages["shanghai"].state == "held"
    assert not result.complete


def test_a_failure_in_a_wave_holds_clusters_that_would_have_been_released_this_turn():
    spec = spec_of(
        {
            "rollout.karmada-ui.io/waves": "names:beijing; names:staging-1",
            "rollout.karmada-ui.io/progress-deadline": "1m",
        }
    )
    # beijing (wave 1) fails; staging-1 (wave 2) must not be released
    result = rollout(
        {"beijing": crashing("beijing")},
        {"beijing": NOW - timedelta(minutes=5)},
        spec=spec,
        targets=["beijing", "staging-1"],
    )
    assert result.release == ()
    assert result.stages["staging-1"].state == "held"


@pytest.mark.parametrize(
    ("phase", "reason"), [(PAUSED, "rollout paused"), (HALTED, "rollout halted by a failure")]
)
def test_paused_and_halted_rollouts_release_nothing_and_say_so(phase, reason):
    released = {"staging-1": NOW - timedelta(minutes=2)}
    result = rollout({"staging-1": ready("staging-1")}, released, phase=phase)
    assert result.release == ()
    assert result.stages["beijing"].message == reason


def test_an_aborted_rollout_rolls_released_clusters_back_and_holds_the_rest():
    released = {"staging-1": NOW - timedelta(minutes=2)}
    result = rollout({"staging-1": ready("staging-1")}, released, phase=ABORTED)
    assert result.stages["staging-1"].state == "rolledBack"
    assert result.stages["beijing"].state == "held"
    assert result.stages["beijing"].message == "rollout aborted: back on revision 1"
    assert result.release == ()
    assert not result.complete


def test_the_rollout_is_complete_when_every_wave_has_soaked():
    released = {name: NOW - timedelta(minutes=10) for name in TARGETS}
    result = rollout({name: ready(name) for name in TARGETS}, released)
    assert result.complete
    assert result.current_wave is None
    assert [wave.state for wave in result.waves] == ["done", "done", "done"]


def test_kinds_without_replicas_are_ready_once_the_new_revision_is_applied():
    status = MemberStatus(
        "staging-1", applied=True, revision=2, workload=False, since=NOW - timedelta(minutes=5)
    )
    result = rollout({"staging-1": status}, {"staging-1": NOW - timedelta(minutes=5)})
    assert result.stages["staging-1"].state == "updated"
    assert result.release == ("beijing", "tianjin")


def test_the_plan_is_plain_data():
    result = rollout({}, {})
    data = result.as_dict()
    assert data["release"] == ["staging-1"]
    assert data["waves"][1]["clusters"] == ["beijing", "tianjin"]
    assert data["waves"][1]["stages"][0]["code"] == "WaitingForWave"
