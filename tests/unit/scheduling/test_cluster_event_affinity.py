"""Which affinity a cluster event is tested with, and against which cluster states (karmada/selection.py)."""

from __future__ import annotations

from scheduling.karmada.selection import EVERY_CLUSTER, cluster_state, deciding_affinity, selects

BEIJING = cluster_state("beijing", {"labels": {"env": "prod"}, "provider": "aws", "zones": ["a", "b"]})
DEV = cluster_state("dev-1", {"labels": {"env": "dev"}, "provider": "gcp"})


def test_a_placement_without_affinity_concerns_every_cluster():
    assert deciding_affinity({}, None) is EVERY_CLUSTER
    assert selects(deciding_affinity({"spreadConstraints": [{"spreadByLabel": "env"}]}, None), [DEV])


def test_names_exclude_labels_and_fields_are_all_tested():
    by_names = deciding_affinity({"clusterAffinity": {"clusterNames": ["beijing"]}}, None)
    assert selects(by_names, [BEIJING]) and not selects(by_names, [DEV])
    excluded = deciding_affinity({"clusterAffinity": {"exclude": ["beijing"]}}, None)
    assert not selects(excluded, [BEIJING]) and selects(excluded, [DEV])
    fields = {"matchExpressions": [{"key": "provider", "operator": "In", "values": ["aws"]}]}
    by_field = deciding_affinity({"clusterAffinity": {"fieldSelector": fields}}, None)
    assert selects(by_field, [BEIJING]) and not selects(by_field, [DEV])
    zones = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}
    assert selects(deciding_affinity({"clusterAffinity": {"fieldSelector": zones}}, None), [BEIJING])


def test_either_state_of_the_cluster_is_enough():
    prod = deciding_affinity({"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}}}, None)
    assert selects(prod, [DEV, BEIJING]) and not selects(prod, [DEV]) and not selects(prod, [])


def test_cluster_affinities_use_the_observed_term_or_the_first_and_every_cluster_before_it_is_observed():
    placement = {
        "clusterAffinities": [
            {"affinityName": "prod", "labelSelector": {"matchLabels": {"env": "prod"}}},
            {"affinityName": "dev", "labelSelector": {"matchLabels": {"env": "dev"}}},
        ]
    }
    assert selects(deciding_affinity(placement, "dev"), [DEV])
    assert not selects(deciding_affinity(placement, "dev"), [BEIJING])
    assert selects(deciding_affinity(placement, "gone"), [BEIJING])  # unknown name: the first term
    assert deciding_affinity(placement, None) is EVERY_CLUSTER


def test_a_placement_that_does_not_parse_concerns_every_cluster():
    assert deciding_affinity({"clusterAffinity": {"labelSelector": "nonsense"}}, None) is EVERY_CLUSTER
