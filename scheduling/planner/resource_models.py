"""Cluster resource models: the grade-based estimate the general estimator prefers when modelings exist."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kubesyntax.fieldpaths import join
from kubesyntax.quantities import QuantityError, milli_units, quantity_amount, whole_units

from .errors import InputError
from .parsing import get_int, get_list, get_str, require_map

# Kubernetes' default pod limit per node; Karmada gives every modelled node this pod capacity.
PODS_PER_MODEL_NODE = 110


@dataclass(frozen=True)
class ResourceModel:
    """One ``spec.resourceModels`` grade: a modelled node has the minimum of every range."""

    grade: int
    minimums: dict[str, Fraction] = field(default_factory=dict)


def parse_resource_models(data: Any, path: str) -> tuple[ResourceModel, ...]:
    """``spec.resourceModels`` [{grade, ranges: [{name, min, max}]}]."""
    models = []
    for i, item in enumerate(get_list(data, path) or []):
        item_path = join(path, i)
        item = require_map(item, item_path)
        minimums = {}
        for j, entry in enumerate(get_list(item.get("ranges"), join(item_path, "ranges")) or []):
            entry_path = join(join(item_path, "ranges"), j)
            entry = require_map(entry, entry_path)
            name = get_str(entry.get("name"), join(entry_path, "name"))
            try:
                minimums[name] = quantity_amount(entry.get("min", 0))
            except QuantityError as exc:
                raise InputError(join(entry_path, "min"), str(exc)) from None
        models.append(
            ResourceModel(grade=get_int(item.get("grade"), join(item_path, "grade")), minimums=minimums)
        )
    return tuple(models)


def parse_modelings(data: Any, path: str) -> tuple[tuple[int, int], ...]:
    """``status.resourceSummary.allocatableModelings`` [{grade, count}] as (grade, count) pairs."""
    result = []
    for i, item in enumerate(get_list(data, path) or []):
        item_path = join(path, i)
        item = require_map(item, item_path)
        result.append(
            (
                get_int(item.get("grade"), join(item_path, "grade")),
                get_int(item.get("count"), join(item_path, "count")),
            )
        )
    return tuple(result)


def _scalar(name: str) -> bool:
    """Extended, prefixed native, hugepages and attachable-volume resources (Kubernetes scalar resources)."""
    if name.startswith(("hugepages-", "attachable-volumes-")):
        return True
    return "/" in name


def _per_node(minimums: dict[str, Fraction], request: dict[str, Fraction]) -> int:
    """Replicas one modelled node holds: every positive cpu/memory/storage/scalar request, and 110 pods."""
    best = PODS_PER_MODEL_NODE
    for name, amount in request.items():
        if name == "cpu":
            wanted, have = milli_units(amount), milli_units(minimums.get(name, Fraction(0)))
        elif name in ("memory", "ephemeral-storage") or _scalar(name):
            wanted, have = whole_units(amount), whole_units(minimums.get(name, Fraction(0)))
        else:
            continue
        if wanted > 0:
            best = min(best, have // wanted)
    return max(best, 0)


def estimate_by_models(
    models: tuple[ResourceModel, ...], modelings: tuple[tuple[int, int], ...], request: dict[str, Fraction]
) -> int | None:
    """Replicas that fit on the modelled nodes, or None when the models cannot be used (Karmada then
    falls back to the resource summary): no models defined, or a negative node count."""
    if not models:
        return None
    counts: dict[int, int] = {}
    for grade, count in modelings:
        if count < 0:
            return None
        counts[grade] = counts.get(grade, 0) + count
    by_grade = {model.grade: model.minimums for model in models}
    return sum(counts.get(grade, 0) * _per_node(minimums, request) for grade, minimums in by_grade.items())
