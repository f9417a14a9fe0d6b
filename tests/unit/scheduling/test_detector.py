"""The detector's choice: priority, name > labelSelector > kind-only, then name; PP before CPP; preemption."""

from scheduling.controllers.detector import candidate, choose_policy
from scheduling.karmada.documents import Workload
from scheduling.models import PropagationPolicy, ResourceTemplate

WORKLOAD = Workload("apps/v1", "Deployment", "shop", "default", {"tier": "web"}, "", 3, None, None)
BY_NAME = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "shop"}
BY_LABEL = {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"tier": "web"}}}
KIND_ONLY = {"apiVersion": "apps/v1", "kind": "Deployment"}
_ids = iter(range(1, 1000))


def policy(name, selector, priority=0, kind="PropagationPolicy", namespace="default", preemption="Never"):
    namespace = "" if kind == "ClusterPropagationPolicy" else namespace
    if namespace:
        selector = {**selector, "namespace": namespace}
    row = PropagationPolicy(
        pk=next(_ids),
        kind=kind,
        namespace=namespace,
        name=name,
        priority=priority,
        preemption=preemption,
        spec={"resourceSelectors": [selector], "placement": {}},
    )
    return candidate(row)


def choose(candidates, holder=None):
    template = ResourceTemplate(kind="Deployment", namespace="default", name="shop", policy_id=holder)
    chosen = choose_policy(template, WORKLOAD, candidates)
    return chosen.name if chosen else None


def test_a_higher_priority_wins_over_a_more_specific_selector():
    assert choose([policy("by-name", BY_NAME), policy("kind", KIND_ONLY, priority=5)]) == "kind"


def test_on_equal_priority_a_name_match_beats_a_label_match_which_beats_a_kind_only_match():
    assert (
        choose([policy("a-kind", KIND_ONLY), policy("b-label", BY_LABEL), policy("c-name", BY_NAME)])
        == "c-name"
    )
    assert choose([policy("a-kind", KIND_ONLY), policy("b-label", BY_LABEL)]) == "b-label"


def test_then_the_policy_name_in_ascending_order_wins():
    assert choose([policy("zeta", BY_LABEL), policy("alpha", BY_LABEL)]) == "alpha"


def test_a_matching_propagation_policy_always_beats_a_cluster_propagation_policy():
    cpp = policy("cluster-wide", BY_NAME, priority=100, kind="ClusterPropagationPolicy")
    assert choose([cpp, policy("local", KIND_ONLY)]) == "local"
    assert choose([cpp]) == "cluster-wide"


def test_policies_of_other_namespaces_and_non_matching_selectors_are_ignored():
    other = policy("other", KIND_ONLY, namespace="shop")
    wrong_label = policy("wrong", {**BY_LABEL, "labelSelector": {"matchLabels": {"tier": "db"}}})
    assert choose([other, wrong_label]) is None


def test_a_claim_is_kept_unless_a_challenger_with_preemption_always_outranks_it():
    holder = policy("holder", KIND_ONLY, priority=1)
    stronger = policy("stronger", BY_NAME, priority=5)
    assert choose([holder, stronger], holder=holder.row.pk) == "holder"
    preempting = policy("preempting", BY_NAME, priority=5, preemption="Always")
    assert choose([holder, preempting], holder=holder.row.pk) == "preempting"
    weaker = policy("weaker", BY_NAME, priority=0, preemption="Always")
    assert choose([holder, weaker], holder=holder.row.pk) == "holder"


def test_a_propagation_policy_with_preemption_takes_from_any_cluster_policy_but_not_the_reverse():
    cpp = policy("cpp", KIND_ONLY, priority=100, kind="ClusterPropagationPolicy")
    pp = policy("pp", BY_NAME, priority=0, preemption="Always")
    assert choose([cpp, pp], holder=cpp.row.pk) == "pp"
    cpp_always = policy(
        "cpp-always", BY_NAME, priority=1000, kind="ClusterPropagationPolicy", preemption="Always"
    )
    plain_pp = policy("plain", KIND_ONLY)
    assert choose([plain_pp, cpp_always], holder=plain_pp.row.pk) == "plain"


def test_a_holder_that_no_longer_matches_loses_the_claim():
    holder = policy("holder", {**BY_LABEL, "labelSelector": {"matchLabels": {"tier": "db"}}})
    other = policy("other", KIND_ONLY)
    assert choose([holder, other], holder=holder.row.pk) == "other"
