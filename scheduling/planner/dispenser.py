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
                "weights": {name: votes.get(name, 0) for name in parties},
                "initial": {name: count for name, count in sorted(initial.items()) if count},
                "result": result,
                "seats": contested,
            }
        )
    return result


def _webster(
    seats: int, parties: list[str], votes: dict[str, int], initial: dict[str, int], uid: str
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    order = name_order(uid)
    descending = order.startswith("name descending")
    count = {name: initial.get(name, 0) for name in parties}
    remaining = seats
    if not any(initial.values()) and seats > 0:
        remaining -= _award_clear_seats(seats, parties, votes, count)
    heap = []
    for rank, name in enumerate(parties):
        weight = votes.get(name, 0)
        tie = -rank if descending else rank
        heap.append((-(weight / (2 * count[name] + 1)), count[name], tie, name))
    heapq.heapify(heap)
    contested = []
    handed = seats - remaining
    for _ in range(remaining):
        neg_priority, seated, tie, name = heapq.heappop(heap)
        handed += 1
        record: dict[str, Any] = {
            "replica": handed,
            "cluster": name,
            "priority": round(-neg_priority, 6),
            "runner_up": None,
            "runner_up_priority": None,
            "tie_break": None,
        }
        if heap:
            rival_priority, rival_seated, _, rival = heap[0]
            record["runner_up"] = rival
            record["runner_up_priority"] = round(-rival_priority, 6)
            if rival_priority == neg_priority:
                record["tie_break"] = "fewer seats" if seated != rival_seated else order
        contested.append(record)
        count[name] = seated + 1
        heapq.heappush(heap, (-(votes.get(name, 0) / (2 * seated + 3)), seated + 1, tie, name))
    return {name: count[name] for name in parties}, contested


def _award_clear_seats(seats: int, parties: list[str], votes: dict[str, int], count: dict[str, int]) -> int:
    """Give every seat whose priority beats a threshold no contest can reach, all at once.

    The threshold is the highest priority any party has at its floor quota, so no party passes
    its floor quota here and the seats left for one-by-one contest are the rounding ones.
    """
    total = sum(votes.values())
    threshold = 0.0
    for name in parties:
        weight = votes.get(name, 0)
        if weight > 0:
            floor_quota = weight * seats // total
            threshold = max(threshold, weight / (2 * floor_quota + 1))
    awarded = 0
    for name in parties:
        weight = votes.get(name, 0)
        if weight <= 0:
            continue
        k = max(0, math.floor((weight / threshold - 1) / 2) + 1)
        while k > 0 and weight / (2 * k - 1) <= threshold:
            k -= 1
        while weight / (2 * k + 1) > threshold:
            k += 1
        count[name] = k
        awarded += k
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
            "priority": round(-neg_rem / total, 6),
            "runner_up": None,
            "runner_up_priority": None,
            "tie_break": None,
        }
        if position + 1 < len(remainders):
            rival_rem, rival_weight, rival = remainders[position + 1]
            record["runner_up"] = rival
            record["runner_up_priority"] = round(-rival_rem / total, 6)
            if rival_rem == neg_rem:
                record["tie_break"] = "larger weight" if rival_weight != neg_weight else "name ascending"
        contested.append(record)
    return {name: initial.get(name, 0) + new[name] for name in parties}, contested
