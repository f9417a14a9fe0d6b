"""Reading Karmada YAML: policy matching like the detector, workloads like the default interpreter."""

from fractions import Fraction

import pytest

from scheduling.karmada.documents import DocumentError, load_documents, match_policy, read_inputs

WORKLOAD = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  template:
    spec:
      nodeSelector: {disktype: ssd}
      initContainers:
        - name: init
          resources: {requests: {cpu: "2"}}
      containers:
        - name: a
          resources: {requests: {cpu: 250m, memory: 1Gi}}
        - name: b
          resources: {limits: {cpu: 500m, memory: 512Mi}}
"""


def policy(kind, name, selector, priority=0, namespace="shop"):
    meta = f"{{name: {name}, namespace: {namespace}}}" if kind == "PropagationPolicy" else f"{{name: {name}}}"
    return f"""
apiVersion: policy.karmada.io/v1alpha1
kind: {kind}
metadata: {meta}
spec:
  priority: {priority}
  resourceSelectors: [{selector}]
  placement: {{}}
"""


def chosen(*policies):
    text = "\n---\n".join([WORKLOAD, *policies])
    inputs = read_inputs(load_documents("input.yaml", text))
    match = match_policy(inputs.policies, inputs.workload)
    return match.name if match else None


KIND = "{apiVersion: apps/v1, kind: Deployment}"
NAME = "{apiVersion: apps/v1, kind: Deployment, name: web}"
LABEL = "{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {app: web}}}"


def test_workload_replicas_and_requests_are_read_like_karmada():
    inputs = read_inputs(load_documents("w.yaml", WORKLOAD))
    workload = inputs.workload
    assert workload.replicas == 1
    assert workload.requirements.resource_request == {
        "cpu": Fraction(2),
        "memory": Fraction(2**30 + 2**29),
    }
    assert workload.requirements.node_claim.node_selector == (("disktype", "ssd"),)


def test_name_match_beats_label_match_beats_kind_match():
    assert (
        chosen(policy("PropagationPolicy", "by-kind", KIND), policy("PropagationPolicy", "by-label", LABEL))
        == "by-label"
    )
    assert (
        chosen(policy("PropagationPolicy", "by-label", LABEL), policy("PropagationPolicy", "by-name", NAME))
        == "by-name"
    )


def test_priority_beats_specificity_and_name_breaks_ties():
    assert (
        chosen(policy("PropagationPolicy", "z-high", KIND, 5), policy("PropagationPolicy", "a-low", NAME))
        == "z-high"
    )
    assert chosen(policy("PropagationPolicy", "b", KIND), policy("PropagationPolicy", "a", KIND)) == "a"


def test_any_matching_propagation_policy_beats_cluster_policies():
    assert (
        chosen(policy("ClusterPropagationPolicy", "c", NAME, 100), policy("PropagationPolicy", "p", KIND))
        == "p"
    )
    assert chosen(policy("ClusterPropagationPolicy", "c", NAME)) == "c"


def test_propagation_policy_in_another_namespace_does_not_match():
    assert chosen(policy("PropagationPolicy", "other", KIND, namespace="default")) is None


def test_selector_for_another_namespace_is_rejected_in_a_propagation_policy():
    bad = policy("PropagationPolicy", "p", "{apiVersion: apps/v1, kind: Deployment, namespace: other}")
    with pytest.raises(DocumentError, match=r"spec.resourceSelectors\[0\].namespace"):
        chosen(bad)


def test_job_replicas_are_parallelism_capped_by_completions():
    job = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 5, completions: 3}\n"
    assert read_inputs(load_documents("j.yaml", job)).workload.replicas == 3


NODE_AFFINITY = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: db}
spec:
  replicas: 3
  template:
    spec:
      tolerations: [{key: dedicated, operator: Equal, value: db, effect: NoSchedule}]
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: cores, operator: Gt, values: ["8"]}
      containers:
        - name: db
          resources: {requests: {cpu: "2"}}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m1}
status:
  resourceSummary: {allocatable: {cpu: "100", pods: "100"}}
  nodes:
    - {name: small, labels: {cores: "8"}, allocatable: {cpu: "8", pods: "10"}}
    - name: big-dedicated
      labels: {cores: "16"}
      taints: [{key: dedicated, value: db, effect: NoSchedule}]
      allocatable: {cpu: "16", pods: "10"}
      allocated: {cpu: "4"}
    - name: big-other
      labels: {cores: "32"}
      taints: [{key: dedicated, value: ml, effect: NoSchedule}]
      allocatable: {cpu: "32", pods: "10"}
"""


def test_pod_template_affinity_and_tolerations_limit_the_node_estimate():
    from scheduling.karmada.documents import binding_for
    from scheduling.planner import Placement, plan

    inputs = read_inputs(load_documents("db.yaml", NODE_AFFINITY))
    placement = Placement.from_dict(
        {"replicaScheduling": {"replicaDivisionPreference": "Aggregated", "replicaSchedulingType": "Divided"}}
    )
    result = plan(inputs.clusters, placement, binding_for(inputs.workload, inputs.previous, False))
    capacity = result.explanation["clusters"][0]["capacity"]
    assert capacity == {"general": 50, "nodes": 6, "eligible_nodes": 1, "total_nodes": 3}
    assert result.replicas() == {"m1": 3}


def test_a_namespace_beside_the_workload_is_not_taken_for_it():
    text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n" + WORKLOAD
    assert read_inputs(load_documents("w.yaml", text)).workload.name == "web"


def pod_template(spec: str) -> str:
    head = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
    return f"{head}spec:\n  replicas: 2\n  template:\n    spec: {spec}\n"


# Karmada's TestGenerateReplicaRequirements and TestGenerateNodeClaimByPodSpec (pkg/util/helper).
@pytest.mark.parametrize(
    ("spec", "requests", "selector", "tolerations", "has_affinity"),
    [
        ("{}", None, None, None, None),
        ("{nodeSelector: {disktype: ssd}}", {}, (("disktype", "ssd"),), 0, False),
        ("{nodeSelector: {}}", {}, (), 0, False),
        ("{tolerations: [{key: key1, operator: Exists}]}", {}, (), 1, False),
        (
            "{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
            "{nodeSelectorTerms: [{matchFields: [{key: foo, operator: Exists}]}]}}}}",
            {},
            (),
            0,
            True,
        ),
        ("{affinity: {nodeAffinity: {}}}", None, None, None, None),
        (
            "{containers: [{name: c, resources: {limits: {cpu: 200m}}}]}",
            {"cpu": Fraction(1, 5)},
            None,
            None,
            None,
        ),
        (
            "{containers: [{name: c, resources: {requests: {cpu: 1m, example.com/gpu: 1}}}]}",
            {"cpu": Fraction(1, 1000), "example.com/gpu": Fraction(1)},
            None,
            None,
            None,
        ),
    ],
)
def test_replica_requirements_follow_karmadas_generate_replica_requirements(
    spec, requests, selector, tolerations, has_affinity
):
    workload = read_inputs(load_documents("d.yaml", pod_template(spec))).workload
    assert workload.replicas == 2
    if requests is None and selector is None:
        assert workload.requirements is None
        return
    assert workload.requirements.resource_request == requests
    claim = workload.requirements.node_claim
    if selector is None:
        assert claim is None
    else:
        assert claim.node_selector == selector
        assert len(claim.tolerations) == tolerations
        assert (claim.hard_node_affinity is not None) == has_affinity


@pytest.mark.parametrize(
    ("spec", "replicas"),
    [
        ("{parallelism: 3, completions: 2}", 2),
        ("{parallelism: 2, completions: 5}", 2),
        ("{parallelism: 4}", 4),
        ("{completions: 3}", 1),
        ("{}", 1),
        ("{parallelism: 0, completions: 3}", 0),
    ],
)
def test_job_replicas_are_read_as_the_default_interpreter_reads_a_defaulted_job(spec, replicas):
    job = f"apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\nspec: {spec}\n"
    assert read_inputs(load_documents("j.yaml", job)).workload.replicas == replicas


def test_a_pod_is_one_replica_and_an_unknown_kind_is_not_a_workload():
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n"
    widget = "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 5}\n"
    assert read_inputs(load_documents("p.yaml", pod)).workload.replicas == 1
    unknown = read_inputs(load_documents("w.yaml", widget)).workload
    assert (unknown.replicas, unknown.requirements) == (0, None)
