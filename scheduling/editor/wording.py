"""The editor's sentences about plans, in the user's language: reasons, rounding, capacity and comparisons."""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

# One sentence per planner reason code; the parameters are the planner's own (scheduling.planner.messages).
REASONS = {
    "deleting": gettext_lazy("the cluster is being deleted"),
    "api_disabled": gettext_lazy("API %(api)s is not enabled on the cluster"),
    "api_unknown": gettext_lazy("API %(api)s is not in the cluster's incomplete API list"),
    "taint_not_tolerated": gettext_lazy("taint %(taint)s is not tolerated"),
    "excluded": gettext_lazy("listed in exclude"),
    "not_in_cluster_names": gettext_lazy("not in clusterNames"),
    "label_mismatch": gettext_lazy("label %(label)s does not match %(requirement)s"),
    "label_missing": gettext_lazy("label %(key)s is missing, required by %(requirement)s"),
    "invalid_label_selector": gettext_lazy("the label selector is invalid: %(error)s"),
    "field_mismatch": gettext_lazy("%(field)s %(value)s does not match %(requirement)s"),
    "invalid_field_selector": gettext_lazy("the field selector is invalid: %(error)s"),
    "no_affinity_term": gettext_lazy("cluster affinity term %(term)s does not exist"),
    "spread_field_missing": gettext_lazy("%(field)s is not set, required by the %(field)s spread constraint"),
    "evicting": gettext_lazy("a graceful eviction is moving the workload off this cluster"),
    "region_not_chosen": gettext_lazy("region %(region)s was not chosen by the region spread constraint"),
    "spread_limit": gettext_lazy("not among the %(limit)s cluster(s) the spread constraints keep"),
    "affinity_group_elsewhere": gettext_lazy(
        "%(peer)s of the workload affinity group %(group)s does not run here"
    ),
    "anti_affinity_group_here": gettext_lazy(
        "%(peer)s of the workload anti-affinity group %(group)s already runs here"
    ),
}

METHOD_NAMES = {"webster": gettext_lazy("Webster"), "largest-remainder": gettext_lazy("largest remainder")}

SEAT_ALONE = gettext_lazy(
    "%(cluster)s gets the %(ordinal)s replica: %(method)s priority %(priority)s, no other cluster left."
)
SEAT_PRIORITY = gettext_lazy(
    "%(cluster)s gets the %(ordinal)s replica: "
    "%(method)s priority %(priority)s vs %(runner_up_priority)s for %(runner_up)s"
)
SEAT_REMAINDER = gettext_lazy(
    "%(cluster)s gets the %(ordinal)s replica: "
    "remainder %(priority)s vs %(runner_up_priority)s for %(runner_up)s"
)

TIE_RULES = {
    "fewer seats": gettext_lazy("a tie, settled by fewer replicas"),
    "name ascending (uid empty)": gettext_lazy("a tie, settled by name (the workload has no UID yet)"),
    "name ascending (uid even)": gettext_lazy("a tie, settled by name ascending (even UID hash)"),
    "name descending (uid odd)": gettext_lazy("a tie, settled by name descending (odd UID hash)"),
    "larger weight": gettext_lazy("a tie, settled by the larger weight"),
    "name ascending": gettext_lazy("a tie, settled by name"),
}


def reason_text(reason: dict[str, Any]) -> str:
    """One planner reason ({filter, code, params, message}) as a sentence in the user's language."""
    template = REASONS.get(reason.get("code", ""))
    if template is None:
        return str(reason.get("message", ""))
    try:
        return str(template) % reason.get("params", {})
    except (KeyError, TypeError, ValueError):
        return str(reason.get("message", ""))


def ordinal(number: int) -> str:
    """11 → "11th" in English, "第 11 个" in Chinese."""
    if (get_language() or "en").startswith("zh"):
        return f"第 {number} 个"
    if 10 <= number % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def method_name(method: str) -> str:
    return str(METHOD_NAMES.get(method, method))


def seat_sentence(seat: dict[str, Any], method: str) -> str:
    """Why one contested replica went where it went, e.g. 'guangzhou gets the 11th replica: …'."""
    values = {
        "cluster": seat["cluster"],
        "ordinal": ordinal(seat["replica"]),
        "method": method_name(method),
        "priority": f"{seat['priority']:.2f}",
    }
    if seat.get("runner_up") is None:
        return str(SEAT_ALONE) % values
    values.update(runner_up=seat["runner_up"], runner_up_priority=f"{seat['runner_up_priority']:.2f}")
    text = str(SEAT_REMAINDER if method == "largest-remainder" else SEAT_PRIORITY) % values
    if seat.get("tie_break"):
        text += " (" + str(TIE_RULES.get(seat["tie_break"], seat["tie_break"])) + ")"
    return text + "."


def split_text(replicas: dict[str, int]) -> str:
    """{beijing: 8, shanghai: 3} → "beijing 8, shanghai 3"."""
    return ", ".join(f"{name} {count}" for name, count in replicas.items()) or _("nothing")


def capitalised(text: str) -> str:
    """The sentence with its first letter in upper case (method names open some sentences)."""
    return text[:1].upper() + text[1:]


QUOTA_OVER = gettext_lazy(
    "%(quota)s: %(resource)s would reach %(projected)s of %(limit)s, %(over)s over "
    "(the namespace uses %(used)s now; this split changes it by %(change)s)."
)
QUOTA_WITHIN = gettext_lazy(
    "%(quota)s: %(resource)s %(projected)s of %(limit)s after this split (%(change)s)."
)
QUOTA_UNCHANGED = gettext_lazy("%(quota)s: this split does not change what the namespace uses.")


def quota_lines(quota: dict[str, Any] | None) -> list[str]:
    """One sentence per quota resource the split touches: within the limit, or over it and by how much."""
    lines = []
    for entry in (quota or {}).get("quotas", []):
        name = f"{entry['namespace']}/{entry['name']}"
        if entry.get("unchanged"):
            lines.append(str(QUOTA_UNCHANGED) % {"quota": name})
            continue
        for resource in entry.get("resources", []):
            if not resource.get("over") and resource.get("change") in ("+0", "-0"):
                continue  # a limit this split does not touch and that is not exceeded
            values = {"quota": name, **resource}
            lines.append(str(QUOTA_OVER if resource.get("over") else QUOTA_WITHIN) % values)
    return lines


COST_TOTAL = gettext_lazy("Estimated cost of this split: %(hour)s per hour, %(month)s per month.")
COST_CHANGE = gettext_lazy(
    "Now %(now)s per hour; this split changes it by %(change)s per hour (%(month)s per month)."
)
COST_UNPRICED = gettext_lazy("Not priced (no cost label): %(clusters)s.")


def cost_sentences(cost: dict[str, Any] | None) -> list[str]:
    """The split's estimated cost, its change from the current split, and the clusters without a price."""
    if not cost:
        return []
    lines = [str(COST_TOTAL) % {"hour": f"{cost['hour']:.4f}", "month": f"{cost['month']:.2f}"}]
    if cost.get("difference_hour") is not None:
        values = {
            "now": f"{cost['current_hour']:.4f}",
            "change": f"{cost['difference_hour']:+.4f}",
            "month": f"{cost['difference_month']:+.2f}",
        }
        lines.append(str(COST_CHANGE) % values)
    if cost.get("unpriced"):
        lines.append(str(COST_UNPRICED) % {"clusters": ", ".join(cost["unpriced"])})
    return lines
