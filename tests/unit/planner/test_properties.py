"""Properties of the planner that must hold for any input (Hypothesis)."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.planner import (
    Binding,
    ClusterSnapshot,
    EvictionTask,
    Placement,
    ResourceSummary,
    Taint,
    TargetCluster,
    plan,
)
from scheduling.planner.dispenser import divide, name_order

FAST = settings(max_examples=60, deadline=None)
NAMES = [f"c{i}" for i in range(8)]
UIDS = st.sampled_from(["", "d43fdeeb-d750-4e2b-bee3-64eb94534f4c", "4858ca61-3ff8-4095-8267-f3d059d8074c"])


def reference_webster(seats, weights, uid):
    """The definition: one seat at a time to the highest weight/(2s+1), Karmada's tie-breaks."""
    count = {name: 0 for name, _ in weights}
    votes = dict(weights)
    descending = name_order(uid).startswith("name descending")
    for _ in range(seats):

        def key(name):
            rank = -ord(name[-1]) if descending else ord(name[-1])
            return (-(votes[name] / (2 * count[name] + 1)), count[name], rank)

        winner = min(count, key=key)
        count[winner] += 1
    return dict(sorted(count.items()))


weight_lists = st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=8).map(
    lambda ws: [(NAMES[i], w) for i, w in enumerate(ws)]
)


@FAST
@given(weight_lists, st.integers(min_value=0, max_value=200), UIDS)
def test_webster_equals_the_one_seat_at_a_time_definition(weights, seats, uid):
    if sum(w for _, w in weights) == 0:
        return
    assert divide(seats, weights, uid) == reference_webster(seats, weights, uid)


@FAST
@given(
    weight_lists,
    st.integers(min_value=0, max_value=200),
    UIDS,
    st.sampled_from(["webster", "largest-remainder"]),
)
def test_division_hands_out_exactly_the_replicas(weights, seats, uid, method):
    if sum(w for _, w in weights) == 0:
        return
    result = divide(seats, weights, uid, method=method)
    assert sum(result.values()) == seats
    assert all(result[name] == 0 for name, weight in weights if weight == 0)


@FAST
@given(weight_lists, st.integers(min_value=0, max_value=150), UIDS)
def test_webster_never_takes_a_replica_away_when_the_total_grows(weights, seats, uid):
    if sum(w for _, w in weights) == 0:
        return
    before = divide(seats, weights, uid)
    after = divide(seats + 1, weights, uid)
    assert all(after[name] >= before[name] for name in before)


cluster_specs = st.lists(
    st.fixed_dictionaries(
        {
            "pods": st.integers(min_value=0, max_value=40),
            "env": st.sampled_from(["prod", "dev"]),
            "tainted": st.booleans(),
            "region": st.sampled_from(["", "r1", "r2"]),
        }
    ),
    min_size=1,
    max_size=6,
)

PLACEMENTS = [
    {},
    {"replicaScheduling": {"replicaSchedulingType": "Divided"}},
    {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"labelSelector": {"matchLabels": {"env": "prod"}}}, "weight": 3},
                    {"targetCluster": {"clusterNames": ["c1", "c2"]}, "weight": 1},
                ]
            },
        }
    },
    {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        }
    },
    {"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}},
    {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        },
        "spreadConstraints": [
            {"spreadByField": "region", "maxGroups": 2},
            {"spreadByField": "cluster", "maxGroups": 3},
        ],
    },
]


def build(specs):
    return [
        ClusterSnapshot(
            name=NAMES[i],
            labels={"env": spec["env"]},
            region=spec["region"],
            taints=(Taint("dedicated", "gpu"),) if spec["tainted"] else (),
            resource_summary=ResourceSummary(allocatable={"pods": Fraction(spec["pods"])}),
        )
        for i, spec in enumerate(specs)
    ]


previous_results = st.dictionaries(
    st.sampled_from(NAMES), st.integers(min_value=1, max_value=10), max_size=4
).map(lambda d: tuple(TargetCluster(name, count) for name, count in sorted(d.items())))


@FAST
@given(
    cluster_specs,
    st.sampled_from(PLACEMENTS),
    st.integers(min_value=1, max_value=60),
    previous_results,
    st.sets(st.sampled_from(NAMES), max_size=2),
    st.booleans(),
    UIDS,
)
def test_plans_are_deterministic_sum_up_and_respect_filters(
    specs, raw, replicas, previous, evicted, fresh, uid
):
    placement = Placement.from_dict(
        {**raw, "clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}}}
    )
    binding = Binding(
        replicas=replicas,
        previous=previous,
        uid=uid,
        fresh=fresh,
        eviction_tasks=tuple(EvictionTask(name) for name in sorted(evicted)),
    )
    clusters = build(specs)
    result = plan(clusters, placement, binding)
    assert plan(clusters, placement, binding) == result
    if result.error is not None:
        expected = () if result.error.reason == "NoClusterFit" else previous
        assert result.clusters == expected
        return
    held = {target.name for target in previous}
    for target in result.clusters:
        cluster = next(c for c in clusters if c.name == target.name)
        assert cluster.labels["env"] == "prod"
        assert target.name not in evicted
        assert not cluster.taints or target.name in held
    if placement.strategy == "Duplicated":
        assert all(target.replicas == replicas for target in result.clusters)
    else:
        assert sum(target.replicas for target in result.clusters) == replicas


@FAST
@given(cluster_specs, st.integers(min_value=1, max_value=60), previous_results, UIDS)
def test_static_weights_ignore_history(specs, replicas, previous, uid):
    placement = Placement.from_dict(PLACEMENTS[2])
    clusters = [c for c in build(specs) if not c.taints]
    fresh = plan(clusters, placement, Binding(replicas=replicas, uid=uid))
    with_history = plan(clusters, placement, Binding(replicas=replicas, uid=uid, previous=previous))
    assert fresh.replicas() == with_history.replicas()


@FAST
@given(cluster_specs, st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=40), UIDS)
def test_steady_scale_up_never_moves_existing_replicas(specs, first, extra, uid):
    placement = Placement.from_dict(PLACEMENTS[3])
    clusters = [c for c in build(specs) if not c.taints]
    if not clusters:
        return
    before = plan(clusters, placement, Binding(replicas=first, uid=uid))
    if not before.ok:
        return
    after = plan(clusters, placement, Binding(replicas=first + extra, uid=uid, previous=before.clusters))
    if not after.ok:
        assert after.clusters == before.clusters
        return
    grown = after.replicas()
    assert all(grown.get(name, 0) >= count for name, count in before.replicas().items())


label_sets = st.dictionaries(
    st.sampled_from(["env", "tier", "zone"]), st.sampled_from(["a", "b", ""]), max_size=3
)
requirements = st.fixed_dictionaries(
    {
        "key": st.sampled_from(["env", "tier", "", "bad key"]),
        "operator": st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt"]),
        "values": st.lists(st.sampled_from(["a", "b", "1"]), max_size=2),
    }
)


@FAST
@given(
    label_sets,
    st.lists(requirements, max_size=3),
    st.dictionaries(st.sampled_from(["env", "tier"]), st.sampled_from(["a", "b"]), max_size=2),
    st.lists(st.sampled_from(NAMES[:3]), max_size=2),
    st.lists(st.sampled_from(NAMES[:3]), max_size=1),
)
def test_fast_match_and_explained_mismatch_always_agree(labels, expressions, match_labels, names, exclude):
    from scheduling.planner.selectors import ClusterAffinity

    affinity = ClusterAffinity.from_dict(
        {
            "labelSelector": {"matchLabels": match_labels, "matchExpressions": expressions},
            "clusterNames": names,
            "exclude": exclude,
        },
        "",
    )
    for name in NAMES[:3]:
        cluster = ClusterSnapshot(name=name, labels=labels)
        assert affinity.matches(cluster) == (affinity.mismatch(cluster) is None)
