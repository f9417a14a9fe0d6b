"""Karmada's tests of its newer placement features (workload affinity, quota, priority) run as cases."""

import pytest

from .cases import NEWER_CASES_FILE, load_cases, matches_expectation, run_case

CASES = load_cases(NEWER_CASES_FILE)


def test_newer_cases_cover_every_feature_with_unique_ids_and_a_source():
    assert len({case["id"] for case in CASES}) == len(CASES)
    assert {case["kind"] for case in CASES} == {"workload-affinity", "quota", "priority"}
    assert all(case["source"]["file"] and case["source"]["case"] for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_newer_case_gives_karmadas_answer(case):
    actual = run_case(case)
    assert matches_expectation(case, actual), f"{case['id']}: expected {case['expect']}, got {actual}"
