"""fieldValidation against the Karmada kinds' declared fields: unknown ones named by path, refused
under Strict with a 400 Status, warned of under Warn, let through under Ignore."""

from __future__ import annotations

import pytest

from kubeapi.catalogue import find
from kubeapi.fieldschemas import SCHEMAS, unknown_fields
from kubeapi.status import ApiError
from kubeapi.validation import checked, mode_of, warning_header

POLICY = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "PropagationPolicy",
    "metadata": {"name": "web", "labels": {"any/key": "v"}},
    "spec": {
        "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "nmae": "web"}],
        "placement": {"clusterAfinity": {"clusterNames": ["beijing"]}, "workloadAffinity": {"any": 1}},
    },
}


def test_unknown_fields_are_named_by_path_and_free_parts_are_not_checked():
    assert unknown_fields(POLICY, SCHEMAS["PropagationPolicy"]) == [
        "spec.resourceSelectors[0].nmae",
        "spec.placement.clusterAfinity",
    ]


def test_strict_refuses_with_every_field_in_the_status(db):
    kind = find("policy.karmada.io", "v1alpha1", "propagationpolicies")
    with pytest.raises(ApiError) as raised:
        checked(kind, POLICY, "Strict")
    error = raised.value
    assert error.code == 400 and error.reason == "BadRequest"
    assert 'strict decoding error: unknown field "spec.resourceSelectors[0].nmae"' in error.message
    assert [c["field"] for c in error.details["causes"]] == [
        "spec.resourceSelectors[0].nmae",
        "spec.placement.clusterAfinity",
    ]


def test_warn_answers_warnings_and_ignore_nothing(db):
    kind = find("policy.karmada.io", "v1alpha1", "propagationpolicies")
    warnings = checked(kind, POLICY, "Warn")
    assert warnings[1] == 'unknown field "spec.placement.clusterAfinity"'
    assert warning_header(warnings[1:]) == '299 - "unknown field \\"spec.placement.clusterAfinity\\""'
    assert checked(kind, POLICY, "Ignore") == []


def test_a_mode_not_known_is_a_bad_request():
    assert mode_of({}) == "Warn"
    with pytest.raises(ApiError) as raised:
        mode_of({"fieldValidation": "Loose"})
    assert raised.value.code == 400 and "fieldValidation" in raised.value.message
