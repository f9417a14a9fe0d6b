"""Divide replicas by weight: Webster with Karmada's UID-parity tie-break, or largest remainder."""

from __future__ import annotations

import heapq
import math
from typing import Any

from .placement import LARGEST_REMAINDER, WEBSTER

FNV_OFFSET = 2166136261
FNV_PRIME = 16777619


def fnv1a32(data: bytes) -> int:
    """FNV-1a, 32 bits."""
    value = FNV_OFFSET
    for byte in data:
        value = ((value ^ byte) * FNV_PRIME) & 0xFFFFFFFF
    return value


def name_order(uid: str) -> str:
    """The name tie-break for a template UID: empty or even hash ascending, odd hash descending."""
    if not uid:
        return "name ascending (uid empty)"
    if fnv1a32(uid.encode()) & 1:
        return "name descending (uid odd)"
    return "name ascending (uid even)"


def divide(
    seats: int,
    weights: list[tuple[str, int]],
    uid: str = "",
    initial: dict[str, int] | None = None,
    method: str = WEBSTER,
    trace: list[dict[str, Any]] | None = None,
) -> dict[str, int]:
    """Hand out ``seats`` replicas over weighted clusters on top of ``initial`` seats (Karmada's Dispenser).

    Returns every party (weighted or initially seated) sorted by name, zero seats included.
    When ``trace`` is a list, one record describing the division is appended to it.
    """
    initial = {name: count for name, count in (initial or {}).items()}
    votes = dict(weights)
    if seats == 0 and initial:
        return dict(sorted(initial.items()))
    if sum(votes.values()) == 0:
        return dict(sorted(initial.items()))
    parties = sorted(set(votes) | set(initial))
    if method == LARGEST_REMAINDER:
        result, contested = _largest_remainder(seats, parties, votes, initial)
    else:
        result, contested = _webster(seats, parties, votes, initial, uid)
    if trace is not None:
        trace.append(
            {
                "method": method,
                "replicas": seats,
                "weights": {**dict.fromkeys(initial, 0), **votes},
                "initial": {name: count for name, count in sorted(initial.items()) if count},
                "result": result,
                "seats": contested,
            }
        )
    return result


def webster_seats(
    seats: int, votes: dict[str, int], initial: dict[str, int], uid: str = ""
) -> dict[str, int]:
    """Karmada AllocateWebsterSeats with no Dispenser short-cuts: every party, sorted by name.

    Zero-vote parties still take part (their priority is 0, so they win only ties among zeros).
    """
    parties = sorted(set(votes) | set(initial))
    return _webster(seats, parties, votes, initial, uid)[0]


def _webster(
    seats: int, parties: list[str], votes: dict[str, int], initial: dict[str, int], uid: str
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    if not parties:
        return {}, []
    order = name_order(uid)
    descending = order.startswith("name descending")
    count = {name: initial.get(name, 0) for name in parties}
    remaining = seats
    positive = any(votes.get(name, 0) > 0 for name in parties)
    if positive and seats > 0 and not any(initial.values()):
        remaining -= _award_clear_seats(seats, parties, votes, count)
    # While any party has votes, a zero-vote party's priority (0) never wins a seat.
    heap = [
        (-(votes.get(name, 0) / (2 * count[name] + 1)), count[name], -rank if descending else rank, name)
        for rank, name in enumerate(parties)
        if not positive or votes.get(name, 0) > 0
    ]
    heapq.heapify(heap)
    contested = []
    handed = seats - remaining
    for _ in range(remaining):
        neg_priority, seated, tie, name = heap[0]
        handed += 1
        record: dict[str, Any] = {
            "replica": handed,
            "cluster": name,
            "priority": -neg_priority,
            "runner_up": None,
            "runner_up_priority": None,
            "tie_break": None,
        }
        if len(heap) > 1:
            # The runner-up of a binary heap's top is the better of the top's two children.
            rival_priority, rival_seated, _, rival = min(heap[1:3])
            record["runner_up"] = rival
            record["runner_up_priority"] = -rival_priority
            if rival_priority == neg_priority:
                record["tie_break"] = "fewer seats" if seated != rival_seated else order
        contested.append(record)
        count[name] = seated + 1
        heapq.heapreplace(heap, (-(votes.get(name, 0) / (2 * seated + 3)), seated + 1, tie, name))
    return {name: count[name] for name in parties}, contested


CONTESTED_TARGET = 32


def _seats_above(weights: list[tuple[str, int]], threshold: float) -> dict[str, int]:
    """For each party, how many of its seats have a priority strictly above ``threshold``."""
    result = {}
    for name, weight in weights:
        k = max(0, math.floor((weight / threshold - 1) / 2) + 1)
        while k > 0 and weight / (2 * k - 1) <= threshold:
            k -= 1
        while weight / (2 * k + 1) > threshold:
            k += 1
        result[name] = k
    return result


def _award_clear_seats(seats: int, parties: list[str], votes: dict[str, int], count: dict[str, int]) -> int:
    """Give, all at once, every seat whose priority beats a threshold that the contest cannot reach.

    The threshold starts at the highest priority any party has at its floor quota, so no party
    passes its floor quota and the seats left to contest one by one are the rounding ones.  When
    that leaves many seats (many clusters), the threshold is lowered while it stays safe, so only
    about ``CONTESTED_TARGET`` seats are contested.
    """
    weights = [(name, votes[name]) for name in parties if votes.get(name, 0) > 0]
    total = sum(weight for _, weight in weights)
    threshold = max(weight / (2 * (weight * seats // total) + 1) for _, weight in weights)
    above = _seats_above(weights, threshold)
    awarded = sum(above.values())
    goal = seats - CONTESTED_TARGET // 2
    for _ in range(4):
        if seats - awarded <= CONTESTED_TARGET or goal <= len(weights) / 2:
            break
        lower = total / (2 * (goal - len(weights) / 2))
        if lower >= threshold:
            break
        trial = _seats_above(weights, lower)
        trial_awarded = sum(trial.values())
        if trial_awarded <= seats:
            threshold, above, awarded = lower, trial, trial_awarded
        else:
            goal -= trial_awarded - seats + CONTESTED_TARGET // 2
    count.update(above)
    return awarded


def _largest_remainder(
    seats: int, parties: list[str], votes: dict[str, int], initial: dict[str, int]
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    total = sum(votes.values())
    new = {}
    remainders = []
    for name in parties:
        weight = votes.get(name, 0)
        new[name] = weight * seats // total
        remainders.append((-(weight * seats % total), -weight, name))
    remainders.sort()
    handed = sum(new.values())
    left = seats - handed
    contested = []
    for position in range(left):
        neg_rem, neg_weight, name = remainders[position]
        new[name] += 1
        handed += 1
        record: dict[str, Any] = {
            "replica": handed,
            "cluster": name,
            "priority": -neg_rem / total,
            "runner_up": None,
            "runner_up_priority": None,
            "tie_break": None,
        }
        if position + 1 < len(remainders):
            rival_rem, rival_weight, rival = remainders[position + 1]
            record["runner_up"] = rival
            record["runner_up_priority"] = -rival_rem / total
            if rival_rem == neg_rem:
                record["tie_break"] = "larger weight" if rival_weight != neg_weight else "name ascending"
        contested.append(record)
    return {name: initial.get(name, 0) + new[name] for name in parties}, contested
