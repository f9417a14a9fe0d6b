"""first_nul names the first field holding U+0000 as Kubernetes writes a field path."""

from __future__ import annotations

from kubesyntax.nul import first_nul


def test_a_document_without_nul_has_none():
    assert first_nul({"metadata": {"name": "web", "labels": {"a": "b"}}, "spec": {"replicas": 2}}) is None


def test_the_path_of_a_string_in_a_list_and_of_a_label_value():
    document = {"spec": {"containers": [{"name": "a"}, {"name": "b", "args": ["x", "y\x00"]}]}}
    assert first_nul(document) == "spec.containers[1].args[1]"
    assert first_nul({"metadata": {"labels": {"app": "w\x00b"}}}) == "metadata.labels[app]"


def test_a_key_holding_nul_is_named_with_the_character_written_out():
    assert first_nul({"data": {"k\x00": "v"}}) == "data[k\\0]"
    assert first_nul({"spec": {"k\x00": 1}}) == "spec.k\\0"
    assert first_nul("\x00") == ""
