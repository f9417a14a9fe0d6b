"""Field ownership as the API server keeps it: updates take fields, applies own their configuration,
conflicts name each field and manager, forcing moves the field, and unapplied fields go."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kubeapi.fieldsets import display, from_fields_v1, leaves, to_fields_v1
from kubeapi.ownership import applied, manager_name, merged, update
from kubeapi.status import ApiError

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def cm(**data: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "web", "namespace": "d"},
        "data": data,
    }


def deployment(image: str, replicas: int = 2) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "d", "resourceVersion": "7", "uid": "u"},
        "spec": {
            "replicas": replicas,
            "template": {"spec": {"containers": [{"name": "web", "image": image}]}},
        },
        "status": {"replicas": 2},
    }


def apply(entries, live, config, *, manager, api_version, keyed, subresource, force, now):
    """Apply as the server does: merge, store (here: as merged), then settle the ownership."""
    result = (
        merged(entries, live, config, manager=manager, keyed=keyed, subresource=subresource)
        if live
        else config
    )
    kept = applied(
        entries,
        live,
        result,
        config,
        manager=manager,
        api_version=api_version,
        keyed=keyed,
        subresource=subresource,
        force=force,
        now=now,
    )
    return result, kept


def owners(entries: list[dict]) -> dict[tuple[str, str], set]:
    return {(e["manager"], e["operation"]): from_fields_v1(e["fieldsV1"]) for e in entries}


def test_keyed_lists_are_owned_by_item_and_bookkeeping_and_status_never():
    found = leaves(deployment("nginx:1"), keyed=True)
    item = ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"web"}')
    assert (*item, "f:image") in found and item in found
    assert not any(p[0] == "f:status" for p in found)
    assert ("f:metadata", "f:uid") not in found
    assert set(leaves(deployment("x"), keyed=True, subresource="status")) == {("f:status", "f:replicas")}


def test_fields_v1_round_trips_and_marks_members_with_children():
    paths = set(leaves(deployment("nginx:1"), keyed=True))
    tree = to_fields_v1(paths)
    containers = tree["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert containers['k:{"name":"web"}'] == {".": {}, "f:image": {}, "f:name": {}}
    assert from_fields_v1(tree) == paths


def test_an_update_takes_the_fields_it_changed_from_the_others():
    created = update(
        [],
        None,
        cm(a="1", b="1"),
        manager="kubectl-create",
        api_version="v1",
        keyed=True,
        subresource="",
        now=NOW,
    )
    patched = update(
        created,
        cm(a="1", b="1"),
        cm(a="2", b="1"),
        manager="kubectl-patch",
        api_version="v1",
        keyed=True,
        subresource="",
        now=NOW,
    )
    got = owners(patched)
    assert got[("kubectl-patch", "Update")] == {("f:data", "f:a")}
    assert got[("kubectl-create", "Update")] == {("f:data", "f:b")}


def test_an_apply_that_changes_anothers_field_conflicts_with_field_and_manager():
    entries = update(
        [],
        None,
        cm(a="1"),
        manager="kubectl-client-side-apply",
        api_version="v1",
        keyed=True,
        subresource="",
        now=NOW,
    )
    with pytest.raises(ApiError) as raised:
        apply(
            entries,
            cm(a="1"),
            cm(a="2"),
            manager="ci",
            api_version="v1",
            keyed=True,
            subresource="",
            force=False,
            now=NOW,
        )
    error = raised.value
    assert error.code == 409 and error.reason == "Conflict"
    assert error.message == (
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a'
    )
    assert error.details["causes"] == [
        {
            "reason": "FieldManagerConflict",
            "message": 'conflict with "kubectl-client-side-apply" using v1',
            "field": ".data.a",
        }
    ]


def test_the_same_value_is_shared_and_forcing_moves_the_field():
    entries = update(
        [], None, cm(a="1", b="1"), manager="other", api_version="v1", keyed=True, subresource="", now=NOW
    )
    merged, shared = apply(
        entries,
        cm(a="1", b="1"),
        cm(a="1"),
        manager="ci",
        api_version="v1",
        keyed=True,
        subresource="",
        force=False,
        now=NOW,
    )
    assert merged["data"] == {"a": "1", "b": "1"}
    assert ("f:data", "f:a") in owners(shared)[("other", "Update")]
    merged, forced = apply(
        entries,
        cm(a="1", b="1"),
        cm(a="1", b="9"),
        manager="ci",
        api_version="v1",
        keyed=True,
        subresource="",
        force=True,
        now=NOW,
    )
    assert merged["data"]["b"] == "9"
    assert owners(forced)[("other", "Update")] == {("f:data", "f:a")}
    assert owners(forced)[("ci", "Apply")] == {("f:data", "f:a"), ("f:data", "f:b")}


def test_a_field_no_longer_applied_goes_unless_another_manager_owns_it():
    _, first = apply(
        [],
        None,
        cm(a="1", b="1"),
        manager="ci",
        api_version="v1",
        keyed=True,
        subresource="",
        force=False,
        now=NOW,
    )
    merged, _ = apply(
        first,
        cm(a="1", b="1"),
        cm(a="1"),
        manager="ci",
        api_version="v1",
        keyed=True,
        subresource="",
        force=False,
        now=NOW,
    )
    assert merged["data"] == {"a": "1"}
    shared = first + update(
        [], None, cm(b="1"), manager="ops", api_version="v1", keyed=True, subresource="", now=NOW
    )
    merged, _ = apply(
        shared,
        cm(a="1", b="1"),
        cm(a="1"),
        manager="ci",
        api_version="v1",
        keyed=True,
        subresource="",
        force=False,
        now=NOW,
    )
    assert merged["data"] == {"a": "1", "b": "1"}


def test_keyed_list_items_conflict_by_their_field_path():
    entries = update(
        [],
        None,
        deployment("nginx:1"),
        manager="kubectl-edit",
        api_version="apps/v1",
        keyed=True,
        subresource="",
        now=NOW,
    )
    with pytest.raises(ApiError) as raised:
        apply(
            entries,
            deployment("nginx:1"),
            deployment("nginx:2"),
            manager="ci",
            api_version="apps/v1",
            keyed=True,
            subresource="",
            force=False,
            now=NOW,
        )
    assert raised.value.details["causes"][0]["field"] == ('.spec.template.spec.containers[name="web"].image')


def test_two_conflicting_managers_are_listed_by_manager():
    entries = [
        *update([], None, cm(a="1"), manager="a", api_version="v1", keyed=True, subresource="", now=NOW),
        *update([], None, cm(b="1"), manager="b", api_version="v1", keyed=True, subresource="", now=NOW),
    ]
    with pytest.raises(ApiError) as raised:
        apply(
            entries,
            cm(a="1", b="1"),
            cm(a="2", b="2"),
            manager="ci",
            api_version="v1",
            keyed=True,
            subresource="",
            force=False,
            now=NOW,
        )
    assert raised.value.message == (
        'Apply failed with 2 conflicts: conflicts with "a" using v1:\n- .data.a\n'
        'conflicts with "b" using v1:\n- .data.b'
    )


def test_a_value_the_server_defaults_is_no_change():
    entries = update(
        [], None, cm(a="1"), manager="other", api_version="v1", keyed=True, subresource="", now=NOW
    )
    defaulted = {**cm(a="1"), "spec": {"x": "default"}}
    kept = applied(
        entries,
        defaulted,
        defaulted,
        {**cm(a="1"), "spec": {}},
        manager="ci",
        api_version="v1",
        keyed=True,
        subresource="",
        force=False,
        now=NOW,
    )
    assert ("other", "Update") in owners(kept)


def test_custom_kinds_own_lists_whole():
    policy = {"spec": {"resourceSelectors": [{"kind": "Deployment", "name": "web"}]}}
    assert set(leaves(policy, keyed=False)) == {("f:spec", "f:resourceSelectors")}
    assert display(("f:spec", "f:resourceSelectors")) == ".spec.resourceSelectors"


def test_the_manager_is_the_parameter_else_the_user_agent_product():
    assert manager_name("", "kubectl/v1.33.1 (linux/amd64) kubernetes/abc") == "kubectl"
    assert manager_name("argocd-controller", "whatever/1") == "argocd-controller"


def test_kubectl_takes_over_what_its_client_side_apply_set_and_no_one_else_does():
    import json

    live = cm(a="1")
    live["metadata"]["annotations"] = {
        "kubectl.kubernetes.io/last-applied-configuration": json.dumps(cm(a="1"))
    }
    entries = update(
        [],
        None,
        live,
        manager="kubectl-client-side-apply",
        api_version="v1",
        keyed=True,
        subresource="",
        now=NOW,
    )
    _, kept = apply(
        entries,
        live,
        cm(a="2"),
        manager="kubectl",
        api_version="v1",
        keyed=True,
        subresource="",
        force=False,
        now=NOW,
    )
    assert ("f:data", "f:a") in owners(kept)[("kubectl", "Apply")]
    with pytest.raises(ApiError):
        apply(
            entries,
            live,
            cm(a="2"),
            manager="ci",
            api_version="v1",
            keyed=True,
            subresource="",
            force=False,
            now=NOW,
        )
    edited = {**live, "data": {"a": "9"}}
    with pytest.raises(ApiError):  # the live value no longer is the last-applied one
        apply(
            entries,
            edited,
            cm(a="2"),
            manager="kubectl",
            api_version="v1",
            keyed=True,
            subresource="",
            force=False,
            now=NOW,
        )
