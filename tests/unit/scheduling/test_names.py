"""Karmada's names for bindings, works and execution spaces, and the content hash."""

import pytest

from scheduling.karmada import names


@pytest.mark.parametrize(
    "name,kind,expected",
    [
        ("nginx", "Deployment", "nginx-deployment"),
        ("Web", "ConfigMap", "web-configmap"),
        ("a:b", "Deployment", "a.b-deployment"),
    ],
)
def test_binding_names_are_the_lowercased_name_and_kind(name, kind, expected):
    assert names.binding_name(name, kind) == expected


def test_fnv32a_matches_the_published_test_vectors():
    assert names.fnv32a("") == 0x811C9DC5
    assert names.fnv32a("a") == 0xE40C292C
    assert names.fnv32a("foobar") == 0xBF9CF968


def test_work_names_keep_the_template_name_and_add_a_safe_hash_of_namespace_name_and_kind():
    name = names.work_name("default", "nginx", "Deployment")
    prefix, _, suffix = name.partition("-")
    assert prefix == "nginx"
    assert suffix == names.safe_encode(str(names.fnv32a("default-nginx-deployment")))
    assert set(suffix) <= set("bcdfghjklmnpqrstvwxz2456789") and len(suffix) <= 10
    assert names.work_name("default", "nginx", "Service") != name
    assert names.work_name("", "admin", "ClusterRole").startswith("admin-")
    assert names.work_name("", "admin", "ClusterRole") == "admin-" + names.safe_encode(
        str(names.fnv32a("admin-clusterrole"))
    )


def test_execution_spaces_and_reserved_namespaces():
    assert names.execution_namespace("beijing") == "karmada-es-beijing"
    assert names.is_reserved_namespace("karmada-es-beijing")
    assert names.is_reserved_namespace("karmada-system")
    assert not names.is_reserved_namespace("default")


def test_the_content_hash_ignores_key_order_but_not_values():
    assert names.content_hash({"a": 1, "b": [1, 2]}) == names.content_hash({"b": [1, 2], "a": 1})
    assert names.content_hash({"a": 1}) != names.content_hash({"a": 2})
