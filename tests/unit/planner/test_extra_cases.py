"""Karmada's own unit-test tables beyond the public subset, run through the planner at their levels."""

import pytest

from .cases import EXTRA_CASES_FILE, load_cases, matches_expectation, run_case

CASES = load_cases(EXTRA_CASES_FILE)


def test_extra_cases_are_transcribed_with_unique_ids_and_a_source():
    assert len({case["id"] for case in CASES}) == len(CASES)
    sources = [case["source"] for case in CASES]
    assert all(source["case"] and (source["file"] or source["test"] == "derived") for source in sources)


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_extra_case_gives_karmadas_answer(case):
    actual = run_case(case)
    assert matches_expectation(case, actual), f"{case['id']}: expected {case['expect']}, got {actual}"
