"""Policy YAML: parse errors carry their line, and field paths map to the line that holds them."""

from __future__ import annotations

import pytest

from scheduling.editor.document import YamlError, dump_yaml, line_of, parse_yaml

TEXT = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: shop
spec:
  placement:
    spreadConstraints:
    - spreadByField: cluster
      minGroups: 3
      maxGroups: 1
"""


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("kind", 2),
        ("metadata.name", 4),
        ("spec.placement.spreadConstraints", 7),
        ("spec.placement.spreadConstraints[0]", 8),
        ("spec.placement.spreadConstraints[0].maxGroups", 10),
        ("spec.placement.replicaScheduling.replicaSchedulingType", 6),
        ("spec.resourceSelectors", 5),
    ],
)
def test_a_path_maps_to_its_line_or_its_nearest_existing_parent(path, line):
    assert line_of(TEXT, path) == line


def test_a_syntax_error_reports_its_line():
    with pytest.raises(YamlError) as caught:
        parse_yaml("kind: PropagationPolicy\nspec:\n  placement: [\n  oops: {\n")
    assert caught.value.problem.line in (4, 5)


def test_bad_indentation_is_a_parse_error_with_the_line():
    with pytest.raises(YamlError) as caught:
        parse_yaml("kind: x\nspec:\n  a: 1\n b: 2\n")
    assert caught.value.problem.line == 4


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "kind: a\n---\nkind: b\n"])
def test_a_document_that_is_not_one_mapping_is_refused(text):
    with pytest.raises(YamlError):
        parse_yaml(text)


def test_dumping_puts_apiversion_kind_metadata_and_spec_first():
    text = dump_yaml({"spec": {"b": 1, "a": 2}, "kind": "K", "metadata": {"name": "n"}, "apiVersion": "v"})
    assert text.splitlines()[:4] == ["apiVersion: v", "kind: K", "metadata:", "  name: n"]
    assert text.splitlines()[5:] == ["  b: 1", "  a: 2"]


def test_aliases_are_refused_so_a_small_text_cannot_expand_without_bound():
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"
    with pytest.raises(YamlError) as caught:
        parse_yaml(bomb)
    assert caught.value.problem.line == 2
    assert "aliases" in caught.value.problem.message


def test_a_huge_text_is_refused_before_parsing():
    with pytest.raises(YamlError, match="larger than 256 KiB"):
        parse_yaml("kind: x\n" + "# padding\n" * 30000)
