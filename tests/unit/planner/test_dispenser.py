"""Webster division with Karmada's tie-breaks, largest remainder, and the contested-seat trace."""

import pytest

from scheduling.planner.dispenser import divide, fnv1a32, name_order, webster_seats

ODD_UID = "d43fdeeb-d750-4e2b-bee3-64eb94534f4c"
EVEN_UID = "4858ca61-3ff8-4095-8267-f3d059d8074c"


def test_fnv1a_matches_the_reference_vectors():
    assert fnv1a32(b"") == 0x811C9DC5
    assert fnv1a32(b"a") == 0xE40C292C
    assert fnv1a32(b"foobar") == 0xBF9CF968


def test_uid_parity_picks_the_name_order():
    assert name_order("") == "name ascending (uid empty)"
    assert name_order(ODD_UID) == "name descending (uid odd)"
    assert name_order(EVEN_UID) == "name ascending (uid even)"


@pytest.mark.parametrize(
    ("weights", "replicas", "webster", "largest_remainder"),
    [
        ((3, 1, 1), 3, (1, 1, 1), (2, 1, 0)),
        ((4, 1, 1), 4, (2, 1, 1), (3, 1, 0)),
        ((3, 2, 1), 14, (7, 5, 2), (7, 5, 2)),
        ((2, 1, 1, 1), 9, (3, 2, 2, 2), (3, 2, 2, 2)),
        ((7, 3), 10, (7, 3), (7, 3)),
        ((7, 3), 11, (8, 3), (8, 3)),
    ],
)
def test_webster_and_largest_remainder_follow_the_spec_table(weights, replicas, webster, largest_remainder):
    names = [chr(ord("A") + i) for i in range(len(weights))]
    pairs = list(zip(names, weights, strict=True))
    assert tuple(divide(replicas, pairs).values()) == webster
    assert tuple(divide(replicas, pairs, method="largest-remainder").values()) == largest_remainder


def test_contested_seat_records_priorities_and_runner_up():
    trace = []
    divide(11, [("beijing", 7), ("shanghai", 3)], trace=trace)
    assert trace[0]["seats"] == [
        {
            "replica": 11,
            "cluster": "beijing",
            "priority": 7 / 15,
            "runner_up": "shanghai",
            "runner_up_priority": 3 / 7,
            "tie_break": None,
        }
    ]


def test_exact_tie_goes_by_name_and_uid_parity_is_recorded():
    trace = []
    assert divide(5, [("member1", 1), ("member2", 1)], ODD_UID, trace=trace) == {"member1": 2, "member2": 3}
    assert trace[0]["seats"][-1]["tie_break"] == "name descending (uid odd)"


def test_fewer_seats_wins_a_priority_tie():
    trace = []
    assert divide(2, [("a", 3), ("b", 1)], initial={"a": 1}, trace=trace) == {"a": 2, "b": 1}
    assert trace[0]["seats"][0] == {
        "replica": 1,
        "cluster": "b",
        "priority": 1.0,
        "runner_up": "a",
        "runner_up_priority": 1.0,
        "tie_break": "fewer seats",
    }


def test_zero_weights_return_the_initial_assignment():
    assert divide(4, [("a", 0), ("b", 0)], initial={"a": 2}) == {"a": 2}
    assert divide(0, [("a", 1)], initial={"a": 3}) == {"a": 3}
    assert divide(0, [("a", 1), ("b", 2)]) == {"a": 0, "b": 0}


def test_largest_remainder_breaks_remainder_ties_by_weight_then_name():
    trace = []
    result = divide(1, [("b", 2), ("a", 2), ("c", 1)], method="largest-remainder", trace=trace)
    assert result == {"a": 1, "b": 0, "c": 0}
    assert trace[0]["seats"][0]["tie_break"] == "name ascending"


def test_webster_seats_without_short_cuts_seat_zero_vote_parties_by_tie_break():
    assert webster_seats(3, {"A": 0, "B": 0}, {}) == {"A": 2, "B": 1}
    assert webster_seats(0, {"A": 1}, {"B": 2}) == {"A": 0, "B": 2}
    assert webster_seats(2, {"A": 1, "B": 1}, {"A": 1}) == {"A": 2, "B": 1}


def test_webster_seats_with_no_parties_hand_out_nothing():
    assert webster_seats(3, {}, {}) == {}
