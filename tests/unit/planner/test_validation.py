"""Webhook-style validation of placements, and the webhook defaults."""

import pytest

from scheduling.planner import Placement, validate_placement


@pytest.mark.parametrize(
    ("placement", "problem"),
    [
        ({"clusterAffinity": {}, "clusterAffinities": []}, ("clusterAffinities", "cannot be set together")),
        (
            {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 3, "maxGroups": 2}]},
            ("spreadConstraints[0].maxGroups", "must be >= minGroups"),
        ),
        (
            {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": -1}]},
            ("spreadConstraints[0].minGroups", ""),
        ),
        (
            {"spreadConstraints": [{"spreadByField": "cluster", "maxGroups": -1}]},
            ("spreadConstraints[0].maxGroups", ""),
        ),
        (
            {"spreadConstraints": [{"spreadByField": "cluster", "spreadByLabel": "rack"}]},
            ("spreadConstraints[0]", "should not co-exist"),
        ),
        (
            {"spreadConstraints": [{"spreadByField": "region"}]},
            ("spreadConstraints", "cluster spread constraint"),
        ),
        (
            {"spreadConstraints": [{"spreadByField": "cluster"}, {"spreadByField": "cluster"}]},
            ("spreadConstraints[1].spreadByField", "multiple cluster"),
        ),
        (
            {"clusterAffinity": {"fieldSelector": {"matchExpressions": [{"key": "name", "operator": "In"}]}}},
            ("clusterAffinity.fieldSelector", 'unsupported key "name"'),
        ),
        (
            {
                "clusterAffinity": {
                    "fieldSelector": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}
                }
            },
            ("clusterAffinity.fieldSelector", 'unsupported operator "Exists"'),
        ),
        (
            {"clusterTolerations": [{"key": "a", "operator": "Gt", "value": "1"}]},
            ("clusterTolerations[0].operator", ""),
        ),
        (
            {"clusterAffinities": [{"affinityName": "a"}, {"affinityName": "a"}]},
            ("clusterAffinities[1].affinityName", "unique"),
        ),
        (
            {"clusterAffinities": [{"affinityName": ""}]},
            ("clusterAffinities[0].affinityName", "must not be empty"),
        ),
        (
            {
                "clusterAffinities": [
                    {
                        "affinityName": "a",
                        "clusterNames": ["m1"],
                        "overflowAffinities": [{"affinityName": "b"}],
                    }
                ]
            },
            ("clusterAffinities[0].overflowAffinities", "dynamic weight or aggregated"),
        ),
        (
            {"replicaScheduling": {"replicaSchedulingType": "Split"}},
            ("replicaScheduling.replicaSchedulingType", ""),
        ),
        (
            {"replicaScheduling": {"weightPreference": {"staticWeightList": [{"weight": 0}]}}},
            ("replicaScheduling.weightPreference.staticWeightList[0].weight", "must be >= 1"),
        ),
        ({"spreadConstraints": "many"}, ("spreadConstraints", "must be a list")),
    ],
)
def test_invalid_placements_name_the_field(placement, problem):
    problems = validate_placement(placement)
    assert problems, "expected a problem"
    path, message = problems[0]
    assert path == problem[0]
    assert problem[1] in message


def test_valid_placement_has_no_problems():
    placement = {
        "clusterAffinity": {"clusterNames": ["a", "b"]},
        "spreadConstraints": [
            {"spreadByField": "region", "maxGroups": 1},
            {"spreadByField": "cluster", "maxGroups": 2},
        ],
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        },
    }
    assert validate_placement(placement) == []


def test_webhook_defaults_are_applied():
    placement = Placement.from_dict(
        {"replicaScheduling": {}, "spreadConstraints": [{"maxGroups": 2}, {"spreadByLabel": "rack"}]}
    )
    assert placement.strategy == "StaticWeight"
    assert placement.replica_scheduling.division_preference == "Weighted"
    assert placement.spread_constraints[0].spread_by_field == "cluster"
    assert placement.spread_constraints[0].min_groups == 1
    assert placement.spread_constraints[0].max_groups == 2
    assert placement.spread_constraints[1].spread_by_field == ""
    assert placement.spread_constraints[1].max_groups == 0
    assert Placement.from_dict({}).strategy == "Duplicated"
    assert (
        Placement.from_dict({"replicaScheduling": {"replicaDivisionPreference": "Aggregated"}}).strategy
        == "Aggregated"
    )
