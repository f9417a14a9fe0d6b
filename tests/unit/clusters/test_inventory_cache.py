"""The in-memory inventory: what a pod or node event does to the totals, and when the cache is fresh."""

import time

from clusters.inventory import Inventory
from clusters.k8s import Resources


def pod(name, node="", cpu="100m", phase="Running"):
    container = {"name": "app", "resources": {"requests": {"cpu": cpu, "memory": "1Mi"}}}
    return {
        "metadata": {"namespace": "default", "name": name},
        "spec": {"nodeName": node, "containers": [container]} if node else {"containers": [container]},
        "status": {"phase": phase},
    }


def node(name, ready=True):
    condition = {"type": "Ready", "status": "True" if ready else "False"}
    return {"metadata": {"name": name}, "status": {"conditions": [condition], "allocatable": {"cpu": "4"}}}


def listed(*pods):
    inventory = Inventory("one")
    inventory.replace("nodes", {})
    inventory.replace("pods", {("default", p["metadata"]["name"]): inventory.pod_entry(p) for p in pods})
    return inventory


def test_events_move_the_totals_and_a_finished_pod_leaves_them():
    inventory = listed(pod("a", "n1"), pod("b"))
    _, _, totals = inventory.snapshot()
    assert totals.by_node == {"n1": Resources(100, 2**20, 1)} and totals.unbound == Resources(100, 2**20, 1)
    inventory.apply("pods", "MODIFIED", pod("b", "n2", "300m"))  # bound
    inventory.apply("pods", "MODIFIED", pod("a", "n1", phase="Succeeded"))
    _, _, totals = inventory.snapshot()
    assert totals.by_node == {"n2": Resources(300, 2**20, 1)} and totals.unbound == Resources()
    inventory.apply("pods", "DELETED", pod("b", "n2", "300m"))
    assert inventory.snapshot()[2].allocated == Resources()


def test_a_node_event_replaces_the_node_and_an_unchanged_one_is_no_change():
    inventory = listed()
    inventory.apply("nodes", "ADDED", node("n1"))
    generation = inventory.generation
    inventory.apply("nodes", "MODIFIED", node("n1"))
    assert inventory.generation == generation
    inventory.apply("nodes", "MODIFIED", node("n1", ready=False))
    _, nodes, _ = inventory.snapshot()
    assert inventory.generation > generation and [n.ready for n in nodes] == [False]


def test_the_cache_is_fresh_only_while_both_kinds_are_synced_and_heard_from():
    inventory = Inventory("one")
    inventory.replace("nodes", {})
    assert not inventory.fresh()  # pods never listed
    inventory.replace("pods", {})
    assert inventory.fresh()
    inventory.lost("pods")  # the pod watch broke
    assert not inventory.fresh()
    inventory.replace("pods", {})
    time.sleep(0.05)
    assert not inventory.fresh(silent_for=0.01)  # nothing heard lately
    inventory.heard("nodes")
    inventory.heard("pods")
    assert inventory.fresh(silent_for=0.5)


def test_a_pods_requests_are_computed_once_per_shape_and_each_shape_counts_as_the_pod_reads():
    from clusters.k8s import pod_from

    inventory = Inventory("one")
    sidecar = {"name": "s", "restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}}}
    init = {"name": "s", "resources": {"requests": {"cpu": "50m"}}}
    shapes = [
        pod("a", "n1"),
        pod("b", "n2"),  # same requests on another node: the shape computed for "a"
        pod("c", "n1", cpu="250m"),
        {**pod("d", "n1"), "spec": {**pod("d", "n1")["spec"], "initContainers": [sidecar]}},
        {**pod("e", "n1"), "spec": {**pod("e", "n1")["spec"], "initContainers": [init]}},
        {**pod("f", "n1"), "spec": {**pod("f", "n1")["spec"], "overhead": {"memory": "1Mi"}}},
        pod("g", "n1", phase="Pending"),
    ]
    for each in shapes:
        expected = pod_from(each)
        assert inventory.pod_entry(each) == (expected.node_name, expected.requests)
    # a sidecar counts with the containers, a plain init container only at its peak: two shapes
    assert shapes[3] != shapes[4] and len(inventory._requests) == 5
    assert inventory.pod_entry(pod("h", "n1", phase="Succeeded")) is None


def test_a_listing_that_finds_the_cache_as_it_was_is_no_change_and_any_difference_is_one():
    inventory = listed(pod("a", "n1"), pod("b"))
    generation = inventory.generation
    inventory.replace(
        "pods",
        {("default", p["metadata"]["name"]): inventory.pod_entry(p) for p in (pod("a", "n1"), pod("b"))},
    )
    assert inventory.generation == generation and inventory.fresh()
    inventory.replace("pods", {("default", "a"): inventory.pod_entry(pod("a", "n2"))})
    assert inventory.generation > generation
    generation = inventory.generation
    inventory.replace("nodes", {"n1": None})
    assert inventory.generation > generation


def test_the_sums_kept_as_pods_change_are_those_of_every_pod_summed_afresh():
    import random

    from clusters.resource_summary import PodTotals

    rng = random.Random(7)
    inventory = listed(pod("p0", "n1"), pod("p1"))
    names = [f"p{i}" for i in range(12)]
    for step in range(600):
        name = rng.choice(names)
        event = rng.choice(["ADDED", "MODIFIED", "MODIFIED", "DELETED"])
        obj = pod(
            name,
            rng.choice(["", "n1", "n2", "n3"]),
            rng.choice(["100m", "250m", "1"]),
            rng.choice(["Pending", "Running", "Running", "Succeeded"]),
        )
        inventory.apply("pods", event, obj)
        if step % 150 == 149:  # a resync's listing now and then
            inventory.replace("pods", dict(inventory._pods))
        _, _, totals = inventory.snapshot()
        assert totals == PodTotals.of_requests(inventory._pods.values()), step
    assert inventory.snapshot()[2].by_node  # some pods ended bound
