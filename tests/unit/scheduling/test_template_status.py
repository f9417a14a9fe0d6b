"""The template's status aggregated from member copies, as Karmada's default AggregateStatus does it."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling.karmada.interpreter import reflect_status
from scheduling.karmada.status import MemberStatus, aggregate_status

NOW = "2026-12-01T10:00:00Z"
LATER = "2026-12-01T10:05:00Z"
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 5}}


def deployment_copy(
    ready: int,
    *,
    generation: int = 1,
    observed: int = 1,
    template_generation: int = 3,
    available: str = "True",
    progressing: str = "NewReplicaSetAvailable",
) -> dict[str, Any]:
    """A member's Deployment as the member serves it, reflected as Karmada collects it."""
    live = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "generation": generation,
            "annotations": {"resourcetemplate.karmada.io/generation": str(template_generation)},
        },
        "spec": {"replicas": ready},
        "status": {
            "observedGeneration": observed,
            "replicas": ready,
            "readyReplicas": ready,
            "availableReplicas": ready,
            "updatedReplicas": ready,
            "conditions": [
                {"type": "Available", "status": available, "reason": "MinimumReplicasAvailable"},
                {"type": "Progressing", "status": "True", "reason": progressing},
            ],
        },
    }
    if progressing == "ProgressDeadlineExceeded":
        live["status"]["conditions"][1]["status"] = "False"
    return reflect_status(live)


def conditions(status: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {c["type"]: (c["status"], c["reason"]) for c in status.get("conditions", [])}


def test_deployment_counts_are_summed_over_members_and_observed_generation_follows_the_template():
    members = [MemberStatus("beijing", deployment_copy(3)), MemberStatus("shanghai", deployment_copy(2))]
    status = aggregate_status(DEPLOYMENT, 3, {}, members, NOW)
    assert status["observedGeneration"] == 3
    assert (status["replicas"], status["readyReplicas"], status["availableReplicas"]) == (5, 5, 5)
    assert status["updatedReplicas"] == 5
    assert "unavailableReplicas" not in status  # zero counts are left out, as Kubernetes does
    assert conditions(status) == {
        "Available": ("True", "MinimumReplicasAvailable"),
        "Progressing": ("True", "NewReplicaSetAvailable"),
    }


@pytest.mark.parametrize(
    ("copy", "why"),
    [
        ({"template_generation": 2}, "a member still holds the copy of an older template"),
        ({"generation": 2, "observed": 1}, "a member's controller has not observed its own spec yet"),
    ],
)
def test_observed_generation_stays_until_every_member_caught_up(copy, why):
    members = [
        MemberStatus("beijing", deployment_copy(3)),
        MemberStatus("shanghai", deployment_copy(2, **copy)),
    ]
    status = aggregate_status(DEPLOYMENT, 3, {"observedGeneration": 2}, members, NOW)
    assert status["observedGeneration"] == 2, why


def test_a_member_that_has_not_reported_holds_observed_generation_back():
    members = [MemberStatus("beijing", deployment_copy(3)), MemberStatus("shanghai", None)]
    status = aggregate_status(DEPLOYMENT, 3, {}, members, NOW)
    assert "observedGeneration" not in status
    assert status["readyReplicas"] == 3
    assert conditions(status)["Available"] == ("False", "MinimumReplicasUnavailable")
    assert "shanghai" in status["conditions"][0]["message"]


def test_a_deadline_exceeded_in_one_member_makes_the_template_stop_progressing():
    members = [
        MemberStatus("beijing", deployment_copy(3)),
        MemberStatus(
            "shanghai", deployment_copy(0, available="False", progressing="ProgressDeadlineExceeded")
        ),
    ]
    status = aggregate_status(DEPLOYMENT, 3, {}, members, NOW)
    assert conditions(status) == {
        "Available": ("False", "MinimumReplicasUnavailable"),
        "Progressing": ("False", "ProgressDeadlineExceeded"),
    }


def test_unchanged_conditions_keep_their_times_so_a_quiet_fleet_writes_nothing():
    members = [MemberStatus("beijing", deployment_copy(3))]
    first = aggregate_status(DEPLOYMENT, 3, {}, members, NOW)
    assert aggregate_status(DEPLOYMENT, 3, first, members, LATER) == first
    flipped = [MemberStatus("beijing", deployment_copy(3, available="False"))]
    available = aggregate_status(DEPLOYMENT, 3, first, flipped, LATER)["conditions"][0]
    assert (available["status"], available["lastTransitionTime"]) == ("False", LATER)


def test_statefulset_and_daemonset_sum_their_own_counts():
    sts = {"kind": "StatefulSet", "status": {"replicas": 2, "readyReplicas": 2, "currentReplicas": 2}}
    members = [
        MemberStatus("a", reflect_status({**sts, "metadata": {"generation": 1}})),
        MemberStatus("b", reflect_status({**sts, "metadata": {"generation": 1}})),
    ]
    status = aggregate_status({"kind": "StatefulSet"}, 1, {}, members, NOW)
    assert (status["replicas"], status["readyReplicas"], status["currentReplicas"]) == (4, 4, 4)
    assert "observedGeneration" not in status  # the copies carry no template generation
    ds = {"kind": "DaemonSet", "status": {"desiredNumberScheduled": 3, "numberReady": 2}}
    members = [MemberStatus("a", reflect_status(ds)), MemberStatus("b", reflect_status(ds))]
    status = aggregate_status({"kind": "DaemonSet"}, 1, {}, members, NOW)
    assert (status["desiredNumberScheduled"], status["numberReady"]) == (6, 4)


def job(**status: Any) -> dict[str, Any]:
    return reflect_status({"kind": "Job", "status": status})


COMPLETE = [{"type": "Complete", "status": "True"}]
FAILED = [{"type": "Failed", "status": "True"}]


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        (
            [job(active=1, startTime="2026-12-01T09:00:00Z"), job(succeeded=2, conditions=COMPLETE)],
            {"active": 1, "succeeded": 2, "startTime": "2026-12-01T09:00:00Z"},
        ),
        (
            [
                job(succeeded=1, conditions=COMPLETE, completionTime="2026-12-01T09:10:00Z"),
                job(succeeded=2, conditions=COMPLETE, completionTime="2026-12-01T09:20:00Z"),
            ],
            {"succeeded": 3, "completionTime": "2026-12-01T09:20:00Z", "Complete": "Completed"},
        ),
        (
            [job(failed=1, conditions=FAILED), job(active=1)],
            {"active": 1, "failed": 1, "Failed": "JobFailed"},
        ),
    ],
    ids=["running", "complete everywhere", "failed in one"],
)
def test_job_status_counts_and_finish_conditions(members, expected):
    items = [MemberStatus(f"m{i}", status) for i, status in enumerate(members)]
    status = aggregate_status({"kind": "Job"}, 1, {}, items, NOW)
    found = {key: value for key, value in status.items() if key != "conditions"}
    found.update({c["type"]: c["reason"] for c in status.get("conditions", [])})
    assert found == expected


def test_a_finished_job_is_never_updated_again():
    finished = {"succeeded": 2, "conditions": [{"type": "Complete", "status": "True", "reason": "Completed"}]}
    assert aggregate_status({"kind": "Job"}, 1, finished, [MemberStatus("a", job(active=5))], NOW) == finished


def test_load_balancer_ingress_points_are_named_by_cluster_and_plain_services_keep_no_status():
    lb = {"kind": "Service", "spec": {"type": "LoadBalancer"}}
    member = reflect_status(
        {"kind": "Service", "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.1"}]}}}
    )
    status = aggregate_status(lb, 1, {}, [MemberStatus("beijing", member)], NOW)
    assert status == {"loadBalancer": {"ingress": [{"hostname": "beijing", "ip": "10.0.0.1"}]}}
    plain = {"kind": "Service", "spec": {"type": "ClusterIP"}}
    assert aggregate_status(plain, 1, {}, [MemberStatus("beijing", member)], NOW) == {}


@pytest.mark.parametrize(
    ("phases", "expected"),
    [
        (["Running", "Succeeded"], "Running"),
        (["Running", None], "Pending"),
        (["Running", "Failed", "Pending"], "Failed"),
        (["Succeeded", "Succeeded"], "Succeeded"),
    ],
)
def test_a_pod_shows_the_worst_phase_of_its_members(phases, expected):
    items = [MemberStatus(str(i), None if p is None else {"phase": p}) for i, p in enumerate(phases)]
    assert aggregate_status({"kind": "Pod"}, 1, {}, items, NOW) == {"phase": expected}


def test_kinds_without_an_aggregation_and_unscheduled_templates_keep_their_status():
    old = {"note": "kept"}
    members = [MemberStatus("a", {})]
    assert aggregate_status({"kind": "ConfigMap"}, 1, old, members, NOW) == old
    assert aggregate_status(DEPLOYMENT, 1, old, [], NOW) == old
