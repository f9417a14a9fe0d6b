"""Digests, computed in SQL, of what detection, sync and aggregation read for each binding."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from django.db import connection, models

from clusters.models import Cluster
from scheduling.controllers.values_sql import values_list
from scheduling.karmada.priority import PRIORITY_CLASS_API_GROUP, PRIORITY_CLASS_KIND
from scheduling.models import (
    COUNT_COLUMNS,
    OverridePolicy,
    PropagationPolicy,
    ResourceBinding,
    ResourceTemplate,
    Work,
)

# bindings digested per statement (their Works are grouped in the same statement)
RANGE = 500
DETECT, SYNC, AGGREGATE = "detect_digest", "sync_digest", "aggregate_digest"
STEPS = (DETECT, SYNC, AGGREGATE)
# The steps whose inputs' digest is also kept on its own, and in which column (Settled.inputs_unmoved)
INPUT_DIGESTS = {SYNC: "sync_inputs_digest"}


def _table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def supported() -> bool:
    """Digests need PostgreSQL's md5 and string_agg; elsewhere every binding goes through every step."""
    return connection.vendor == "postgresql"


# What every binding's detection reads besides its own rows: the propagation policies, the override
# policies, the PriorityClasses a schedulePriority names, and what overrides match clusters on. A change
# of any of them (a row changed, added or removed) changes every binding's detect digest.
DETECT_SHARED_SQL = (
    "SELECT md5(concat_ws('#', "
    "(SELECT string_agg(row_to_json(p)::text, ',' ORDER BY p.id) FROM {policies} p), "
    "(SELECT string_agg(row_to_json(o)::text, ',' ORDER BY o.id) FROM {overrides} o), "
    "(SELECT string_agg(concat_ws('|', c.name, c.labels::text, c.provider, c.region, c.zones::text), ',' "
    "ORDER BY c.name) FROM {clusters} c), "
    "(SELECT string_agg(concat_ws('|', t.id, t.manifest::text, t.deleting_since), ',' ORDER BY t.id) "
    "FROM {templates} t WHERE t.api_group = %s AND t.kind = %s)))"
)
# What every binding's sync (its render) reads besides its own rows: of the propagation policies only what
# a member copy or a rollout names (a claiming policy's identity, which its labels carry; a policy's
# annotations, which stage a rollout), the override policies, and what overrides match clusters on. A
# policy's spec reaches the sync only through what detection writes onto the binding (its placement,
# conflict resolution, suspension, dependencies: inputs of the binding's own), its labels not at all: a
# policy edit that changes no binding (a label, a new revision of the same spec) syncs nothing.
SYNC_SHARED_SQL = (
    "SELECT md5(concat_ws('#', "
    "(SELECT string_agg(concat_ws('|', p.id, p.kind, p.namespace, p.name, p.permanent_id, "
    "p.annotations::text), ',' ORDER BY p.id) FROM {policies} p), "
    "(SELECT string_agg(row_to_json(o)::text, ',' ORDER BY o.id) FROM {overrides} o), "
    "(SELECT string_agg(concat_ws('|', c.name, c.labels::text, c.provider, c.region, c.zones::text), ',' "
    "ORDER BY c.name) FROM {clusters} c)))"
)
SHARED_SQL = {DETECT: DETECT_SHARED_SQL, SYNC: SYNC_SHARED_SQL}

# What each step reads (its inputs) and what it writes (its outputs), as SQL over a binding `b`, its
# template `t` and its Works grouped `w`. A stored digest is whole(inputs, outputs): the inputs as the
# step read them before it ran, its outputs as it left them, so that a step that wrote is settled at once
# and an input that moved while it ran still differs. NULLs are written out (a concat_ws would drop them
# and let two different rows digest alike); `%s::text` is the step's shared digest (SHARED_SQL).
COUNTS = ", ".join(f"b.{column}" for column in COUNT_COLUMNS)
# The binding's target clusters as a set: a sync renders the same Works whatever their order (render
# keys sort them) and the aggregation sorts its entries by cluster name, so a re-plan that only reorders
# them (a Duplicated binding's candidates follow the clusters' available replicas) leaves both settled.
CLUSTER_SET = (
    "CASE WHEN jsonb_typeof(b.clusters) = 'array' THEN coalesce((SELECT string_agg(e::text, ',' "
    "ORDER BY e::text) FROM jsonb_array_elements(b.clusters) AS e), '') ELSE b.clusters::text END"
)
INPUTS = {
    DETECT: "%s::text, t.manifest::text, t.generation, coalesce(t.deleting_since::text, '-')",
    SYNC: "%s::text, b.kind, b.namespace, b.name, b.permanent_id, b.conflict_resolution, b.replicas, "
    f"b.placement::text, {CLUSTER_SET}, coalesce(b.suspension::text, '-'), "
    "b.graceful_eviction_tasks::text, b.propagate_deps, t.uid, t.api_version, t.kind, t.namespace, "
    "t.name, t.generation, t.manifest::text, coalesce(t.policy_id, 0), "
    "coalesce(t.deleting_since::text, '-')",
    AGGREGATE: f"{CLUSTER_SET}, b.replicas, t.manifest::text, t.generation, coalesce(w.status, '-')",
}
OUTPUTS = {
    DETECT: "coalesce(t.policy_id, 0), coalesce(b.policy_id, 0), b.template_generation, b.replicas, "
    "coalesce(b.replica_requirements::text, '-'), b.placement::text, b.scheduler_name, "
    "b.conflict_resolution, b.propagate_deps, b.preserve_resources_on_deletion, "
    "coalesce(b.suspension::text, '-'), b.suspension_holds::text, coalesce(b.schedule_priority::text, '-'), "
    "coalesce(b.workload_affinity_groups::text, '-'), coalesce(b.failover::text, '-')",
    SYNC: "b.rendered_key, coalesce(w.render, '-')",
    AGGREGATE: f"b.aggregated_status::text, b.conditions::text, {COUNTS}, coalesce(t.status::text, '-')",
}
WORK_GROUPS = {
    "render": "string_agg(concat_ws('|', id, cluster_name, permanent_id, desired_hash, deleting, suspended, "
    "applied_overrides::text), ',' ORDER BY id) AS render",
    "status": "string_agg(concat_ws('|', id, cluster_name, deleting, "
    "applied AND applied_hash = desired_hash, health, status::text, status_at IS NULL, applied_message), "
    "',' ORDER BY id) AS status",
}


def _md5(columns: str) -> str:
    return f"md5(concat_ws('|', {columns}))"


def _whole(step: str) -> str:
    return f"md5({_md5(INPUTS[step])} || '|' || {_md5(OUTPUTS[step])})"


def _works_join(groups: list[str], where: str) -> str:
    """The Works of the bindings `where` selects (on binding_id), grouped into the columns named."""
    if not groups:
        return ""
    columns = ", ".join(WORK_GROUPS[name] for name in groups)
    return (
        # Only this module's constant SQL is interpolated here; every value is a parameter.
        f"LEFT JOIN (SELECT binding_id, {columns} FROM {{works}} WHERE {where} GROUP BY binding_id) w "  # noqa: S608
        "ON w.binding_id = b.id "
    )


# One row per binding: its three stored digests beside the current ones.
DIGESTS_SQL = (
    "SELECT b.id, b.template_id, b.detect_digest, b.sync_digest, b.aggregate_digest, "  # noqa: S608
    f"{_whole(DETECT)}, {_whole(SYNC)}, {_whole(AGGREGATE)} "
    "FROM {bindings} b JOIN {templates} t ON t.id = b.template_id "
    + _works_join(["render", "status"], "binding_id >= %s AND binding_id < %s")
    + "WHERE b.id >= %s AND b.id < %s ORDER BY b.id"
)


def whole(inputs: str, outputs: str) -> str:
    """The digest stored for a step: its inputs' and outputs' digests together, as _whole computes it."""
    return hashlib.md5(f"{inputs}|{outputs}".encode(), usedforsecurity=False).hexdigest()


def _of_ids(groups: list[str]) -> str:
    """FROM the bindings `b` with their templates `t` and, grouped `w`, the Works of the ids given."""
    return (
        "FROM {bindings} b JOIN {templates} t ON t.id = b.template_id "
        + _works_join(groups, "binding_id = ANY(%s)")
    ).format(bindings=_table(ResourceBinding), templates=_table(ResourceTemplate), works=_table(Work))


def part_digests(expression: str, ids: list[int], shared: str, stored: str = "") -> dict[int, str]:
    """The digest of one INPUTS or OUTPUTS `expression` for the bindings given, in one statement; with
    `stored` (a step, or an INPUT_DIGESTS column), each as "digest:stored digest"."""
    groups = [name for name in WORK_GROUPS if f"w.{name}" in expression]
    # Only this module's constant SQL and quoted identifiers are interpolated; every value is a parameter.
    digest = _md5(expression)
    if stored:
        if stored not in STEPS and stored not in INPUT_DIGESTS.values():
            raise ValueError(stored)
        digest = f"{digest} || ':' || coalesce(b.{stored}, '')"
    select = f"SELECT b.id, {digest} "
    sql = select + _of_ids(groups) + "WHERE b.id = ANY(%s)"
    params: list[object] = [shared] if "%s::text" in expression else []
    params += [ids] * (2 if groups else 1)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {pk: str(digest) for pk, digest in cursor.fetchall()}


class Settled:
    """One step's run over some bindings: their inputs digested before it reads them; `store` digests
    its outputs once it has written and records the bindings as settled by it."""

    def __init__(self, step: str, ids: list[int], shared: str | None = None) -> None:
        """`shared`: the shared digest as the pass read it (moved().shared), else read now; one read
        earlier than the step's is safe, as a change since then still differs at the next pass."""
        if step not in STEPS:
            raise ValueError(step)
        self.step = step
        self.inputs: dict[int, str] = {}
        # the inputs digest stored for each (INPUT_DIGESTS), read in the same statement
        self.stored_inputs: dict[int, str] = {}
        if supported() and ids:
            needs_shared = "%s::text" in INPUTS[step]
            shared = shared if shared is not None or not needs_shared else shared_digest(step)
            column = INPUT_DIGESTS.get(step, "")
            for pk, found in part_digests(INPUTS[step], ids, shared or "", stored=column).items():
                digest, _, stored = found.partition(":") if column else (found, "", "")
                self.inputs[pk], self.stored_inputs[pk] = digest, stored

    def _wholes(self, ids: Iterable[int]) -> dict[int, tuple[str, str]]:
        """Each of these bindings' whole digest now (its inputs as read, its outputs as they stand) beside
        the stored one, in one statement; bindings gone are left out."""
        wanted = [pk for pk in ids if pk in self.inputs]
        if not wanted:
            return {}
        outputs = part_digests(OUTPUTS[self.step], wanted, "", stored=self.step)
        found = {}
        for pk, pair in outputs.items():
            out, before = pair.split(":", 1)
            found[pk] = (whole(self.inputs[pk], out), before)
        return found

    def unmoved(self) -> set[int]:
        """The bindings the step would find as it last left them: nothing it reads moved since it stored
        their digest, nor anything it writes (what the periodic reconcile skips on the same digest)."""
        return {pk for pk, (now, before) in self._wholes(self.inputs).items() if now == before}

    def store(self, ids: Iterable[int]) -> None:
        # those settled as they were already: nothing to write
        store(self.step, {pk: now for pk, (now, before) in self._wholes(ids).items() if now != before})

    def inputs_unmoved(self) -> set[int]:
        """The bindings whose inputs are as the step read them when it last settled them (their inputs
        digest, INPUT_DIGESTS). What the step writes is not looked at: only the step writes it, and what
        else does (a Work changed behind the engine's back) moves the whole digest, which the periodic
        pass compares. Reads nothing more: no Work (at 100 Works a binding, a third of unmoved()'s cost)."""
        return {pk for pk, digest in self.inputs.items() if self.stored_inputs.get(pk) == digest}

    def store_inputs(self, ids: Iterable[int]) -> None:
        """Record these bindings' inputs as the step read them (they are settled: it ran, or found them
        so); only those that differ from the stored ones are written."""
        changed = {pk: self.inputs[pk] for pk in ids if pk in self.inputs}
        store(
            INPUT_DIGESTS[self.step],
            {pk: digest for pk, digest in changed.items() if self.stored_inputs.get(pk) != digest},
        )


@dataclass
class Moved:
    """The bindings whose inputs moved since each step last found them settled, with the digests read
    (to store once a step has settled them), and the templates each binding belongs to."""

    detect: dict[int, str] = field(default_factory=dict)
    sync: dict[int, str] = field(default_factory=dict)
    aggregate: dict[int, str] = field(default_factory=dict)
    templates: dict[int, int] = field(default_factory=dict)  # binding id -> template id, for `detect`
    shared: str = ""  # the sync's shared digest the pass read, for the syncs' Settled


def unsettled(step: str, ids: list[int]) -> list[int]:
    """Those of these bindings whose `step` would not find them as it last left them (their digest
    moved, or none is stored); every one of them without PostgreSQL. Not for a step reading the shared
    digest."""
    if step not in STEPS or "%s::text" in INPUTS[step]:
        raise ValueError(step)
    if not supported():
        return sorted(ids)
    if not ids:
        return []
    groups = [name for name in WORK_GROUPS if f"w.{name}" in INPUTS[step] + OUTPUTS[step]]
    # Only this module's constant SQL and quoted identifiers are interpolated; the ids are a parameter.
    sql = (
        "SELECT b.id "  # noqa: S608
        + _of_ids(groups)
        + f"WHERE b.id = ANY(%s) AND b.{step} IS DISTINCT FROM {_whole(step)} ORDER BY b.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [ids] * (2 if groups else 1))
        return [row[0] for row in cursor.fetchall()]


def shared_digest(step: str) -> str:
    """The digest of what every binding's `step` reads besides its own rows (SHARED_SQL)."""
    sql = SHARED_SQL[step].format(
        policies=_table(PropagationPolicy),
        overrides=_table(OverridePolicy),
        clusters=_table(Cluster),
        templates=_table(ResourceTemplate),
    )
    with connection.cursor() as cursor:
        # only detection's reads the PriorityClasses
        cursor.execute(sql, [PRIORITY_CLASS_API_GROUP, PRIORITY_CLASS_KIND] if step == DETECT else [])
        return str(cursor.fetchone()[0])


def _ranges() -> Iterator[tuple[int, int]]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT min(id), max(id) FROM {_table(ResourceBinding)}")  # noqa: S608
        low, high = cursor.fetchone()
    if low is None:
        return
    for start in range(low, high + 1, RANGE):
        yield start, start + RANGE


def moved() -> Moved:
    """Every binding's digests compared with the stored ones, RANGE bindings (and their Works) a
    statement; only the bindings where a step's digest differs are kept."""
    detect_shared, sync_shared = shared_digest(DETECT), shared_digest(SYNC)
    sql = DIGESTS_SQL.format(
        bindings=_table(ResourceBinding),
        templates=_table(ResourceTemplate),
        works=_table(Work),
        counts=COUNTS,
    )
    found = Moved(shared=sync_shared)
    with connection.cursor() as cursor:
        for start, end in _ranges():
            cursor.execute(sql, [detect_shared, sync_shared, start, end, start, end])
            for pk, template_id, *stored_and_now in cursor.fetchall():
                stored, now = stored_and_now[:3], stored_and_now[3:]
                for target, old, new in zip(
                    (found.detect, found.sync, found.aggregate), stored, now, strict=True
                ):
                    if old != new:
                        target[pk] = new
                if stored[0] != now[0]:
                    found.templates[pk] = template_id
    return found


def store(step: str, digests: dict[int, str]) -> None:
    """Record that `step` settled these bindings at these digests (updated_at, the resourceVersion, stays);
    `step` may also name an INPUT_DIGESTS column."""
    if step not in STEPS and step not in INPUT_DIGESTS.values():
        raise ValueError(step)
    rows = sorted(digests.items())
    if not rows:
        return
    table = _table(ResourceBinding)
    for start in range(0, len(rows), RANGE):
        values, params = values_list(("bigint", "text"), rows[start : start + RANGE])
        # Only quoted identifiers and placeholders are interpolated; every value is a parameter.
        sql = (
            f"UPDATE {table} AS b SET {step} = v.digest "  # noqa: S608
            f"FROM (VALUES {values}) AS v(id, digest) WHERE b.id = v.id"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
