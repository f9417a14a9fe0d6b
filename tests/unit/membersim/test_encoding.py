"""Stored objects are encoded once and the encoding is reused by lists and watch events."""

from __future__ import annotations

import json

from membersim import encoding


def test_a_list_splices_item_encodings_without_kind_and_api_version():
    items = [{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": f"p{i}"}} for i in range(3)]
    body = encoding.encode_list("PodList", "v1", {"resourceVersion": "7"}, items)
    assert json.loads(body) == {
        "kind": "PodList",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": "7"},
        "items": [{"metadata": {"name": f"p{i}"}} for i in range(3)],
    }


def test_an_object_is_encoded_once_per_form_and_a_new_version_anew():
    pod = {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "resourceVersion": "1"}}
    first = encoding.encode(pod)
    assert encoding.encode(pod) is first
    assert json.loads(encoding.encode(pod, as_item=True)) == {
        "metadata": {"name": "p", "resourceVersion": "1"}
    }
    newer = {**pod, "metadata": {"name": "p", "resourceVersion": "2"}}
    assert json.loads(encoding.encode(newer))["metadata"]["resourceVersion"] == "2"
    assert json.loads(encoding.encode_event("MODIFIED", newer)) == {"type": "MODIFIED", "object": newer}


def test_the_cache_stays_within_its_byte_budget(monkeypatch):
    monkeypatch.setattr(encoding, "MAX_BYTES", 2000)
    objects = [{"metadata": {"name": f"object-{i}", "padding": "x" * 100}} for i in range(100)]
    for obj in objects:
        encoding.encode(obj)
    assert encoding._size[0] <= 2000


def test_a_list_item_is_cut_from_the_object_encoding_not_encoded_again():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "cut"}, "spec": {"nodeName": "n1"}}
    before = encoding._size[0]
    whole = encoding.encode(pod)
    item = encoding.encode(pod, as_item=True)
    assert encoding._size[0] - before == len(whole)  # one encoding kept, for both forms
    assert whole.startswith(b'{"kind":"Pod","apiVersion":"v1",')  # as the API server orders them
    assert json.loads(whole) == pod
    assert json.loads(item) == {"metadata": {"name": "cut"}, "spec": {"nodeName": "n1"}}
    assert encoding.encode_all([pod, pod], as_item=True) == [item, item]


def test_objects_without_kind_and_api_version_or_with_nothing_else_encode_whole():
    bare = {"metadata": {"name": "bare"}}
    only_kind = {"kind": "Status", "apiVersion": "v1"}
    assert json.loads(encoding.encode(bare)) == bare
    assert json.loads(encoding.encode(bare, as_item=True)) == bare
    assert json.loads(encoding.encode(only_kind)) == only_kind
    assert json.loads(encoding.encode(only_kind, as_item=True)) == {}


def test_what_the_fast_encoder_refuses_is_encoded_by_the_standard_library():
    odd = {"big": 2**70, 3: "a key that is not a string", "name": "é"}
    assert json.loads(encoding.dumps(odd)) == {"big": 2**70, "3": "a key that is not a string", "name": "é"}
    plain = {"kind": "Pod", "metadata": {"name": "é", "labels": {"a": "b"}}, "n": [1, 2.5, None, True]}
    assert encoding.dumps(plain) == json.dumps(plain, separators=(",", ":"), ensure_ascii=False).encode()
