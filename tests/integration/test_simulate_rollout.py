"""``manage.py simulate`` prints a staged rollout's wave plan beside the split."""

from __future__ import annotations

import json

from tests.integration.test_simulate_command import EXAMPLES, simulate

STAGED = (EXAMPLES / "staged-rollout.yaml").read_text()


def test_the_report_carries_the_wave_plan_over_the_clusters_of_the_split():
    code, out, err = simulate("-f", "-", stdin=STAGED)
    assert code == 0, err
    rollout = json.loads(out)["rollout"]
    assert rollout["soakSeconds"] == 120.0
    assert [(w["rule"], w["clusters"]) for w in rollout["plan"]] == [
        ("env=staging", ["staging"]),
        ("location/region=cn-north", ["beijing"]),
        ("*", ["guangzhou", "shanghai"]),
    ]


def test_the_table_lists_the_waves_in_order():
    code, out, _ = simulate("-f", "-", "-o", "table", stdin=STAGED)
    assert code == 0
    assert "  wave 1  env=staging: staging\n  wave 2  location/region=cn-north: beijing\n" in out
    assert "  wave 3  *: guangzhou, shanghai" in out


def test_a_cluster_left_out_of_the_split_is_left_out_of_the_waves():
    text = STAGED.replace(
        "Duplicated}", "Duplicated}\n    clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}"
    )
    code, out, _ = simulate("-f", "-", stdin=text)
    assert code == 0
    assert [w["clusters"] for w in json.loads(out)["rollout"]["plan"]] == [
        [],
        ["beijing"],
        ["guangzhou", "shanghai"],
    ]


def test_a_policy_without_waves_reports_no_rollout():
    text = STAGED.replace('rollout.karmada-ui.io/waves: "env=staging; location/region=cn-north; *"', "x: y")
    code, out, _ = simulate("-f", "-", stdin=text)
    assert code == 0
    assert json.loads(out)["rollout"] is None


def test_a_bad_wave_exits_2_with_the_document_and_the_annotation():
    code, _, err = simulate("-f", "-", stdin=STAGED.replace('; *"', '; *; env=late"'))
    assert code == 2
    assert err.strip().count("\n") == 0
    assert "PropagationPolicy web" in err
    assert (
        "metadata.annotations[rollout.karmada-ui.io/waves]: wave 3: '*' (the rest) can only be the last wave"
        in err
    )
