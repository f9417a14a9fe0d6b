"""The newer placement features end to end on the seed fleet: quota, priority, suspension, anti-affinity."""

from __future__ import annotations

from scheduling.models import ResourceBinding
from scheduling.services import apply_yaml
from tests.e2e.test_seed_stories import deployment as member_deployment
from tests.integration.scheduling.test_placement_features import deployment, docs, policy, quota

BY_REGION = {
    "clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}},
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["beijing"]}, "weight": 3},
                {"targetCluster": {"clusterNames": ["shanghai"]}, "weight": 1},
            ]
        },
    },
}
CRITICAL = (
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: critical}\nvalue: 100000\n"
)


def members(fleet, name, namespace="shop"):
    """spec.replicas of the member copies by cluster."""
    found = {}
    for cluster in ("beijing", "shanghai", "guangzhou"):
        live = member_deployment(fleet, cluster, name, namespace)
        if live is not None:
            found[cluster] = live["spec"]["replicas"]
    return found


def binding(name):
    return ResourceBinding.objects.get(name=f"{name}-deployment")


def test_a_quota_refuses_a_split_and_the_members_keep_the_last_allowed_one(fleet):
    apply_yaml(docs(quota("2"), deployment("web", 8), policy("web", BY_REGION)))
    assert members(fleet, "web") == {"beijing": 6, "shanghai": 2}
    apply_yaml(deployment("web", 12))  # 12 x 200m = 2400m of a 2-core quota
    assert binding("web").condition("Scheduled")["reason"] == "QuotaExceeded"
    assert "Over by 400m" in binding("web").condition("Scheduled")["message"]
    assert members(fleet, "web") == {"beijing": 6, "shanghai": 2}


def test_the_higher_priority_workload_is_scheduled_first_and_gets_the_capacity_both_want(
    fleet, api_as, operator
):
    extra = {
        "schedulePriority": {"priorityClassSource": "KubePriorityClass", "priorityClassName": "critical"}
    }
    text = docs(
        CRITICAL,
        quota("2"),
        deployment("batch", 8),
        policy("batch", BY_REGION),
        deployment("checkout", 8),
        policy("checkout", BY_REGION, extra=extra),
    )
    assert api_as(operator).post("/api/v1/apply/", text, content_type="application/yaml").status_code == 200
    assert members(fleet, "checkout") == {"beijing": 6, "shanghai": 2}
    assert members(fleet, "batch") == {}
    listing = api_as(operator).get("/api/v1/workloads/?q=namespace=shop").json()["results"]
    assert {row["name"]: row["schedulePriority"] for row in listing} == {"batch": None, "checkout": 100000}


def test_a_suspended_workload_is_held_where_it_is_until_resumed(fleet, api_as, operator):
    apply_yaml(docs(deployment("web", 4), policy("web", BY_REGION)))
    template_id = binding("web").template_id
    url = f"/api/v1/workloads/{template_id}/suspension/"
    assert api_as(operator).post(url, {"scheduling": True}, format="json").status_code == 200
    apply_yaml(deployment("web", 8))
    assert members(fleet, "web") == {"beijing": 3, "shanghai": 1}
    assert api_as(operator).post(url, {"scheduling": False}, format="json").json()["suspended"] is False
    assert members(fleet, "web") == {"beijing": 6, "shanghai": 2}


def test_an_anti_affinity_group_is_kept_apart_across_the_fleet(fleet):
    placement = {
        "workloadAffinity": {"antiAffinity": {"groupByLabelKey": "ha.group"}},
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}],
    }
    selector = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "labelSelector": {"matchLabels": {"ha.group": "db"}},
    }
    replicas = [deployment(f"db-{i}", 1, labels={"ha.group": "db"}) for i in range(3)]
    apply_yaml(docs(policy("ha", placement, selector=selector), *replicas))
    where = [set(members(fleet, f"db-{i}")) for i in range(3)]
    assert all(len(clusters) == 1 for clusters in where)
    assert set().union(*where) == {"beijing", "shanghai", "guangzhou"}
