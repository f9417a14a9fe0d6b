"""Every public Karmada case, run through the planner at the level it names."""

import pytest

from .cases import load_cases, matches_expectation, run_case

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_public_case_gives_karmadas_answer(case):
    actual = run_case(case)
    assert matches_expectation(case, actual), f"{case['id']}: expected {case['expect']}, got {actual}"
