"""clusters/k8s/objects.py against a simulated member: generic create, get, list, patch, apply, delete."""

from __future__ import annotations

import pytest

from clusters.k8s import ClusterConnection, NotFound, objects
from membersim import ClusterSpec, Simulator


@pytest.fixture
def conn():
    with Simulator([ClusterSpec(name="member")]) as sim:
        yield ClusterConnection(name="member", server=sim.endpoint("member"), token=sim.token("member"))


def config_map(data):
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "fresh"},
        "data": data,
    }


def test_apply_creates_the_namespace_then_updates_only_when_the_manifest_differs(conn):
    assert objects.apply_object(conn, config_map({"a": "1"})).action == "created"
    assert objects.apply_object(conn, config_map({"a": "1"})).action == "unchanged"
    updated = objects.apply_object(conn, config_map({"a": "2"}))
    assert updated.action == "updated" and updated.object["data"] == {"a": "2"}
    refused = objects.apply_object(conn, config_map({"a": "3"}), may_update=lambda live: False)
    assert refused.action == "refused" and refused.object["data"] == {"a": "2"}


def test_apply_of_an_object_written_before_reads_it_first_and_still_creates_a_missing_one(conn):
    # missing, namespace too: the read finds nothing, the create makes both
    assert objects.apply_object(conn, config_map({"a": "1"}), exists=True).action == "created"
    assert objects.apply_object(conn, config_map({"a": "1"}), exists=True).action == "unchanged"
    updated = objects.apply_object(conn, config_map({"a": "2"}), exists=True)
    assert updated.action == "updated" and updated.object["data"] == {"a": "2"}
    refused = objects.apply_object(conn, config_map({"a": "3"}), may_update=lambda live: False, exists=True)
    assert refused.action == "refused" and refused.object["data"] == {"a": "2"}
    objects.delete_object(conn, "v1", "ConfigMap", "c", "fresh")  # deleted by hand: written again
    assert objects.apply_object(conn, config_map({"a": "4"}), exists=True).action == "created"
    assert objects.get_object(conn, "v1", "ConfigMap", "c", "fresh")["data"] == {"a": "4"}


def test_get_list_patch_and_delete_any_kind_including_ones_found_by_discovery(conn):
    info = objects.resource_info(conn, "v1", "Node")  # not built in: read from /api/v1
    assert (info.plural, info.namespaced) == ("nodes", False)
    nodes = objects.list_objects(conn, "v1", "Node")
    assert len(nodes) == 3 and nodes[0]["kind"] == "Node"
    name = nodes[0]["metadata"]["name"]
    patched = objects.patch_object(conn, "v1", "Node", name, {"metadata": {"labels": {"team": "b"}}})
    assert patched["metadata"]["labels"]["team"] == "b"
    assert [
        n["metadata"]["name"] for n in objects.list_objects(conn, "v1", "Node", label_selector="team=b")
    ] == [name]
    objects.apply_object(conn, config_map({"a": "1"}))
    assert objects.get_object(conn, "v1", "ConfigMap", "c", "fresh")["data"] == {"a": "1"}
    assert objects.delete_object(conn, "v1", "ConfigMap", "c", "fresh") is True
    assert objects.delete_object(conn, "v1", "ConfigMap", "c", "fresh") is False
    with pytest.raises(NotFound):
        objects.get_object(conn, "v1", "ConfigMap", "c", "fresh")
    with pytest.raises(NotFound, match="serves no Gizmo"):
        objects.resource_info(conn, "v1", "Gizmo")


def test_is_subset_compares_maps_by_key_and_lists_element_by_element():
    assert objects.is_subset({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}, "d": 3})
    assert not objects.is_subset({"a": [1]}, {"a": [1, 2]})
    assert objects.is_subset({"a": [{"x": 1}]}, {"a": [{"x": 1, "y": 2}]})
    assert not objects.is_subset({"a": 1}, {})
