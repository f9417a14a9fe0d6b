"""JSON patch and pointer agree with the public RFC 6902 test suite; Karmada's `add` makes missing parents.

json-patch-tests.json and json-patch-spec-tests.json are the test records of the json-patch/json-patch-tests
suite (Apache-2.0), unchanged: each has a doc, a patch, and an expected document or an error.
"""

import json
from pathlib import Path

import pytest

from kubesyntax.jsonpatch import PatchError, apply_patch, json_equal
from kubesyntax.jsonpointer import PointerError, parse_pointer, pointer_error, resolve

DATA = Path(__file__).parent / "data"
RECORDS = [
    record
    for name in ("json-patch-tests.json", "json-patch-spec-tests.json")
    for record in json.loads((DATA / name).read_text())
    if "patch" in record and not record.get("disabled")
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: record.get("comment", "")[:60])
def test_a_patch_does_what_the_rfc_suite_expects(record):
    original = json.loads(json.dumps(record["doc"]))
    if "error" in record:
        with pytest.raises(PatchError):
            apply_patch(record["doc"], record["patch"])
    else:
        assert json_equal(apply_patch(record["doc"], record["patch"]), record.get("expected", record["doc"]))
    assert record["doc"] == original  # the input is never changed, even by a patch that fails


def test_pointers_unescape_tilde_and_slash_and_refuse_bad_escapes():
    assert parse_pointer("/a~1b/m~0n/0") == ["a/b", "m~n", "0"]
    assert parse_pointer("") == []
    assert resolve({"a/b": [1, {"c": 2}]}, "/a~1b/1/c") == 2
    assert "must be empty or start with '/'" in pointer_error("spec/replicas")
    assert "'~' must be followed by 0 or 1" in pointer_error("/a~2")
    with pytest.raises(PointerError, match="/items/01: '01' is not an array index"):
        resolve({"items": [1, 2]}, "/items/01")


def test_karmada_add_creates_the_missing_objects_on_its_way():
    patch = [{"op": "add", "path": "/metadata/annotations/stage", "value": "canary"}]
    with pytest.raises(PatchError, match="'annotations' does not exist"):
        apply_patch({"metadata": {}}, patch)
    assert apply_patch({"metadata": {}}, patch, create_parents=True) == {
        "metadata": {"annotations": {"stage": "canary"}}
    }


def test_a_failed_operation_names_its_number_and_path():
    with pytest.raises(PatchError, match=r"operation 1 \(replace\): /spec/nothing: 'nothing' does not exist"):
        apply_patch(
            {"spec": {}},
            [
                {"op": "test", "path": "/spec", "value": {}},
                {"op": "replace", "path": "/spec/nothing", "value": 1},
            ],
        )
