"""Quota, priority, suspension and workload groups through apply, the scheduler and simulated members."""

from __future__ import annotations

import pytest
import yaml

from core.models import AuditEntry
from scheduling.controllers.apply import ApplyError
from scheduling.controllers.export import export_documents, to_yaml
from scheduling.models import Event, FederatedResourceQuota, ResourceBinding, Work
from scheduling.services import DISPATCHING, SCHEDULING, apply_yaml, set_hold
from tests.support.members import converge, member_object


def deployment(name, replicas, cpu="200m", labels=None, namespace="shop"):
    labels = {"app": name, **(labels or {})}
    return yaml.safe_dump(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {
                        "containers": [
                            {"name": "app", "image": "nginx:1.27", "resources": {"requests": {"cpu": cpu}}}
                        ]
                    },
                },
            },
        }
    )


def policy(name, placement, selector=None, namespace="shop", extra=None):
    spec = {
        "resourceSelectors": [selector or {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}],
        "placement": placement,
        **(extra or {}),
    }
    return yaml.safe_dump(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "PropagationPolicy",
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
        }
    )


def quota(cpu, name="team", namespace="shop"):
    return yaml.safe_dump(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "FederatedResourceQuota",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"overall": {"cpu": cpu, "memory": "8Gi"}},
        }
    )


SPLIT = {
    "clusterAffinity": {"clusterNames": ["cluster-01", "cluster-02"]},
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["cluster-01"]}, "weight": 1},
                {"targetCluster": {"clusterNames": ["cluster-02"]}, "weight": 1},
            ]
        },
    },
}


def docs(*parts):
    return "\n---\n".join(parts)


def live_replicas(members, name, namespace="shop"):
    found = {}
    for cluster, row in members.items():
        live = member_object(row, "apps/v1", "Deployment", name, namespace)
        if live is not None:
            found[cluster] = live["spec"]["replicas"]
    return found


def binding_of(name):
    return ResourceBinding.objects.get(name=f"{name}-deployment")


# ------------------------------------------------------------------------------------------- quota


def test_a_quota_refuses_a_scale_up_with_what_is_over_and_keeps_the_split_in_the_members(members):
    apply_yaml(docs(quota("1"), deployment("web", 4), policy("web", SPLIT)))
    assert binding_of("web").target_replicas() == {"cluster-01": 2, "cluster-02": 2}
    apply_yaml(deployment("web", 6))
    binding = binding_of("web")
    assert binding.replicas == 6
    assert binding.target_replicas() == {"cluster-01": 2, "cluster-02": 2}
    condition = binding.condition("Scheduled")
    assert (condition["status"], condition["reason"]) == ("False", "QuotaExceeded")
    assert condition["message"] == (
        "FederatedResourceQuota(shop/team) exceeded for resource cpu: requested sum 1200m, limit 1. "
        "Over by 200m."
    )
    assert live_replicas(members, "web") == {"cluster-01": 2, "cluster-02": 2}
    event = Event.objects.filter(reason="ScheduleBindingFailed").first()
    assert any("200m over" in line for line in event.data["sentences"])
    document = next(d for d in export_documents() if d["kind"] == "FederatedResourceQuota")
    assert document["status"] == {"overall": {"cpu": "1", "memory": "8Gi"}, "overallUsed": {"cpu": "800m"}}

    apply_yaml(quota("2"))  # raising the limit lets the refused scale-up through
    assert binding_of("web").target_replicas() == {"cluster-01": 3, "cluster-02": 3}
    assert binding_of("web").condition("Scheduled")["reason"] == "Success"
    assert live_replicas(members, "web") == {"cluster-01": 3, "cluster-02": 3}


def test_a_new_workload_over_the_quota_is_not_placed_and_lowering_a_quota_moves_nothing(members):
    apply_yaml(docs(quota("1"), deployment("web", 4), policy("web", SPLIT)))
    apply_yaml(docs(deployment("api", 2), policy("api", SPLIT)))
    api = binding_of("api")
    assert api.clusters == []
    assert api.condition("Scheduled")["reason"] == "QuotaExceeded"
    assert live_replicas(members, "api") == {}
    apply_yaml(quota("500m"))
    converge()
    assert binding_of("web").target_replicas() == {"cluster-01": 2, "cluster-02": 2}
    assert live_replicas(members, "web") == {"cluster-01": 2, "cluster-02": 2}


def test_a_request_change_that_would_exceed_the_quota_is_held_back_by_the_detector(members):
    apply_yaml(docs(quota("1"), deployment("web", 4), policy("web", SPLIT)))
    apply_yaml(deployment("web", 4, cpu="300m"))
    binding = binding_of("web")
    assert binding.replica_requirements["resourceRequest"] == {"cpu": "200m"}
    event = Event.objects.filter(reason="ApplyPolicyFailed").first()
    assert "QuotaExceeded" in event.message and "requested sum 1200m" in event.message


def test_quotas_and_workloads_in_other_namespaces_do_not_count(members):
    apply_yaml(docs(quota("1", namespace="billing"), deployment("web", 8), policy("web", SPLIT)))
    assert sum(binding_of("web").target_replicas().values()) == 8


@pytest.mark.parametrize(
    ("spec", "field", "reason"),
    [
        ({}, "spec.overall", "is required"),
        ({"overall": {"cpu": "lots"}}, "spec.overall[cpu]", "quantity"),
        ({"overall": {"cpu": "-1"}}, "spec.overall[cpu]", "greater than or equal to 0"),
        ({"overall": {"gpus": "1"}}, "spec.overall[gpus]", "standard resource for quota"),
        ({"overall": {"pods": "1500m"}}, "spec.overall[pods]", "must be an integer"),
        (
            {"overall": {"cpu": "1"}, "staticAssignments": [{"clusterName": "a", "hard": {"cpu": "2"}}]},
            "spec.overall[cpu]",
            "overall is less than assignments",
        ),
        (
            {"overall": {"cpu": "1"}, "staticAssignments": [{"clusterName": "a", "hard": {"memory": "1Gi"}}]},
            "spec.staticAssignments[0].hard[memory]",
            "not exist in overall",
        ),
        (
            {"overall": {"cpu": "1"}, "staticAssignments": [{"hard": {}}]},
            "spec.staticAssignments[0].clusterName",
            "",
        ),
    ],
)
def test_a_bad_quota_is_refused_with_the_field_and_the_reason(db, spec, field, reason):
    text = yaml.safe_dump(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "FederatedResourceQuota",
            "metadata": {"name": "q", "namespace": "shop"},
            "spec": spec,
        }
    )
    with pytest.raises(ApplyError) as caught:
        apply_yaml(text)
    assert caught.value.field == field
    assert reason in caught.value.reason
    assert not FederatedResourceQuota.objects.exists()


def test_a_quota_round_trips_through_export_and_apply(db):
    text = yaml.safe_dump(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "FederatedResourceQuota",
            "metadata": {"name": "team", "namespace": "shop", "labels": {"owner": "shop"}},
            "spec": {
                "overall": {"cpu": "20", "memory": "40Gi"},
                "staticAssignments": [{"clusterName": "cluster-01", "hard": {"cpu": "10"}}],
            },
        }
    )
    assert [o.action for o in apply_yaml(text).objects] == ["created"]
    exported = to_yaml(d for d in export_documents() if d["kind"] == "FederatedResourceQuota")
    again = apply_yaml(exported)
    assert [o.action for o in again.objects] == ["unchanged"]
    document = yaml.safe_load(exported)
    assert document["metadata"]["labels"] == {"owner": "shop"}
    assert document["status"] == {"overall": {"cpu": "20", "memory": "40Gi"}, "overallUsed": {}}


# ----------------------------------------------------------------------------------------- priority

HIGH = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"


def test_a_policy_naming_a_missing_priority_class_waits_for_it(members):
    extra = {"schedulePriority": {"priorityClassSource": "KubePriorityClass", "priorityClassName": "high"}}
    apply_yaml(docs(deployment("web", 2), policy("web", SPLIT, extra=extra)))
    assert not ResourceBinding.objects.exists()
    event = Event.objects.get(reason="ApplyPolicyFailed")
    assert 'priorityclasses.scheduling.k8s.io "high" not found' in event.message
    apply_yaml(HIGH)
    binding = binding_of("web")
    assert binding.schedule_priority == 1000
    assert binding.target_replicas() == {"cluster-01": 1, "cluster-02": 1}
    exported = next(d for d in export_documents() if d["kind"] == "ResourceBinding")
    assert exported["spec"]["schedulePriority"] == {"priority": 1000}


def test_the_queue_schedules_the_higher_priority_first_so_it_wins_the_last_quota(members):
    extra = {"schedulePriority": {"priorityClassSource": "KubePriorityClass", "priorityClassName": "high"}}
    # low is created first, yet high is scheduled first and takes the quota both want
    apply_yaml(
        docs(
            HIGH,
            quota("1"),
            deployment("low", 4),
            policy("low", SPLIT),
            deployment("high", 4),
            policy("high", SPLIT, extra=extra),
        )
    )
    assert binding_of("high").target_replicas() == {"cluster-01": 2, "cluster-02": 2}
    assert binding_of("low").clusters == []
    assert binding_of("low").condition("Scheduled")["reason"] == "QuotaExceeded"


def test_a_priority_class_value_out_of_range_is_refused(db):
    with pytest.raises(ApplyError) as caught:
        apply_yaml(HIGH.replace("1000", "2000000000"))
    assert caught.value.field == "value"


# --------------------------------------------------------------------------------------- suspension


def test_a_workload_whose_scheduling_is_paused_is_held_until_resumed(members, operator):
    apply_yaml(docs(deployment("web", 2), policy("web", SPLIT)))
    set_hold(binding_of("web"), SCHEDULING, True, user=operator)
    apply_yaml(deployment("web", 6))
    converge()
    binding = binding_of("web")
    assert binding.suspension == {"scheduling": True}
    assert binding.target_replicas() == {"cluster-01": 1, "cluster-02": 1}
    assert live_replicas(members, "web") == {"cluster-01": 1, "cluster-02": 1}
    set_hold(binding, SCHEDULING, False, user=operator)
    assert binding_of("web").target_replicas() == {"cluster-01": 3, "cluster-02": 3}
    assert live_replicas(members, "web") == {"cluster-01": 3, "cluster-02": 3}
    actions = list(AuditEntry.objects.filter(object_name="web").values_list("action", "username"))
    assert ("pause-scheduling", "otto-operator") in actions
    assert ("resume-scheduling", "otto-operator") in actions


def test_dispatching_paused_on_one_cluster_keeps_its_copy_while_the_other_follows(members, operator):
    apply_yaml(docs(deployment("web", 2), policy("web", SPLIT)))
    set_hold(binding_of("web"), DISPATCHING, True, cluster="cluster-02", user=operator)
    apply_yaml(deployment("web", 4))
    assert binding_of("web").suspension == {"dispatchingOnClusters": {"clusterNames": ["cluster-02"]}}
    assert Work.objects.get(cluster_name="cluster-02").suspended
    assert live_replicas(members, "web") == {"cluster-01": 2, "cluster-02": 1}
    set_hold(binding_of("web"), DISPATCHING, False, cluster="cluster-02", user=operator)
    assert live_replicas(members, "web") == {"cluster-01": 2, "cluster-02": 2}


def test_resuming_never_lifts_the_policys_own_suspension_and_the_detector_keeps_the_holds(members):
    extra = {"suspension": {"dispatchingOnClusters": {"clusterNames": ["cluster-01"]}}}
    apply_yaml(docs(deployment("web", 2), policy("web", SPLIT, extra=extra)))
    binding = binding_of("web")
    set_hold(binding, SCHEDULING, True)
    set_hold(binding_of("web"), DISPATCHING, True, cluster="cluster-02")
    apply_yaml(docs(deployment("web", 2, labels={"tier": "front"})))  # the detector runs again
    assert binding_of("web").suspension == {
        "dispatchingOnClusters": {"clusterNames": ["cluster-01", "cluster-02"]},
        "scheduling": True,
    }
    result = set_hold(binding_of("web"), DISPATCHING, False)
    assert result.policy_suspension == extra["suspension"]
    assert binding_of("web").suspension == {
        "dispatchingOnClusters": {"clusterNames": ["cluster-01"]},
        "scheduling": True,
    }


def test_a_hold_on_something_else_than_scheduling_or_dispatching_is_refused(members):
    apply_yaml(docs(deployment("web", 2), policy("web", SPLIT)))
    with pytest.raises(ValueError, match="what must be"):
        set_hold(binding_of("web"), "propagation", True)
    with pytest.raises(ValueError, match="not per cluster"):
        set_hold(binding_of("web"), SCHEDULING, True, cluster="cluster-01")


# ---------------------------------------------------------------------------------- workload groups

ONE_CLUSTER = [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]


def test_an_anti_affinity_group_keeps_its_workloads_on_different_clusters(members):
    placement = {
        "workloadAffinity": {"antiAffinity": {"groupByLabelKey": "ha.group"}},
        "spreadConstraints": ONE_CLUSTER,
    }
    selector = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "labelSelector": {"matchLabels": {"ha.group": "db"}},
    }
    apply_yaml(
        docs(
            policy("ha", placement, selector=selector),
            deployment("db-a", 1, labels={"ha.group": "db"}),
            deployment("db-b", 1, labels={"ha.group": "db"}),
            deployment("db-c", 1, labels={"ha.group": "db"}),
        )
    )
    placed = [set(binding_of(name).target_replicas()) for name in ("db-a", "db-b", "db-c")]
    assert all(len(clusters) == 1 for clusters in placed)
    assert len(set().union(*placed)) == 3
    assert binding_of("db-a").workload_affinity_groups == {"antiAffinityGroup": "ha.group=db"}
    apply_yaml(deployment("db-d", 1, labels={"ha.group": "db"}))
    fourth = binding_of("db-d")
    assert fourth.clusters == [] and fourth.condition("Scheduled")["reason"] == "NoClusterFit"
    assert (
        "cluster already has workload with the same anti-affinity group"
        in fourth.condition("Scheduled")["message"]
    )


def test_an_affinity_group_follows_its_first_scheduled_member(members):
    placement = {
        "workloadAffinity": {"affinity": {"groupByLabelKey": "app.group"}},
        "spreadConstraints": ONE_CLUSTER,
    }
    selector = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "labelSelector": {"matchLabels": {"app.group": "shop"}},
    }
    apply_yaml(
        docs(
            policy("together", placement, selector=selector),
            deployment("front", 1, labels={"app.group": "shop"}),
        )
    )
    first = set(binding_of("front").target_replicas())
    apply_yaml(deployment("cart", 1, labels={"app.group": "shop"}))
    assert set(binding_of("cart").target_replicas()) == first
    exported = next(d for d in export_documents() if d.get("metadata", {}).get("name") == "cart-deployment")
    assert exported["spec"]["workloadAffinityGroups"] == {"affinityGroup": "app.group=shop"}
