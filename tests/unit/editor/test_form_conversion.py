"""Form ⇄ policy document conversion keeps every field, including the ones the form does not show."""

from __future__ import annotations

import json

import yaml
from django.utils.datastructures import MultiValueDict

from scheduling.editor.document import dump_yaml, parse_yaml
from scheduling.editor.formstate import FormState, form_from_policy, policy_from_form

SEED_7_3 = """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: shop-split
  namespace: default
  labels:
    team: web
  annotations:
    scheduling.karmada-ui.io/division-method: largest-remainder
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    namespace: default
    name: shop
  - apiVersion: v1
    kind: ConfigMap
    namespace: default
    labelSelector:
      matchLabels:
        app: shop
  priority: 5
  propagateDeps: true
  failover:
    application:
      decisionConditions:
        tolerationSeconds: 120
  placement:
    clusterAffinity:
      clusterNames: [beijing, shanghai]
      labelSelector:
        matchLabels:
          env: prod
        matchExpressions:
        - key: location/region
          operator: In
          values: [cn-north, cn-east]
        - key: gpu
          operator: DoesNotExist
      fieldSelector:
        matchExpressions:
        - key: provider
          operator: NotIn
          values: [aws]
      exclude: [guangzhou]
    clusterTolerations:
    - key: dedicated
      operator: Equal
      value: shop
      effect: NoExecute
      tolerationSeconds: 30
    spreadConstraints:
    - spreadByField: cluster
      minGroups: 1
      maxGroups: 2
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - targetCluster:
            clusterNames: [beijing]
          weight: 7
        - targetCluster:
            labelSelector:
              matchLabels:
                dc: old
          weight: 3
    resource:
      nodeClaim:
        nodeSelector:
          disk: ssd
"""


def submitted(state: FormState) -> MultiValueDict:
    """The inputs the editor template renders for a form state, as the browser would post them."""
    data: dict[str, list[str]] = {
        "kind": [state.kind],
        "name": [state.name],
        "namespace": [state.namespace],
        "priority": [state.priority],
        "priority_class": [state.priority_class],
        "affinity_key": [state.affinity_key],
        "anti_affinity_key": [state.anti_affinity_key],
        "division_method": [state.division_method],
        "base": [state.base],
        "cluster_names": list(state.cluster_names),
        "exclude": list(state.exclude),
        "replica_type": [state.replica_type],
        "division_preference": [state.division_preference],
        "weight_mode": [state.weight_mode],
    }
    columns = {
        "sel": [(r.api_version, r.kind, r.namespace, r.name, r.extra) for r in state.selectors],
        "ml": list(state.match_labels),
        "me": [(r.key, r.operator, r.values) for r in state.match_expressions],
        "fs": [(r.key, r.operator, r.values) for r in state.field_expressions],
        "tol": [(r.key, r.operator, r.value, r.effect, r.seconds, r.extra) for r in state.tolerations],
        "sc": [(r.by, r.label, r.min_groups, r.max_groups, r.extra) for r in state.spread],
        "w": [(r.target, str(r.weight)) for r in state.weights],
    }
    names = {
        "sel": ("sel_api_version", "sel_kind", "sel_namespace", "sel_name", "sel_extra"),
        "ml": ("ml_key", "ml_value"),
        "me": ("me_key", "me_operator", "me_values"),
        "fs": ("fs_key", "fs_operator", "fs_values"),
        "tol": ("tol_key", "tol_operator", "tol_value", "tol_effect", "tol_seconds", "tol_extra"),
        "sc": ("sc_by", "sc_label", "sc_min", "sc_max", "sc_extra"),
        "w": ("w_target", "w_weight"),
    }
    for group, rows in columns.items():
        for i, name in enumerate(names[group]):
            data[name] = [row[i] for row in rows]
    return MultiValueDict(data)


def round_trip(doc: dict) -> dict:
    result, problems = policy_from_form(submitted(form_from_policy(doc)))
    assert problems == []
    return result


def test_a_full_policy_survives_yaml_to_form_and_back_unchanged():
    doc = parse_yaml(SEED_7_3)
    assert round_trip(doc) == doc


def test_the_yaml_text_survives_the_round_trip_too():
    doc = parse_yaml(SEED_7_3)
    assert dump_yaml(round_trip(doc)) == dump_yaml(doc)


def test_the_form_reads_the_weight_rows_with_a_label_for_each_target():
    state = form_from_policy(parse_yaml(SEED_7_3))
    assert [(w.label, w.weight, w.cluster) for w in state.weights] == [
        ("beijing", 7, "beijing"),
        ("dc=old", 3, ""),
    ]
    assert state.weight_max == 14


def test_the_form_shows_the_selectors_expressions_and_spread_rows():
    state = form_from_policy(parse_yaml(SEED_7_3))
    assert state.cluster_names == ["beijing", "shanghai"]
    assert state.exclude == ["guangzhou"]
    assert state.match_labels == [("env", "prod")]
    assert [(e.key, e.operator, e.values) for e in state.match_expressions] == [
        ("location/region", "In", "cn-north, cn-east"),
        ("gpu", "DoesNotExist", ""),
    ]
    assert [(s.by, s.min_groups, s.max_groups) for s in state.spread] == [("cluster", "1", "2")]
    assert json.loads(state.selectors[1].extra) == {"labelSelector": {"matchLabels": {"app": "shop"}}}


def test_changing_a_weight_in_the_form_changes_only_that_weight():
    doc = parse_yaml(SEED_7_3)
    data = submitted(form_from_policy(doc))
    data.setlist("w_weight", ["6", "4"])
    result, _ = policy_from_form(data)
    rules = result["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"]
    assert [r["weight"] for r in rules] == [6, 4]
    rules[0]["weight"], rules[1]["weight"] = 7, 3
    assert result == doc


def test_a_new_policy_built_from_form_inputs_is_the_seed_7_3_policy():
    data = MultiValueDict(
        {
            "kind": ["PropagationPolicy"],
            "name": ["shop-split"],
            "namespace": ["default"],
            "sel_api_version": ["apps/v1"],
            "sel_kind": ["Deployment"],
            "sel_namespace": ["default"],
            "sel_name": ["shop"],
            "sel_extra": ["{}"],
            "cluster_names": ["beijing", "shanghai", "beijing"],
            "replica_type": ["Divided"],
            "division_preference": ["Weighted"],
            "weight_mode": ["static"],
            "w_target": ['{"clusterNames":["beijing"]}', '{"clusterNames":["shanghai"]}'],
            "w_weight": ["7", "3"],
        }
    )
    doc, problems = policy_from_form(data)
    assert problems == []
    assert doc["spec"]["placement"] == yaml.safe_load(
        """
        clusterAffinity: {clusterNames: [beijing, shanghai]}
        replicaScheduling:
          replicaSchedulingType: Divided
          replicaDivisionPreference: Weighted
          weightPreference:
            staticWeightList:
            - {targetCluster: {clusterNames: [beijing]}, weight: 7}
            - {targetCluster: {clusterNames: [shanghai]}, weight: 3}
        """
    )
    assert "annotations" not in doc["metadata"]


def test_numbers_that_are_not_numbers_are_reported_on_their_field():
    data = submitted(form_from_policy(parse_yaml(SEED_7_3)))
    data.setlist("sc_max", ["two"])
    data["priority"] = "high"
    _, problems = policy_from_form(data)
    assert problems == [
        ("spec.priority", "must be a whole number"),
        ("spec.placement.spreadConstraints[0].maxGroups", "must be a whole number"),
    ]


def test_choosing_duplicated_keeps_no_replica_scheduling_when_the_policy_had_none():
    doc = parse_yaml(SEED_7_3)
    del doc["spec"]["placement"]["replicaScheduling"]
    assert round_trip(doc) == doc


def test_policies_with_affinity_groups_keep_them_untouched():
    doc = parse_yaml(SEED_7_3)
    placement = doc["spec"]["placement"]
    placement["clusterAffinities"] = [{"affinityName": "primary", "clusterNames": ["beijing"]}]
    del placement["clusterAffinity"]
    state = form_from_policy(doc)
    assert state.uses_affinity_groups
    assert round_trip(doc) == doc


def test_a_cluster_scoped_policy_drops_the_namespace():
    doc = parse_yaml(SEED_7_3)
    data = submitted(form_from_policy(doc))
    data["kind"] = "ClusterPropagationPolicy"
    result, _ = policy_from_form(data)
    assert result["kind"] == "ClusterPropagationPolicy"
    assert "namespace" not in result["metadata"]


GROUPED = """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: ha, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: shop}]
  schedulePriority: {priorityClassSource: KubePriorityClass, priorityClassName: high}
  placement:
    workloadAffinity:
      affinity: {groupByLabelKey: app.group}
      antiAffinity: {groupByLabelKey: ha.group}
"""


def test_the_priority_class_and_the_group_keys_survive_the_round_trip():
    doc = parse_yaml(GROUPED)
    state = form_from_policy(doc)
    assert (state.priority_class, state.affinity_key, state.anti_affinity_key) == (
        "high",
        "app.group",
        "ha.group",
    )
    assert round_trip(doc) == doc


def test_clearing_a_group_key_or_the_priority_class_removes_just_that_part():
    data = submitted(form_from_policy(parse_yaml(GROUPED)))
    data.setlist("affinity_key", [""])
    data.setlist("priority_class", [""])
    result, problems = policy_from_form(data)
    assert problems == []
    assert "schedulePriority" not in result["spec"]
    assert result["spec"]["placement"]["workloadAffinity"] == {
        "antiAffinity": {"groupByLabelKey": "ha.group"}
    }
    data.setlist("anti_affinity_key", [""])
    result, _ = policy_from_form(data)
    assert "workloadAffinity" not in result["spec"]["placement"]


def test_a_new_priority_class_name_gets_karmadas_source():
    data = submitted(form_from_policy(parse_yaml(SEED_7_3)))
    data.setlist("priority_class", ["batch-low"])
    result, _ = policy_from_form(data)
    assert result["spec"]["schedulePriority"] == {
        "priorityClassSource": "KubePriorityClass",
        "priorityClassName": "batch-low",
    }
