"""Propagation against simulated members: works, Karmada's metadata, drift repair, deletion, conflicts."""

from __future__ import annotations

from pathlib import Path

from clusters.k8s import objects
from scheduling.karmada import names
from scheduling.models import ResourceBinding, ResourceTemplate, Work
from scheduling.services import apply_yaml, delete_template
from tests.support.members import converge, member_object

EXAMPLES = Path(__file__).parent / "examples"
NGINX = (EXAMPLES / "nginx-cluster-names.yaml").read_text()


def deployment(members, cluster, name="nginx", namespace="default"):
    return member_object(members[cluster], "apps/v1", "Deployment", name, namespace)


def test_nginx_runs_in_both_named_clusters_with_karmadas_labels_and_annotations(members):
    apply_yaml(NGINX)
    binding = ResourceBinding.objects.get()
    assert (binding.namespace, binding.name) == ("default", "nginx-deployment")
    assert binding.target_replicas() == {"cluster-01": 2, "cluster-02": 2}
    template = ResourceTemplate.objects.get()
    assert template.policy.name == "nginx-propagation"
    works = {w.cluster_name: w for w in Work.objects.all()}
    assert set(works) == {"cluster-01", "cluster-02"}
    assert works["cluster-01"].namespace == "karmada-es-cluster-01"
    assert works["cluster-01"].name == names.work_name("default", "nginx", "Deployment")
    assert all(w.in_sync for w in works.values())
    for cluster in ("cluster-01", "cluster-02"):
        live = deployment(members, cluster)
        assert live is not None and live["metadata"]["name"] == "nginx"
        labels, annotations = live["metadata"]["labels"], live["metadata"]["annotations"]
        assert labels["app"] == "nginx" and labels[names.MANAGED_LABEL] == "true"
        assert labels[names.RB_PERMANENT_ID] == str(binding.permanent_id)
        assert labels[names.WORK_PERMANENT_ID] == str(works[cluster].permanent_id)
        assert labels[names.PP_PERMANENT_ID] == str(template.policy.permanent_id)
        assert annotations[names.WORK_NAMESPACE] == f"karmada-es-{cluster}"
        assert annotations[names.RB_NAME] == "nginx-deployment"
        assert annotations[names.TEMPLATE_UID] == str(template.uid)
        assert annotations[names.PP_NAME] == "nginx-propagation"
        assert live["spec"]["replicas"] == 2
    assert deployment(members, "cluster-03") is None
    converge()
    binding.refresh_from_db()
    health = {entry["clusterName"]: entry["health"] for entry in binding.aggregated_status}
    assert health == {"cluster-01": "Healthy", "cluster-02": "Healthy"}
    assert {e["clusterName"]: e["status"]["readyReplicas"] for e in binding.aggregated_status} == {
        "cluster-01": 2,
        "cluster-02": 2,
    }
    fully = binding.condition("FullyApplied")
    assert (fully["status"], fully["reason"]) == ("True", "FullyAppliedSuccess")


def test_an_object_deleted_or_edited_by_hand_in_a_member_comes_back(members):
    apply_yaml(NGINX)
    conn = members["cluster-01"].connection()
    objects.delete_object(conn, "apps/v1", "Deployment", "nginx", "default")
    live = deployment(members, "cluster-02")
    live["spec"]["replicas"] = 9
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:hacked"
    objects.replace_object(members["cluster-02"].connection(), live)
    converge()
    assert deployment(members, "cluster-01")["spec"]["replicas"] == 2
    repaired = deployment(members, "cluster-02")
    assert repaired["spec"]["replicas"] == 2
    assert repaired["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"


def test_a_cluster_that_leaves_the_placement_loses_its_copy(members):
    apply_yaml(NGINX)
    apply_yaml(NGINX.replace("      - cluster-02\n", "      - cluster-03\n"))
    assert deployment(members, "cluster-02") is None
    assert deployment(members, "cluster-03") is not None
    assert set(Work.objects.values_list("cluster_name", flat=True)) == {"cluster-01", "cluster-03"}


def test_deleting_a_template_removes_its_binding_works_and_member_copies(members):
    apply_yaml(NGINX)
    delete_template(ResourceTemplate.objects.get(kind="Deployment"))
    converge()
    assert deployment(members, "cluster-01") is None and deployment(members, "cluster-02") is None
    assert not Work.objects.exists() and not ResourceBinding.objects.exists()
    assert not ResourceTemplate.objects.filter(kind="Deployment").exists()


def test_preserved_resources_stay_in_members_without_karmadas_metadata(members):
    apply_yaml(NGINX.replace("  placement:", "  preserveResourcesOnDeletion: true\n  placement:"))
    delete_template(ResourceTemplate.objects.get(kind="Deployment"))
    converge()
    live = deployment(members, "cluster-01")
    assert live is not None
    assert not set(live["metadata"].get("labels") or {}) & set(names.KARMADA_LABELS)
    assert not set(live["metadata"].get("annotations") or {}) & set(names.KARMADA_ANNOTATIONS)
    assert live["metadata"]["labels"]["app"] == "nginx"
    assert not Work.objects.exists()


def test_an_existing_unmanaged_object_is_not_taken_over_unless_the_policy_says_overwrite(members):
    existing = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "web-config", "namespace": "default"},
        "data": {"owner": "someone-else"},
    }
    objects.create_object(members["cluster-01"].connection(), existing)
    policy = """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: config, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: web-config}]
  placement: {clusterAffinity: {clusterNames: [cluster-01]}}
"""
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: default}\n"
    config += "data: {owner: us}\n"
    apply_yaml(config + "---" + policy)
    work = Work.objects.get()
    assert not work.applied and work.applied_reason == "ConflictResolution"
    live = member_object(members["cluster-01"], "v1", "ConfigMap", "web-config")
    assert live["data"] == {"owner": "someone-else"}
    apply_yaml(
        config + "---" + policy.replace("  placement:", "  conflictResolution: Overwrite\n  placement:")
    )
    live = member_object(members["cluster-01"], "v1", "ConfigMap", "web-config")
    assert live["data"] == {"owner": "us"}
    assert live["metadata"]["labels"][names.MANAGED_LABEL] == "true"
    assert Work.objects.get().in_sync


def test_suspended_dispatching_holds_back_works_until_resumed(members):
    suspended = NGINX.replace(
        "  placement:", "  suspension: {dispatchingOnClusters: {clusterNames: [cluster-02]}}\n  placement:"
    )
    apply_yaml(suspended)
    assert deployment(members, "cluster-01") is not None
    assert deployment(members, "cluster-02") is None
    assert Work.objects.get(cluster_name="cluster-02").suspended
    apply_yaml(NGINX)
    assert deployment(members, "cluster-02") is not None


def test_propagate_deps_sends_the_referenced_config_map_along(members):
    text = NGINX.replace(
        "        ports:\n        - containerPort: 80\n",
        "        ports:\n        - containerPort: 80\n"
        "        envFrom:\n        - configMapRef: {name: web-config}\n",
    ).replace("  placement:", "  propagateDeps: true\n  placement:")
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: default}\n"
    config += "data: {a: b}\n---\n"
    apply_yaml(config + text)
    converge()
    for cluster in ("cluster-01", "cluster-02"):
        live = member_object(members[cluster], "v1", "ConfigMap", "web-config")
        assert live is not None and live["data"] == {"a": "b"}
    attached = ResourceBinding.objects.get(name="web-config-configmap")
    assert attached.required_by[0]["name"] == "nginx-deployment"
    assert member_object(members["cluster-03"], "v1", "ConfigMap", "web-config") is None


def test_static_weights_seven_to_three_split_ten_replicas_and_then_eleven(members):
    policy = (EXAMPLES / "static-weights-7-3.yaml").read_text().replace("beijing", "cluster-01")
    policy = policy.replace("shanghai", "cluster-02")
    shop = NGINX.split("---")[0].replace("nginx", "shop").replace("replicas: 2", "replicas: 10")
    apply_yaml(shop + "---\n" + policy)
    assert deployment(members, "cluster-01", "shop")["spec"]["replicas"] == 7
    assert deployment(members, "cluster-02", "shop")["spec"]["replicas"] == 3
    apply_yaml(shop.replace("replicas: 10", "replicas: 11"))
    assert deployment(members, "cluster-01", "shop")["spec"]["replicas"] == 8
    assert deployment(members, "cluster-02", "shop")["spec"]["replicas"] == 3
    binding = ResourceBinding.objects.get()
    assert binding.condition("Scheduled")["status"] == "True"
    assert binding.applied_placement == binding.placement


def test_a_lazy_policy_change_waits_until_the_template_changes(members):
    lazy = NGINX.replace("  placement:", "  activationPreference: Lazy\n  placement:")
    apply_yaml(lazy)
    assert deployment(members, "cluster-02") is not None
    apply_yaml(lazy.replace("      - cluster-02\n", "      - cluster-03\n"))
    converge()
    assert ResourceBinding.objects.get().target_replicas() == {"cluster-01": 2, "cluster-02": 2}
    assert deployment(members, "cluster-03") is None
    apply_yaml(
        lazy.replace("      - cluster-02\n", "      - cluster-03\n").replace("replicas: 2", "replicas: 3")
    )
    assert ResourceBinding.objects.get().target_replicas() == {"cluster-01": 3, "cluster-03": 3}
    assert deployment(members, "cluster-03")["spec"]["replicas"] == 3
