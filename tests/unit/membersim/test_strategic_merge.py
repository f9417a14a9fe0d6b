"""Strategic merge, JSON merge and JSON patch as the API server applies them."""

from __future__ import annotations

import pytest

from membersim.patch import PatchError, json_patch, merge_patch, removal_patch, strategic_merge_patch

DEPLOYMENT = {
    "spec": {
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "nginx",
                        "image": "nginx:1.26",
                        "ports": [{"containerPort": 80}],
                        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    },
                    {"name": "sidecar", "image": "envoy"},
                ],
                "tolerations": [{"key": "a", "operator": "Exists"}],
                "volumes": [{"name": "data", "emptyDir": {}}],
            }
        }
    },
    "metadata": {"finalizers": ["x"], "labels": {"app": "web", "tier": "front"}},
}


def test_kubectl_image_change_merges_the_container_by_name_and_keeps_its_ports():
    patch = {
        "spec": {
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "nginx"}, {"name": "sidecar"}],
                    "containers": [{"image": "nginx:1.27", "name": "nginx"}],
                }
            }
        }
    }
    result = strategic_merge_patch(DEPLOYMENT, patch)
    containers = result["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["nginx", "sidecar"]
    assert containers[0]["image"] == "nginx:1.27"
    assert containers[0]["ports"] == [{"containerPort": 80}]
    assert "$setElementOrder/containers" not in result["spec"]["template"]["spec"]


def test_env_entries_merge_by_name_and_patch_delete_removes_one():
    patch = {
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "nginx",
                            "env": [{"name": "B", "value": "3"}, {"name": "A", "$patch": "delete"}],
                        }
                    ]
                }
            }
        }
    }
    env = strategic_merge_patch(DEPLOYMENT, patch)["spec"]["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "B", "value": "3"}]


def test_tolerations_are_atomic_and_replaced_whole():
    patch = {"spec": {"template": {"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}}}
    result = strategic_merge_patch(DEPLOYMENT, patch)
    assert result["spec"]["template"]["spec"]["tolerations"] == [{"key": "b", "operator": "Exists"}]


def test_set_element_order_reorders_the_merged_list():
    patch = {
        "spec": {
            "template": {"spec": {"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "nginx"}]}}
        }
    }
    containers = strategic_merge_patch(DEPLOYMENT, patch)["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["sidecar", "nginx"]


def test_patch_replace_directive_replaces_a_map():
    patch = {"metadata": {"labels": {"$patch": "replace", "only": "this"}}}
    assert strategic_merge_patch(DEPLOYMENT, patch)["metadata"]["labels"] == {"only": "this"}


def test_patch_replace_inside_a_list_replaces_the_list():
    patch = {
        "spec": {
            "template": {
                "spec": {"containers": [{"$patch": "replace"}, {"name": "solo", "image": "busybox"}]}
            }
        }
    }
    containers = strategic_merge_patch(DEPLOYMENT, patch)["spec"]["template"]["spec"]["containers"]
    assert containers == [{"name": "solo", "image": "busybox"}]


def test_retain_keys_clears_fields_not_listed():
    original = {"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}}}}
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}
    assert strategic_merge_patch(original, patch)["spec"]["strategy"] == {"type": "Recreate"}


def test_finalizers_merge_as_a_set_and_delete_from_primitive_list_removes():
    result = strategic_merge_patch(DEPLOYMENT, {"metadata": {"finalizers": ["y", "x"]}})
    assert result["metadata"]["finalizers"] == ["x", "y"]
    result = strategic_merge_patch(result, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["x"]}})
    assert result["metadata"]["finalizers"] == ["y"]


def test_null_deletes_a_key_and_the_original_is_not_mutated():
    result = strategic_merge_patch(DEPLOYMENT, {"metadata": {"labels": {"tier": None}}})
    assert result["metadata"]["labels"] == {"app": "web"}
    assert DEPLOYMENT["metadata"]["labels"] == {"app": "web", "tier": "front"}


def test_service_ports_merge_by_port_and_container_ports_by_container_port():
    service = {"spec": {"ports": [{"port": 80, "name": "http"}, {"port": 443, "name": "https"}]}}
    result = strategic_merge_patch(service, {"spec": {"ports": [{"port": 443, "targetPort": 8443}]}})
    assert result["spec"]["ports"][1] == {"port": 443, "name": "https", "targetPort": 8443}
    container = {"ports": [{"containerPort": 80, "name": "a"}]}
    result = strategic_merge_patch(container, {"ports": [{"containerPort": 81}]})
    assert [p["containerPort"] for p in result["ports"]] == [80, 81]


def test_list_item_without_its_merge_key_is_rejected():
    with pytest.raises(PatchError, match="merge key"):
        strategic_merge_patch(DEPLOYMENT, {"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}})


def test_merge_patch_replaces_lists_and_deletes_with_null():
    result = merge_patch(
        DEPLOYMENT,
        {
            "spec": {"template": {"spec": {"containers": [{"name": "only"}]}}},
            "metadata": {"finalizers": None},
        },
    )
    assert result["spec"]["template"]["spec"]["containers"] == [{"name": "only"}]
    assert "finalizers" not in result["metadata"]


def test_json_patch_supports_every_operation_and_fails_whole_on_a_failed_test():
    doc = {"a": {"b": [1, 2]}, "c": "x"}
    result = json_patch(
        doc,
        [
            {"op": "add", "path": "/a/b/-", "value": 3},
            {"op": "replace", "path": "/c", "value": "y"},
            {"op": "copy", "from": "/c", "path": "/d"},
            {"op": "move", "from": "/d", "path": "/e~1f"},
            {"op": "remove", "path": "/a/b/0"},
            {"op": "test", "path": "/c", "value": "y"},
        ],
    )
    assert result == {"a": {"b": [2, 3]}, "c": "y", "e/f": "y"}
    with pytest.raises(PatchError, match="test operation"):
        json_patch(
            doc, [{"op": "replace", "path": "/c", "value": "z"}, {"op": "test", "path": "/c", "value": "y"}]
        )
    assert doc == {"a": {"b": [1, 2]}, "c": "x"}


def test_removal_patch_drops_what_a_manager_stopped_applying():
    previous = {
        "data": {"a": "1", "b": "2"},
        "spec": {"containers": [{"name": "x", "image": "i"}, {"name": "y", "image": "j"}]},
    }
    current = {"data": {"a": "1"}, "spec": {"containers": [{"name": "x", "image": "i"}]}}
    patch = removal_patch(previous, current)
    live = {
        "data": {"a": "1", "b": "2", "c": "other-manager"},
        "spec": {"containers": [{"name": "x", "image": "i"}, {"name": "y", "image": "j"}]},
    }
    result = strategic_merge_patch(live, patch)
    assert result["data"] == {"a": "1", "c": "other-manager"}
    assert [c["name"] for c in result["spec"]["containers"]] == ["x"]
