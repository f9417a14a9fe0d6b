"""The planner end to end: filters with reasons, errors, affinity terms, node claims and explanations."""

import json
from fractions import Fraction

from scheduling.planner import (
    Binding,
    ClusterSnapshot,
    EvictionTask,
    Node,
    Placement,
    ReplicaRequirements,
    ResourceSummary,
    Taint,
    TargetCluster,
    describe,
    plan,
)
from scheduling.planner.placement import NodeClaim

STATIC_7_3 = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["beijing"]}, "weight": 7},
                {"targetCluster": {"clusterNames": ["shanghai"]}, "weight": 3},
            ]
        },
    }
}
DYNAMIC = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {"dynamicWeight": "AvailableReplicas"},
    }
}


def cluster(name, pods=100, **fields):
    return ClusterSnapshot(
        name=name, resource_summary=ResourceSummary(allocatable={"pods": Fraction(pods)}), **fields
    )


def entry(result, name):
    return next(c for c in result.explanation["clusters"] if c["name"] == name)


def test_seed_split_gives_seven_to_three_then_eight_to_three():
    clusters = [cluster("beijing"), cluster("shanghai")]
    placement = Placement.from_dict(STATIC_7_3)
    assert plan(clusters, placement, Binding(replicas=10)).replicas() == {"beijing": 7, "shanghai": 3}
    assert plan(clusters, placement, Binding(replicas=11)).replicas() == {"beijing": 8, "shanghai": 3}


def test_largest_remainder_is_selectable_per_placement():
    clusters = [cluster("a"), cluster("b"), cluster("c")]
    weights = {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": ["a"]}, "weight": 3},
                    {"targetCluster": {"clusterNames": ["b", "c"]}, "weight": 1},
                ]
            },
        }
    }
    webster = plan(clusters, Placement.from_dict(weights), Binding(replicas=3))
    hamilton = plan(clusters, Placement.from_dict(weights, "largest-remainder"), Binding(replicas=3))
    assert webster.replicas() == {"a": 1, "b": 1, "c": 1}
    assert hamilton.replicas() == {"a": 2, "b": 1}
    assert hamilton.explanation["division_method"] == "largest-remainder"


def test_missing_replica_scheduling_means_duplicated():
    result = plan([cluster("a"), cluster("b")], Placement.from_dict({}), Binding(replicas=4))
    assert result.strategy == "Duplicated"
    assert result.replicas() == {"a": 4, "b": 4}


def test_untolerated_taint_excludes_a_cluster_with_the_taint_named():
    gpu = cluster("gpu", taints=(Taint("dedicated", "gpu", "NoSchedule"),))
    result = plan([cluster("cpu"), gpu], Placement.from_dict({}), Binding(replicas=1))
    assert result.replicas() == {"cpu": 1}
    assert entry(result, "gpu")["reasons"][0]["message"] == "taint dedicated=gpu:NoSchedule not tolerated"
    tolerated = Placement.from_dict({"clusterTolerations": [{"key": "dedicated", "operator": "Exists"}]})
    assert plan([cluster("cpu"), gpu], tolerated, Binding(replicas=1)).replicas() == {"cpu": 1, "gpu": 1}


def test_prefer_no_schedule_taints_are_ignored():
    soft = cluster("soft", taints=(Taint("busy", "", "PreferNoSchedule"),))
    assert plan([soft], Placement.from_dict({}), Binding(replicas=1)).replicas() == {"soft": 1}


def test_not_ready_cluster_is_tainted_but_keeps_what_it_already_runs():
    down = cluster("down", ready="False")
    binding = Binding(replicas=2)
    first = plan([cluster("up"), down], Placement.from_dict({}), binding)
    assert first.replicas() == {"up": 2}
    assert "cluster.karmada.io/not-ready:NoSchedule" in entry(first, "down")["reasons"][0]["message"]
    again = plan(
        [cluster("up"), down],
        Placement.from_dict({}),
        Binding(replicas=2, previous=(TargetCluster("down", 2),)),
    )
    assert again.replicas() == {"up": 2, "down": 2}


def test_api_enablement_filters_disabled_and_unknown_apis_but_not_held_clusters():
    apis = frozenset({("apps/v1", "Deployment")})
    clusters = [
        cluster("has", api_enablements=apis, api_enablements_complete=True),
        cluster("lacks", api_enablements=frozenset({("v1", "Pod")}), api_enablements_complete=True),
        cluster("partial", api_enablements=frozenset()),
    ]
    result = plan(clusters, Placement.from_dict({}), Binding(replicas=1))
    assert result.replicas() == {"has": 1}
    assert entry(result, "lacks")["reasons"][0]["code"] == "api_disabled"
    assert entry(result, "partial")["reasons"][0]["code"] == "api_unknown"
    held = plan(
        clusters, Placement.from_dict({}), Binding(replicas=1, previous=(TargetCluster("partial", 1),))
    )
    assert held.replicas() == {"has": 1, "partial": 1}


def test_eviction_and_deletion_remove_candidates():
    clusters = [cluster("a"), cluster("b"), cluster("c", deleting=True)]
    binding = Binding(replicas=2, eviction_tasks=(EvictionTask("b"),))
    result = plan(clusters, Placement.from_dict({}), binding)
    assert result.replicas() == {"a": 2}
    assert entry(result, "b")["reasons"][0]["code"] == "evicting"
    assert entry(result, "c")["reasons"][0]["code"] == "deleting"


def test_no_fit_clears_the_clusters_and_counts_reasons_like_karmada():
    clusters = [cluster("a", labels={"env": "dev"}), cluster("b", labels={"env": "test"})]
    placement = Placement.from_dict(
        {
            "clusterAffinity": {
                "labelSelector": {"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod"]}]}
            }
        }
    )
    result = plan(clusters, placement, Binding(replicas=2, previous=(TargetCluster("a", 2),)))
    assert result.clusters == ()
    assert result.error.reason == "NoClusterFit"
    assert result.error.message == (
        "0/2 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint."
    )
    assert entry(result, "a")["reasons"][0]["message"] == "label env=dev does not match env In (prod)"


def test_not_enough_capacity_keeps_the_previous_result():
    previous = (TargetCluster("a", 3),)
    result = plan(
        [cluster("a", pods=2)], Placement.from_dict(DYNAMIC), Binding(replicas=9, previous=previous)
    )
    assert result.error.reason == "Unschedulable"
    assert result.clusters == previous
    assert any("previous result is kept" in line for line in describe(result.explanation))


def test_max_groups_zero_selects_nothing():
    placement = Placement.from_dict({"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1}]})
    result = plan([cluster("a")], placement, Binding(replicas=1))
    assert result.error.reason == "SchedulerError"
    assert result.error.message == "no clusters available to schedule"


def test_spread_by_label_alone_is_not_supported():
    placement = Placement.from_dict(
        {**DYNAMIC, "spreadConstraints": [{"spreadByLabel": "rack", "maxGroups": 2}]}
    )
    result = plan([cluster("a")], placement, Binding(replicas=1))
    assert result.error.message == "just support cluster and region spread constraint"


def test_field_selector_matches_region_provider_and_zones():
    clusters = [
        cluster("east", region="cn-east", provider="aliyun", zones=("z1", "z2")),
        cluster("west", region="cn-west", provider="aws", zones=("z2",)),
        cluster("bare"),
    ]
    selector = {
        "clusterAffinity": {
            "fieldSelector": {
                "matchExpressions": [
                    {"key": "region", "operator": "NotIn", "values": ["cn-west"]},
                    {"key": "zone", "operator": "In", "values": ["z2"]},
                ]
            }
        }
    }
    result = plan(clusters, Placement.from_dict(selector), Binding(replicas=1))
    assert result.replicas() == {"east": 1}
    assert (
        entry(result, "west")["reasons"][0]["message"]
        == "region cn-west does not match region NotIn (cn-west)"
    )
    assert entry(result, "bare")["reasons"][0]["message"] == "zones [] does not match zone In (z2)"


def test_backup_affinity_term_is_used_and_kept_until_a_fresh_reschedule():
    clusters = [
        cluster("primary", labels={"tier": "main"}, ready="False"),
        cluster("backup", labels={"tier": "spare"}),
    ]
    placement = Placement.from_dict(
        {
            "clusterAffinities": [
                {"affinityName": "main", "labelSelector": {"matchLabels": {"tier": "main"}}},
                {"affinityName": "spare", "labelSelector": {"matchLabels": {"tier": "spare"}}},
            ]
        }
    )
    fell_back = plan(clusters, placement, Binding(replicas=1))
    assert fell_back.observed_affinity == "spare"
    assert fell_back.replicas() == {"backup": 1}
    assert [t["name"] for t in fell_back.explanation["affinity_terms"]] == ["main", "spare"]
    recovered = [cluster("primary", labels={"tier": "main"}), clusters[1]]
    stays = plan(recovered, placement, Binding(replicas=1, observed_affinity="spare"))
    assert stays.observed_affinity == "spare"
    back = plan(recovered, placement, Binding(replicas=1, observed_affinity="spare", fresh=True))
    assert back.observed_affinity == "main"
    assert back.replicas() == {"primary": 1}


def ssd_nodes():
    return (
        Node("ssd-1", labels={"disktype": "ssd"}, allocatable={"cpu": Fraction(4), "pods": Fraction(110)}),
        Node("hdd-1", labels={"disktype": "hdd"}, allocatable={"cpu": Fraction(16), "pods": Fraction(110)}),
        Node("ssd-down", labels={"disktype": "ssd"}, allocatable={"cpu": Fraction(16)}, ready=False),
        Node(
            "ssd-tainted",
            labels={"disktype": "ssd"},
            taints=(Taint("maintenance", "", "NoSchedule"),),
            allocatable={"cpu": Fraction(8)},
        ),
    )


def test_node_claim_limits_capacity_to_matching_nodes():
    summary = ResourceSummary(allocatable={"pods": Fraction(300), "cpu": Fraction(44)})
    with_nodes = ClusterSnapshot("with-nodes", resource_summary=summary, nodes=ssd_nodes())
    without_nodes = ClusterSnapshot("no-nodes", resource_summary=summary)
    requirements = ReplicaRequirements(resource_request={"cpu": Fraction(1)})
    placement = Placement.from_dict(
        {**DYNAMIC, "resource": {"nodeClaim": {"nodeSelector": {"disktype": "ssd"}}}}
    )
    result = plan([with_nodes, without_nodes], placement, Binding(replicas=10, requirements=requirements))
    capacity = entry(result, "with-nodes")["capacity"]
    assert capacity == {"general": 44, "nodes": 4, "eligible_nodes": 1, "total_nodes": 4}
    assert entry(result, "with-nodes")["allocatable"] == 4
    assert entry(result, "no-nodes")["allocatable"] == 44
    tolerant = NodeClaim(node_selector=(("disktype", "ssd"),), tolerations=())
    tolerating = ReplicaRequirements(
        resource_request={"cpu": Fraction(1)},
        node_claim=NodeClaim(
            node_selector=tolerant.node_selector,
            tolerations=Placement.from_dict(
                {"clusterTolerations": [{"key": "maintenance", "operator": "Exists"}]}
            ).cluster_tolerations,
        ),
    )
    widened = plan([with_nodes], Placement.from_dict(DYNAMIC), Binding(replicas=10, requirements=tolerating))
    assert entry(widened, "with-nodes")["allocatable"] == 12


def test_scaling_a_workload_with_requests_to_zero_empties_the_result():
    requirements = ReplicaRequirements(resource_request={"cpu": Fraction(1, 2)})
    result = plan(
        [cluster("a"), cluster("b")], Placement.from_dict({}), Binding(replicas=0, requirements=requirements)
    )
    assert result.ok and result.clusters == ()
    non_workload = plan(
        [cluster("a"), cluster("b")], Placement.from_dict({}), Binding(replicas=0, kind="ConfigMap")
    )
    assert non_workload.replicas() == {"a": 0, "b": 0}


def test_static_weights_drop_unmatched_clusters_and_take_the_largest_rule():
    placement = Placement.from_dict(
        {
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "weightPreference": {
                    "staticWeightList": [
                        {"targetCluster": {"labelSelector": {"matchLabels": {"env": "prod"}}}, "weight": 1},
                        {"targetCluster": {"clusterNames": ["b"]}, "weight": 3},
                    ]
                },
            }
        }
    )
    clusters = [cluster("a", labels={"env": "prod"}), cluster("b", labels={"env": "prod"}), cluster("c")]
    result = plan(clusters, placement, Binding(replicas=8))
    assert result.replicas() == {"a": 2, "b": 6}
    assert entry(result, "b")["weight"] == 3
    assert entry(result, "c")["outcome"] == "selected"


def test_region_spread_picks_the_region_with_room():
    placement = Placement.from_dict(
        {
            **DYNAMIC,
            "spreadConstraints": [
                {"spreadByField": "region", "maxGroups": 1, "minGroups": 1},
                {"spreadByField": "cluster", "maxGroups": 2, "minGroups": 2},
            ],
        }
    )
    clusters = [
        cluster("m1", pods=10, region="R1"),
        cluster("m2", pods=10, region="R1"),
        cluster("m3", pods=5, region="R2"),
        cluster("m4", pods=5, region="R2"),
        cluster("nowhere", pods=50),
    ]
    result = plan(clusters, placement, Binding(replicas=12))
    assert result.replicas() == {"m1": 6, "m2": 6}
    assert result.explanation["selection"]["chosen_regions"] == ["R1"]
    assert entry(result, "nowhere")["reasons"][0]["code"] == "spread_field_missing"


def test_explanation_is_json_and_reads_as_sentences():
    gpu = cluster("guangzhou", taints=(Taint("dedicated", "gpu", "NoSchedule"),))
    result = plan(
        [cluster("beijing"), cluster("shanghai"), gpu], Placement.from_dict(STATIC_7_3), Binding(replicas=11)
    )
    json.dumps(result.explanation)
    text = describe(result.explanation)
    assert "guangzhou is excluded: taint dedicated=gpu:NoSchedule not tolerated." in text
    assert "beijing gets 8 replica(s) (weight 7, room for 100 more)." in text
    assert "Replica 11 went to beijing (priority 0.4667) over shanghai (priority 0.4286)." in text


def test_a_placement_node_claim_does_not_turn_a_config_map_into_a_workload():
    placement = Placement.from_dict({"resource": {"nodeClaim": {"nodeSelector": {"disktype": "ssd"}}}})
    result = plan(
        [cluster("a"), cluster("b")], placement, Binding(replicas=0, api_version="v1", kind="ConfigMap")
    )
    assert result.replicas() == {"a": 0, "b": 0}
