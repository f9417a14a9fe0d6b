"""Taints and tolerations: Kubernetes' ToleratesTaint table, parsing, validation, the untolerated taint."""

import json
from pathlib import Path

import pytest

from kubesyntax.taints import (
    Taint,
    TaintError,
    Toleration,
    first_untolerated,
    taint_errors,
    taint_from_dict,
    toleration_from_dict,
)

TABLE = json.loads((Path(__file__).parent / "data" / "kubernetes-tolerations.json").read_text())["cases"]
OURS = [
    {
        "description": "an empty effect tolerates every effect",
        "toleration": {"key": "foo", "operator": "Exists"},
        "taint": {"key": "foo", "effect": "NoExecute"},
        "tolerated": True,
    },
    {
        "description": "an empty operator means Equal",
        "toleration": {"key": "foo", "value": "bar"},
        "taint": {"key": "foo", "value": "bar", "effect": "NoSchedule"},
        "tolerated": True,
    },
    {
        "description": "another key is not tolerated",
        "toleration": {"key": "foo", "operator": "Exists"},
        "taint": {"key": "other", "effect": "NoSchedule"},
        "tolerated": False,
    },
    {
        "description": "an unknown operator tolerates nothing",
        "toleration": {"key": "foo", "operator": "Gte", "value": "1"},
        "taint": {"key": "foo", "value": "1", "effect": "NoSchedule"},
        "tolerated": False,
    },
]


@pytest.mark.parametrize("case", TABLE + OURS, ids=lambda case: case["description"])
def test_a_toleration_tolerates_a_taint_as_kubernetes_decides(case):
    toleration = toleration_from_dict(case["toleration"])
    assert toleration.tolerates(taint_from_dict(case["taint"])) is case["tolerated"]


def test_taints_and_tolerations_print_as_kubectl_writes_them():
    assert str(Taint("dedicated", "gpu", "NoSchedule")) == "dedicated=gpu:NoSchedule"
    assert (
        str(Taint("cluster.karmada.io/not-ready", "", "NoExecute"))
        == "cluster.karmada.io/not-ready:NoExecute"
    )
    assert str(Toleration("", "Exists")) == "*"
    assert str(Toleration("dedicated", "Equal", "gpu", "NoSchedule")) == "dedicated=gpu:NoSchedule"


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        (None, "", "is required"),
        ({"effect": "NoSchedule"}, "key", "is required"),
        (
            {"key": "a", "effect": "Sometimes"},
            "effect",
            "must be one of NoSchedule, PreferNoSchedule, NoExecute",
        ),
        ({"key": 5, "effect": "NoSchedule"}, "key", "must be a string"),
    ],
)
def test_a_malformed_taint_names_its_field(data, field, reason):
    with pytest.raises(TaintError) as caught:
        taint_from_dict(data)
    assert (caught.value.field, caught.value.reason) == (field, reason)


def test_toleration_seconds_are_whole():
    assert toleration_from_dict({"operator": "Exists", "tolerationSeconds": 30.0}).toleration_seconds == 30
    with pytest.raises(TaintError, match="tolerationSeconds: must be an integer"):
        toleration_from_dict({"operator": "Exists", "tolerationSeconds": "soon"})


def test_a_taint_is_validated_field_by_field():
    assert taint_errors("dedicated", "gpu", "NoSchedule") == []
    assert [field for field, _ in taint_errors("-bad", "no way", "Later")] == ["key", "value", "effect"]


def test_the_first_untolerated_taint_skips_prefer_no_schedule():
    soft, hard = Taint("soft", "", "PreferNoSchedule"), Taint("hard", "", "NoSchedule")
    assert first_untolerated((soft, hard), ()) == hard
    assert first_untolerated((soft, hard), (Toleration("hard", "Exists"),)) is None
