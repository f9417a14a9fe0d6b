"""Override policies: every overrider kind, Karmada's order within a rule and across policies."""

import copy

import pytest

from scheduling.karmada.documents import Workload
from scheduling.karmada.overrides import Image, OverrideError, OverrideSource, apply_overrides, patch
from scheduling.planner import ClusterSnapshot

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx"}},
    "spec": {
        "replicas": 2,
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {
                "initContainers": [{"name": "init", "image": "busybox"}],
                "containers": [
                    {
                        "name": "nginx",
                        "image": "docker.io/library/nginx:1.27",
                        "command": ["nginx"],
                        "args": ["-q"],
                    }
                ],
            },
        },
    },
}
WORKLOAD = Workload("apps/v1", "Deployment", "nginx", "default", {"app": "nginx"}, "", 2, None, None)
BEIJING = ClusterSnapshot(name="beijing", labels={"env": "prod"})
GUANGZHOU = ClusterSnapshot(name="guangzhou", labels={"env": "staging"})


def op(name, rules, kind="OverridePolicy", namespace="default", selectors=None):
    spec = {"overrideRules": rules}
    if selectors is not None:
        spec["resourceSelectors"] = selectors
    return OverrideSource(kind, "" if kind.startswith("Cluster") else namespace, name, spec)


def run(sources, cluster=BEIJING, manifest=DEPLOYMENT):
    return apply_overrides(manifest, cluster, sources, WORKLOAD)


@pytest.mark.parametrize(
    "text,registry,repository,tag",
    [
        ("nginx", "", "nginx", ""),
        ("nginx:1.27", "", "nginx", "1.27"),
        ("docker.io/library/nginx:1.27", "docker.io", "library/nginx", "1.27"),
        ("localhost:5000/app", "localhost:5000", "app", ""),
        ("library/nginx", "", "library/nginx", ""),
    ],
)
def test_images_split_into_registry_repository_and_tag(text, registry, repository, tag):
    image = Image.parse(text)
    assert (image.registry, image.repository, image.tag) == (registry, repository, tag)
    assert str(image) == text


def test_image_overriders_change_every_container_or_only_the_predicate_path():
    rules = [
        {
            "overriders": {
                "imageOverrider": [{"component": "Registry", "operator": "replace", "value": "mirror.cn"}]
            }
        }
    ]
    result, applied = run([op("mirror", rules)])
    pod = result["spec"]["template"]["spec"]
    assert pod["containers"][0]["image"] == "mirror.cn/library/nginx:1.27"
    assert pod["initContainers"][0]["image"] == "mirror.cn/busybox"
    assert applied == {"cluster": [], "namespaced": ["mirror"]}
    only_tag = [
        {
            "overriders": {
                "imageOverrider": [
                    {
                        "component": "Tag",
                        "operator": "replace",
                        "value": "1.28",
                        "predicate": {"path": "/spec/template/spec/containers/0/image"},
                    }
                ]
            }
        }
    ]
    result, _ = run([op("tag", only_tag)])
    assert result["spec"]["template"]["spec"]["containers"][0]["image"] == "docker.io/library/nginx:1.28"
    assert result["spec"]["template"]["spec"]["initContainers"][0]["image"] == "busybox"
    assert DEPLOYMENT["spec"]["template"]["spec"]["containers"][0]["image"] == "docker.io/library/nginx:1.27"


def test_add_appends_to_an_image_component_and_remove_clears_it():
    image = Image.parse("registry.cn/app:1.0")
    rules = [{"overriders": {"imageOverrider": [{"component": "Tag", "operator": "add", "value": "-cn"}]}}]
    manifest = copy.deepcopy(DEPLOYMENT)
    manifest["spec"]["template"]["spec"]["containers"][0]["image"] = str(image)
    result, _ = run([op("t", rules)], manifest=manifest)
    assert result["spec"]["template"]["spec"]["containers"][0]["image"] == "registry.cn/app:1.0-cn"
    rules = [{"overriders": {"imageOverrider": [{"component": "Registry", "operator": "remove"}]}}]
    result, _ = run([op("t", rules)], manifest=manifest)
    assert result["spec"]["template"]["spec"]["containers"][0]["image"] == "app:1.0"


def test_command_and_args_overriders_add_and_remove_values_of_the_named_container():
    rules = [
        {
            "overriders": {
                "commandOverrider": [
                    {"containerName": "nginx", "operator": "add", "value": ["-g", "daemon off;"]}
                ],
                "argsOverrider": [{"containerName": "nginx", "operator": "remove", "value": ["-q"]}],
            }
        }
    ]
    result, _ = run([op("cmd", rules)])
    container = result["spec"]["template"]["spec"]["containers"][0]
    assert container["command"] == ["nginx", "-g", "daemon off;"]
    assert container["args"] == []


def test_labels_and_annotations_overriders_add_replace_only_existing_and_remove():
    rules = [
        {
            "overriders": {
                "labelsOverrider": [
                    {"operator": "add", "value": {"location": "beijing"}},
                    {"operator": "replace", "value": {"app": "web", "absent": "x"}},
                ],
                "annotationsOverrider": [
                    {"operator": "add", "value": {"owner": "a"}},
                    {"operator": "remove", "value": {"owner": ""}},
                ],
            }
        }
    ]
    result, _ = run([op("meta", rules)])
    assert result["metadata"]["labels"] == {"app": "web", "location": "beijing"}
    assert "annotations" not in result["metadata"]


def test_field_overriders_patch_yaml_and_json_held_in_a_string():
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "default"},
        "data": {"config.yaml": "log:\n  level: info\n", "config.json": '{"port": 80}'},
    }
    rules = [
        {
            "overriders": {
                "fieldOverrider": [
                    {
                        "fieldPath": "/data/config.yaml",
                        "yaml": [{"subPath": "/log/level", "operator": "replace", "value": "debug"}],
                    },
                    {
                        "fieldPath": "/data/config.json",
                        "json": [{"subPath": "/port", "operator": "replace", "value": 8080}],
                    },
                ]
            }
        }
    ]
    result, _ = run([op("field", rules)], manifest=config)
    assert result["data"]["config.yaml"] == "log:\n  level: debug\n"
    assert result["data"]["config.json"] == '{"port": 8080}'


def test_plaintext_is_a_json_patch_that_runs_last_in_a_rule():
    rules = [
        {
            "overriders": {
                "labelsOverrider": [{"operator": "add", "value": {"tier": "gold"}}],
                "plaintext": [
                    {"path": "/spec/replicas", "operator": "replace", "value": 5},
                    {"path": "/metadata/labels/tier", "operator": "replace", "value": "silver"},
                    {"path": "/metadata/annotations/stage", "operator": "add", "value": "canary"},
                ],
            }
        }
    ]
    result, _ = run([op("plain", rules)])
    assert result["spec"]["replicas"] == 5
    assert result["metadata"]["labels"]["tier"] == "silver"
    assert result["metadata"]["annotations"] == {"stage": "canary"}


def test_rules_apply_only_to_their_target_clusters():
    rules = [
        {
            "targetCluster": {"labelSelector": {"matchLabels": {"env": "staging"}}},
            "overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 1}]},
        }
    ]
    assert run([op("staging", rules)], cluster=GUANGZHOU)[0]["spec"]["replicas"] == 1
    result, applied = run([op("staging", rules)], cluster=BEIJING)
    assert result["spec"]["replicas"] == 2 and applied == {"cluster": [], "namespaced": []}


def test_cluster_policies_run_first_and_namespaced_ones_win_ordered_by_specificity_then_name():
    def replicas(value):
        return [
            {"overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": value}]}}
        ]

    by_name = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}]
    by_label = [
        {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": "nginx"}}}
    ]
    sources = [
        op("a-by-name", replicas(3), selectors=by_name),
        op("z-all", replicas(4)),
        op("b-by-label", replicas(5), selectors=by_label),
        op("cluster-wide", replicas(9), kind="ClusterOverridePolicy", selectors=by_name),
        op("other-namespace", replicas(7), namespace="shop"),
    ]
    result, applied = run(sources)
    assert result["spec"]["replicas"] == 3
    assert applied == {"cluster": ["cluster-wide"], "namespaced": ["z-all", "b-by-label", "a-by-name"]}


def test_the_deprecated_top_level_overriders_count_as_one_rule():
    source = OverrideSource(
        "OverridePolicy",
        "default",
        "old",
        {
            "targetCluster": {"clusterNames": ["beijing"]},
            "overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 6}]},
        },
    )
    assert run([source])[0]["spec"]["replicas"] == 6
    assert run([source], cluster=GUANGZHOU)[0]["spec"]["replicas"] == 2


def test_a_patch_to_a_missing_path_is_an_error_with_the_path():
    with pytest.raises(OverrideError, match="/spec/nothing"):
        patch({"spec": {}}, [{"op": "replace", "path": "/spec/nothing", "value": 1}])
    with pytest.raises(OverrideError, match="not a JSON pointer"):
        patch({}, [{"op": "add", "path": "spec", "value": 1}])
