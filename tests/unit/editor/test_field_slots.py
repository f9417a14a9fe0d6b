"""Problems land on the form field that shows them, worded relative to that field."""

from __future__ import annotations

from scheduling.editor.state import form_slots


def test_each_problem_goes_to_the_most_specific_field_that_holds_its_path():
    slots = form_slots(
        [
            ("metadata.name", "is required"),
            ("spec.placement.spreadConstraints[1].maxGroups", "must be >= minGroups"),
            ("spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight", "must be >= 1"),
            ("spec.placement.replicaScheduling.replicaSchedulingType", "must be Duplicated or Divided"),
            ("spec.placement.clusterAffinity.fieldSelector", 'unsupported key "metadata.name"'),
            ("spec.failover.application", "needs propagateDeps"),
        ]
    )
    assert slots["name"] == ["is required"]
    assert slots["spread"] == ["#2 maxGroups: must be >= minGroups"]
    assert slots["weights"] == ["staticWeightList[0].weight: must be >= 1"]
    assert slots["scheduling"] == ["replicaSchedulingType: must be Duplicated or Divided"]
    assert slots["fields"] == ['unsupported key "metadata.name"']
    assert slots["general"] == ["spec.failover.application: needs propagateDeps"]
    assert slots["labels"] == []
