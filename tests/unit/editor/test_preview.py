"""The preview is the planner's own answer, explained: rows, rounding, the other method, capacity, why-not."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from django.utils import translation

from scheduling.editor.live_preview import WorkloadInput, build_preview
from scheduling.planner import Binding, Placement, TargetCluster, plan
from tests.unit.editor.seed import FLEET, POLICY_7_3, policy_with_weights, summary


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def test_the_seed_policy_splits_ten_replicas_seven_to_three():
    preview = build_preview(POLICY_7_3, FLEET, WorkloadInput(10))
    assert preview.proposed == {"beijing": 7, "shanghai": 3}
    assert preview.summary == "Proposed split for 10 replicas: beijing 7, shanghai 3."


def test_the_preview_is_exactly_what_the_planner_answers():
    preview = build_preview(POLICY_7_3, FLEET, WorkloadInput(11, base=Binding(uid="abc")))
    direct = plan(
        FLEET, Placement.from_dict(POLICY_7_3["spec"]["placement"]), Binding(replicas=11, uid="abc")
    )
    assert preview.plan == direct


def test_a_split_without_contested_replicas_still_says_how_it_rounded():
    contested = build_preview(policy_with_weights(("beijing", 8), ("shanghai", 3)), FLEET, WorkloadInput(10))
    assert contested.proposed == {"beijing": 7, "shanghai": 3}
    assert contested.rounding == [
        "shanghai gets the 10th replica: Webster priority 0.60 vs 0.53 for beijing."
    ]
    exact = build_preview(POLICY_7_3, FLEET, WorkloadInput(10))
    assert exact.rounding == [
        "No replica was contested: each cluster gets its share rounded (beijing 7.00 → 7, shanghai 3.00 → 3)."
    ]


def test_the_eleventh_replica_is_explained_with_its_webster_priority():
    preview = build_preview(POLICY_7_3, FLEET, WorkloadInput(11))
    assert preview.proposed == {"beijing": 8, "shanghai": 3}
    assert preview.rounding == ["beijing gets the 11th replica: Webster priority 0.47 vs 0.43 for shanghai."]
    assert preview.comparison == "Largest remainder gives the same split."


def test_largest_remainder_is_shown_beside_webster_when_it_differs_with_why():
    doc = policy_with_weights(("beijing", 3), ("shanghai", 1), ("guangzhou", 1))
    doc["spec"]["placement"]["clusterTolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    preview = build_preview(doc, FLEET, WorkloadInput(3))
    assert preview.proposed == {"beijing": 1, "guangzhou": 1, "shanghai": 1}
    assert preview.comparison.startswith("Largest remainder would give beijing 2, guangzhou 1, shanghai 0.")
    assert "beijing 1.80, guangzhou 0.60, shanghai 0.60" in preview.comparison


def test_a_policy_asking_for_largest_remainder_is_divided_that_way():
    doc = policy_with_weights(("beijing", 3), ("shanghai", 1), ("guangzhou", 1))
    doc["spec"]["placement"]["clusterTolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    doc["metadata"]["annotations"] = {"scheduling.karmada-ui.io/division-method": "largest-remainder"}
    preview = build_preview(doc, FLEET, WorkloadInput(3))
    assert preview.proposed == {"beijing": 2, "guangzhou": 1}
    assert preview.comparison.startswith("Webster would give beijing 1, guangzhou 1, shanghai 1.")


def test_every_cluster_outside_the_placement_says_which_filter_kept_it_out():
    preview = build_preview(POLICY_7_3, FLEET, WorkloadInput(10))
    assert [(w.cluster, w.reasons) for w in preview.why_not] == [
        (
            "guangzhou",
            (
                ("TaintToleration", "taint dedicated=gpu:NoSchedule is not tolerated"),
                ("ClusterAffinity", "not in clusterNames"),
            ),
        )
    ]


def test_a_label_selector_mismatch_names_the_label():
    doc = copy.deepcopy(POLICY_7_3)
    doc["spec"]["placement"]["clusterAffinity"] = {"labelSelector": {"matchLabels": {"env": "prod"}}}
    preview = build_preview(doc, FLEET, WorkloadInput(10))
    assert preview.matched == ["beijing", "shanghai"]
    assert ("ClusterAffinity", "label env=staging does not match env In (prod)") in preview.why_not[0].reasons


def test_the_current_placement_is_shown_beside_the_proposed_one():
    current = (TargetCluster("beijing", 5), TargetCluster("shanghai", 5))
    preview = build_preview(POLICY_7_3, FLEET, WorkloadInput(10, current=current))
    assert [(r.name, r.current, r.proposed, r.delta) for r in preview.rows] == [
        ("beijing", 5, 7, 2),
        ("shanghai", 5, 3, -2),
    ]
    assert [trace["name"] for trace in preview.figure["data"]] == ["now", "proposed"]


def test_a_cluster_that_cannot_hold_its_share_gets_a_capacity_warning():
    fleet = [replace(s, resource_summary=summary("64")) for s in FLEET]
    fleet[0] = replace(fleet[0], resource_summary=summary("64", pods=5))
    preview = build_preview(POLICY_7_3, fleet, WorkloadInput(10))
    assert preview.warnings == [
        "beijing has room for 5 replicas of this workload but its share is 7. "
        "Static weights ignore capacity, so the rest would stay Pending there."
    ]
    assert [r.over_capacity for r in preview.rows] == [True, False]


def test_clusters_without_a_resource_summary_get_no_capacity_warning():
    assert build_preview(POLICY_7_3, FLEET, WorkloadInput(10)).warnings == []


def test_a_malformed_placement_is_reported_instead_of_planned():
    doc = copy.deepcopy(POLICY_7_3)
    doc["spec"]["placement"]["replicaScheduling"]["replicaSchedulingType"] = "Sideways"
    preview = build_preview(doc, FLEET, WorkloadInput(10))
    assert preview.plan is None
    assert preview.problem == "replicaScheduling.replicaSchedulingType: must be Duplicated or Divided"


def test_a_placement_no_cluster_fits_reports_the_planner_error():
    doc = copy.deepcopy(POLICY_7_3)
    doc["spec"]["placement"]["clusterAffinity"] = {"clusterNames": ["nowhere"]}
    preview = build_preview(doc, FLEET, WorkloadInput(10))
    assert preview.error["reason"] == "NoClusterFit"
    assert preview.summary.startswith("Not scheduled: 0/3 clusters are available")


def test_the_rounding_is_explained_in_chinese_too():
    with translation.override("zh-hans"):
        preview = build_preview(POLICY_7_3, FLEET, WorkloadInput(11))
    assert "第 11 个" in preview.rounding[0]


def staged(doc, waves):
    doc = copy.deepcopy(doc)
    doc["metadata"]["annotations"] = {"rollout.karmada-ui.io/waves": waves}
    return doc


def test_the_wave_plan_sits_beside_the_split_over_the_clusters_it_places_replicas_on():
    preview = build_preview(staged(POLICY_7_3, "location/region=cn-north; *"), FLEET, WorkloadInput(10))
    assert preview.waves == [
        {"wave": 1, "rule": "location/region=cn-north", "clusters": ["beijing"]},
        {"wave": 2, "rule": "*", "clusters": ["shanghai"]},
    ]
    assert {row.name: row.wave for row in preview.rows} == {"beijing": 1, "shanghai": 2}


def test_a_policy_that_stages_nothing_or_cannot_be_read_shows_no_wave_plan():
    assert build_preview(POLICY_7_3, FLEET, WorkloadInput(10)).waves == []
    assert build_preview(staged(POLICY_7_3, "*; env=prod"), FLEET, WorkloadInput(10)).waves == []
