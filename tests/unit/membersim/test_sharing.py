"""Stored objects share their equal parts, and request bodies are copied before they are stored."""

from __future__ import annotations

import math

from membersim import meta


def _deployment(name: str, image: str = "nginx:1.27") -> dict:
    return {
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": 1,
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": image, "resources": {}}]},
            },
            "strategy": {"type": "RollingUpdate"},
        },
    }


def test_equal_parts_of_two_objects_are_one_object_and_unequal_parts_stay_apart():
    first, second = meta.shared(_deployment("a")), meta.shared(_deployment("b"))
    assert first["spec"]["strategy"] is second["spec"]["strategy"]
    assert first["spec"]["template"]["spec"] is second["spec"]["template"]["spec"]
    assert first["spec"]["template"]["metadata"] is not second["spec"]["template"]["metadata"]
    assert first["metadata"]["labels"] == {"app": "a"} and second["metadata"]["labels"] == {"app": "b"}
    other = meta.shared(_deployment("c", image="nginx:1.28"))
    assert other["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert other["spec"]["template"]["spec"] is not first["spec"]["template"]["spec"]


def test_json_types_are_told_apart_when_sharing():
    # equal in Python (True == 1 == 1.0), different in JSON: never substituted for one another
    values = [meta.shared_part({"v": [True]}), meta.shared_part({"v": [1]}), meta.shared_part({"v": [1.0]})]
    assert [type(v["v"][0]) for v in values] == [bool, int, float]


def test_a_part_orjson_cannot_encode_is_kept_as_it_is():
    value = {"big": 2**70, "spec": {"x": 1}}
    assert meta.shared_part(value) == value
    keyed = {1: "not a string key"}
    assert meta.shared_part(keyed) == keyed


def test_a_body_is_copied_deeply_with_its_values_intact():
    body = {"metadata": {"name": "x", "annotations": {"a": "b"}}, "spec": {"n": 2**70, "f": 0.5, "t": None}}
    copy = meta.interned_copy(body)
    assert copy == body
    assert copy is not body and copy["metadata"] is not body["metadata"]
    copy["metadata"]["annotations"]["a"] = "changed"
    assert body["metadata"]["annotations"]["a"] == "b"


def test_a_float_that_is_not_a_number_survives_the_copy():
    copy = meta.interned_copy({"spec": {"ratio": math.nan, "limit": math.inf}})
    assert math.isnan(copy["spec"]["ratio"]) and copy["spec"]["limit"] == math.inf
