"""The pure drift diff: only the fields we set count, list items match by merge key, managers come from
managedFields (an atomic field above owns what is under it), and a Secret's values never show."""

from __future__ import annotations

import pytest

from scheduling.karmada.drift import HIDDEN, differences, owners, unified_diff

OURS = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "shop", "labels": {"app": "shop"}},
    "spec": {
        "replicas": 2,
        "template": {
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}, {"name": "side", "image": "e:1"}]}
        },
    },
}


def live(**changes):
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "shop",
            "uid": "u-1",
            "resourceVersion": "42",
            "labels": {"app": "shop", "added": "by-someone"},
            "managedFields": [
                {"manager": "karmada-ui", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
                {"manager": "kubectl-edit", "fieldsV1": {"f:spec": {"f:template": {}}}},
            ],
        },
        "spec": {
            "replicas": 2,
            "progressDeadlineSeconds": 600,
            "template": {
                "spec": {
                    "containers": [
                        {"name": "side", "image": "e:1", "imagePullPolicy": "IfNotPresent"},
                        {"name": "web", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent"},
                    ]
                }
            },
        },
        "status": {"replicas": 2},
    }
    for path, value in changes.items():
        node = body
        *parents, last = path.split("__")
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[last] = value
    return body


def test_defaults_the_member_fills_bookkeeping_status_and_order_are_no_drift():
    assert differences(OURS, live()) == []


@pytest.mark.parametrize(
    ("changes", "path", "desired", "theirs", "managers"),
    [
        ({"spec__replicas": 5}, "spec.replicas", 2, 5, ("karmada-ui",)),
        (
            {"spec__template__spec__containers__1__image": "nginx:hacked"},
            "spec.template.spec.containers[name=web].image",
            "nginx:1.27",
            "nginx:hacked",
            ("kubectl-edit",),
        ),
        ({"metadata__labels": {"added": "x"}}, "metadata.labels.app", "shop", None, ()),
    ],
)
def test_a_changed_field_is_named_with_both_values_and_who_set_it(changes, path, desired, theirs, managers):
    (diff,) = differences(OURS, live(**changes))
    found = (diff.path, diff.desired, diff.as_dict()["live"], diff.managers)
    assert found == (path, desired, theirs, managers)


def test_a_container_added_by_hand_is_drift_and_the_unified_diff_shows_only_our_fields():
    body = live()
    body["spec"]["template"]["spec"]["containers"].append({"name": "miner", "image": "coin:1"})
    (diff,) = differences(OURS, body)
    assert diff.path == "spec.template.spec.containers[name=miner]" and diff.as_dict()["absentInDesired"]
    text = unified_diff(OURS, body, "beijing")
    assert text.startswith("--- karmada-ui\n+++ beijing")
    assert [line for line in text.splitlines()[2:] if line[:1] in "+-"] == [
        "+      - image: coin:1",
        "+        name: miner",
    ]
    assert "progressDeadlineSeconds" not in text and "resourceVersion" not in text


def test_owners_follow_fields_v1_paths_and_atomic_parents():
    body = live()
    assert owners(body, ("f:spec", "f:replicas")) == ("karmada-ui",)
    assert owners(body, ("f:spec", "f:template", "f:spec")) == ("kubectl-edit",)
    assert owners(body, ("f:metadata", "f:labels")) == ()


def test_a_secrets_values_never_show_in_the_changes_or_the_diff():
    ours = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"password": "b3Vycw=="}}
    theirs = {**ours, "data": {"password": "dGhlaXJz"}}
    (diff,) = differences(ours, theirs)
    assert (diff.path, diff.desired, diff.live) == ("data.password", HIDDEN, HIDDEN)
    assert "b3Vycw" not in unified_diff(ours, theirs) and "dGhlaXJz" not in unified_diff(ours, theirs)
