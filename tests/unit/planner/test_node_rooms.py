"""The node-level estimator's memo: a node answers each request as a fresh node would, one request not
standing for another."""

from __future__ import annotations

from fractions import Fraction

from scheduling.planner.estimator import estimate_nodes, node_room
from scheduling.planner.model import Node


def node() -> Node:
    return Node(
        "worker-1",
        allocatable={"cpu": Fraction(8), "memory": Fraction(32 * 2**30), "pods": Fraction(110)},
        allocated={"cpu": Fraction(3, 2), "pods": Fraction(10)},
    )


REQUESTS = [
    {"cpu": Fraction(1, 2)},
    {"cpu": Fraction(1, 2), "memory": Fraction(2**30)},
    {"cpu": Fraction(1, 4)},
    {"memory": Fraction(4 * 2**30)},
    {},
    {"cpu": Fraction(1, 2)},  # asked again: the memo's answer
]


def test_a_node_answers_every_request_as_a_fresh_node_does_in_any_order():
    shared = node()
    answers = [node_room(shared, request) for request in REQUESTS]
    assert answers == [node_room(node(), request) for request in REQUESTS]
    assert answers == [13, 13, 26, 8, 100, 13]
    assert [node_room(shared, request) for request in reversed(REQUESTS)] == answers[::-1]


def test_the_node_estimate_of_a_fleet_is_the_same_when_planned_again():
    nodes = (node(), Node("worker-2", allocatable={"cpu": Fraction(2), "pods": Fraction(4)}))
    assert estimate_nodes(nodes, None) == estimate_nodes(nodes, None) == (100 + 4, 2)
