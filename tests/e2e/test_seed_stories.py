"""The seed's stories end to end: simulated clusters joined and collected, YAML applied, members checked."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from clusters.k8s import objects
from clusters.services import add_taint
from scheduling.controllers import rescheduling
from scheduling.karmada import names
from scheduling.models import Event, ResourceBinding
from scheduling.services import apply_yaml
from tests.support.clock import SteppedClock
from tests.support.members import converge

NGINX = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: nginx, namespace: default, labels: {app: nginx}}
spec:
  replicas: 2
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers: [{name: nginx, image: "nginx:1.27"}]
"""


def deployment(fleet, cluster, name, namespace="default"):
    try:
        return objects.get_object(
            fleet.cluster(cluster).connection(), "apps/v1", "Deployment", name, namespace
        )
    except objects.NotFound:
        return None


def replicas(fleet, name, namespace="default"):
    """spec.replicas of the member copies, by cluster (absent clusters left out)."""
    found = {}
    for cluster in ("beijing", "shanghai", "guangzhou"):
        live = deployment(fleet, cluster, name, namespace)
        if live is not None:
            found[cluster] = live["spec"]["replicas"]
    return found


def policy(name, placement, namespace="default", selector_name=None, extra=""):
    return f"""
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: {selector_name or name}}}]
{extra}  placement:
{placement}
"""


def test_nginx_applied_through_the_api_runs_in_both_named_clusters_with_karmadas_labels(
    fleet, api_as, operator
):
    text = NGINX + "---" + policy("nginx", "    clusterAffinity: {clusterNames: [beijing, shanghai]}")
    response = api_as(operator).post("/api/v1/apply/", text, content_type="application/yaml")
    assert response.status_code == 200
    assert replicas(fleet, "nginx") == {"beijing": 2, "shanghai": 2}
    live = deployment(fleet, "beijing", "nginx")
    assert live["metadata"]["labels"][names.MANAGED_LABEL] == "true"
    assert live["metadata"]["annotations"][names.WORK_NAMESPACE] == "karmada-es-beijing"
    pods = fleet.sim.cluster("beijing").store
    assert pods is not None
    fleet.collect()
    converge()
    listed = api_as(operator).get("/api/v1/workloads/").json()["results"][0]
    assert listed["summary"]["healthy"] == 2 and listed["summary"]["ready"] == 4
    detail = api_as(operator).get(f"/api/v1/workloads/{listed['id']}/").json()
    assert {c["cluster"]: (c["ready"], c["health"]) for c in detail["clusters"]} == {
        "beijing": (2, "Healthy"),
        "shanghai": (2, "Healthy"),
    }


def test_env_prod_selects_only_the_prod_clusters(fleet):
    placement = "    clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}"
    apply_yaml(NGINX + "---" + policy("nginx", placement))
    assert replicas(fleet, "nginx") == {"beijing": 2, "shanghai": 2}


def test_seven_to_three_weights_give_7_3_for_ten_replicas_and_8_3_after_scaling_to_eleven(fleet):
    placement = """    clusterAffinity: {clusterNames: [beijing, shanghai]}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - {targetCluster: {clusterNames: [beijing]}, weight: 7}
        - {targetCluster: {clusterNames: [shanghai]}, weight: 3}"""
    shop = NGINX.replace("nginx", "shop").replace("replicas: 2", "replicas: 10")
    apply_yaml(shop + "---" + policy("shop", placement))
    assert replicas(fleet, "shop") == {"beijing": 7, "shanghai": 3}
    apply_yaml(shop.replace("replicas: 10", "replicas: 11"))
    assert replicas(fleet, "shop") == {"beijing": 8, "shanghai": 3}


FINANCE_PLACEMENT = """    clusterAffinity: {clusterNames: [beijing, shanghai]}
    spreadConstraints:
    - {spreadByField: region, maxGroups: 1}
    - {spreadByField: cluster, maxGroups: 1}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference: {dynamicWeight: AvailableReplicas}
    resource:
      nodeClaim:
        nodeSelector: {disk-type: ssd}"""
LEDGER = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: ledger, namespace: finance}
spec:
  replicas: 6
  selector: {matchLabels: {app: ledger}}
  template:
    metadata: {labels: {app: ledger}}
    spec:
      containers: [{name: ledger, image: "ledger:2.3", resources: {requests: {cpu: "2", memory: 1Gi}}}]
"""


def test_the_finance_policy_counts_only_ssd_nodes(fleet):
    # 9 replicas of 2 CPUs: beijing's 5 nodes could hold 20, but its 2 SSD nodes hold only 8
    apply_yaml(
        LEDGER.replace("replicas: 6", "replicas: 9")
        + "---"
        + policy("ledger", FINANCE_PLACEMENT, namespace="finance")
    )
    binding = ResourceBinding.objects.get(name="ledger-deployment")
    assert binding.condition("Scheduled")["status"] == "False"
    assert (
        binding.condition("Scheduled")["message"]
        == "Clusters available replicas 8 are not enough to schedule."
    )
    assert replicas(fleet, "ledger", "finance") == {}
    apply_yaml(LEDGER)
    assert replicas(fleet, "ledger", "finance") == {"beijing": 6}
    explanation = Event.objects.filter(object_uid=str(binding.permanent_id), reason="ScheduleBindingSucceed")
    clusters = {c["name"]: c for c in explanation.first().data["plan"]["explanation"]["clusters"]}
    assert clusters["beijing"]["capacity"]["eligible_nodes"] == 2
    assert clusters["beijing"]["allocatable"] == 8
    assert clusters["shanghai"]["allocatable"] == 4
    assert clusters["shanghai"]["outcome"] == "not_selected"  # one region only


HOT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: default}
spec:
  replicas: 10
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: "api:1", resources: {requests: {cpu: "3", memory: 1Gi}}}]
"""
HOT_PLACEMENT = """    clusterAffinity: {clusterNames: [beijing, shanghai]}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}
    reschedulePolicy:
      enable: true
      policy: {minCandidateClusters: 1}
      trigger: {duration: 5m, threshold: 80}"""


def test_a_cluster_held_above_80_percent_cpu_for_the_trigger_duration_sheds_replicas(fleet):
    apply_yaml(HOT + "---" + policy("api", HOT_PLACEMENT))
    assert replicas(fleet, "api") == {"beijing": 10}
    fleet.sim.control("beijing", "load", 1.5)
    start = timezone.now()
    clock = SteppedClock(start)
    for step in (0, 150, 150):  # collected at 0, 150 and 300 seconds
        clock.advance(step)
        fleet.collect(clock)
    assert not rescheduling.rebalance_by_load(start + timedelta(seconds=200))  # not hot for 5 minutes yet
    assert rescheduling.rebalance_by_load(start + timedelta(seconds=301))
    converge()
    # 10 x 3 CPU on 40 CPUs runs at 100%; 3 replicas off bring the requests to 21 of 40, under 80%
    assert replicas(fleet, "api") == {"beijing": 7, "shanghai": 3}
    event = Event.objects.get(reason="RescheduleByLoad")
    assert "moved 3 replica(s) off beijing" in event.message and "shanghai +1" not in event.message
    assert event.data["to"] == {"shanghai": 3}
    clock.advance(20)
    fleet.collect(clock)
    assert not rescheduling.rebalance_by_load(start + timedelta(seconds=330))  # one move per duration


DIVIDED_NGINX = """    clusterAffinity: {clusterNames: [beijing, shanghai]}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference: {dynamicWeight: AvailableReplicas}"""


def test_a_no_execute_taint_moves_replicas_gracefully(fleet):
    web = NGINX.replace("replicas: 2", "replicas: 4")
    apply_yaml(web + "---" + policy("nginx", DIVIDED_NGINX))
    before = replicas(fleet, "nginx")
    assert set(before) == {"beijing", "shanghai"} and sum(before.values()) == 4
    add_taint(fleet.cluster("shanghai"), "maintenance", "", "NoExecute")
    converge(rounds=1)
    binding = ResourceBinding.objects.get(name="nginx-deployment")
    assert binding.target_replicas() == {"beijing": 4}
    assert [t["fromCluster"] for t in binding.graceful_eviction_tasks] == ["shanghai"]
    assert replicas(fleet, "nginx") == {"beijing": 4, "shanghai": before["shanghai"]}  # the old copy stays
    fleet.collect()
    converge(rounds=2)
    binding.refresh_from_db()
    assert binding.graceful_eviction_tasks == []
    assert replicas(fleet, "nginx") == {"beijing": 4}


def test_a_directly_purged_eviction_removes_the_old_copy_at_once(fleet):
    web = NGINX.replace("replicas: 2", "replicas: 4")
    extra = "  failover: {cluster: {purgeMode: Directly}}\n"
    apply_yaml(web + "---" + policy("nginx", DIVIDED_NGINX, extra=extra))
    add_taint(fleet.cluster("shanghai"), "maintenance", "", "NoExecute")
    converge(rounds=1)
    assert replicas(fleet, "nginx") == {"beijing": 4}


def test_a_tolerated_no_execute_taint_evicts_only_after_toleration_seconds(fleet):
    extra = ""
    placement = (
        DIVIDED_NGINX
        + """
    clusterTolerations: [{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}]"""
    )
    apply_yaml(NGINX.replace("replicas: 2", "replicas: 4") + "---" + policy("nginx", placement, extra=extra))
    add_taint(fleet.cluster("shanghai"), "maintenance", "", "NoExecute")
    converge(rounds=1)
    assert "shanghai" in ResourceBinding.objects.get().target_replicas()
    from scheduling.controllers import failover

    assert failover.run_taint_manager(timezone.now() + timedelta(seconds=61))
    assert "shanghai" not in ResourceBinding.objects.get().target_replicas()
