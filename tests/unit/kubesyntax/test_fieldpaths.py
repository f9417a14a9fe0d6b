"""Field paths as Kubernetes writes them in errors, built and split again."""

from kubesyntax.fieldpaths import join, split


def test_a_field_path_is_built_from_names_and_indexes():
    assert join(join(join("", "spec"), "containers"), 0) == "spec.containers[0]"


def test_a_field_path_splits_into_names_indexes_and_map_keys():
    assert split("spec.placement.spreadConstraints[0].maxGroups") == [
        "spec",
        "placement",
        "spreadConstraints",
        0,
        "maxGroups",
    ]
    assert split("metadata.labels[app.kubernetes.io/name]") == [
        "metadata",
        "labels",
        "app.kubernetes.io/name",
    ]
