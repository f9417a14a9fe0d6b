"""The staged-rollout annotations are checked where a policy comes in: apply and the editor."""

from __future__ import annotations

import pytest
import yaml

from scheduling.controllers.apply import ApplyError
from scheduling.editor.checks import validate_policy
from scheduling.models import PropagationPolicy
from scheduling.services import apply_yaml


def policy_doc(annotations):
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "web", "namespace": "shop", "annotations": annotations},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            "placement": {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}},
        },
    }


def test_apply_refuses_a_bad_wave_with_the_annotation_and_the_reason(db):
    text = yaml.safe_dump(policy_doc({"rollout.karmada-ui.io/waves": "env in (a; *"}))
    with pytest.raises(ApplyError) as caught:
        apply_yaml(text)
    assert caught.value.field == "metadata.annotations[rollout.karmada-ui.io/waves]"
    assert caught.value.reason.startswith("wave 1:")
    assert not PropagationPolicy.objects.exists()


def test_apply_keeps_good_rollout_annotations_on_the_policy(db):
    annotations = {"rollout.karmada-ui.io/waves": "env=staging; *", "rollout.karmada-ui.io/soak": "90s"}
    apply_yaml(yaml.safe_dump(policy_doc(annotations)))
    assert PropagationPolicy.objects.get(name="web").annotations == annotations


def test_the_editor_reports_a_bad_soak_beside_the_annotation():
    problems = validate_policy(
        policy_doc({"rollout.karmada-ui.io/waves": "*", "rollout.karmada-ui.io/soak": "x"})
    )
    assert [path for path, _ in problems] == ["metadata.annotations[rollout.karmada-ui.io/soak]"]
