"""Label conventions: lint clusters' labels against the rules, and lint selectors against the fleet."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from kubesyntax.names import label_key_error, label_value_error
from kubesyntax.selector_maps import to_selector
from kubesyntax.selectors import DOES_NOT_EXIST, DOUBLE_EQUALS, EQUALS, IN, NOT_IN, SelectorError

ERROR, WARNING = "error", "warning"
# Values people write for the same thing; a fix maps them onto the allowed spelling.
VALUE_SYNONYMS = {
    "production": "prod",
    "prd": "prod",
    "development": "dev",
    "develop": "dev",
    "stage": "staging",
    "stg": "staging",
    "test": "testing",
}
# Keys whose value the cluster's own topology (read from its nodes) already tells us.
DERIVED_KEYS = {"location/region": "region", "location/zone": "zone", "provider": "provider"}
WELL_KNOWN_PREFIXES = ("kubernetes.io/", "k8s.io/")


@dataclass(frozen=True)
class Rule:
    """A convention as plain data (the model's fields), so linting needs no database."""

    key: str
    required: bool = False
    allowed_values: tuple[str, ...] = ()
    pattern: str = ""
    aliases: tuple[str, ...] = ()
    description: str = ""

    def allows(self, value: str) -> bool:
        if self.allowed_values and value not in self.allowed_values:
            return False
        return not (self.pattern and not re.fullmatch(self.pattern, value))

    def canonical(self, value: str) -> str | None:
        """The allowed spelling of a synonym (production -> prod), if that spelling is allowed."""
        candidate = VALUE_SYNONYMS.get(value.lower(), value.lower())
        return candidate if candidate != value and self.allows(candidate) else None


@dataclass(frozen=True)
class Subject:
    """What lint needs of a cluster: its name, labels and topology."""

    name: str
    labels: Mapping[str, str]
    region: str = ""
    zones: tuple[str, ...] = ()
    provider: str = ""

    def derived(self, key: str) -> str:
        source = DERIVED_KEYS.get(key)
        if source == "zone":
            return self.zones[0] if len(self.zones) == 1 else ""
        return str(getattr(self, source, "") or "") if source else ""


@dataclass(frozen=True)
class Finding:
    cluster: str
    severity: str
    code: str
    key: str
    message: str
    fix: dict[str, Any] | None = field(default=None, hash=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "severity": self.severity,
            "code": self.code,
            "key": self.key,
            "message": self.message,
            "fix": self.fix,
        }


def subject_of(cluster: Any) -> Subject:
    return Subject(
        name=cluster.name,
        labels=dict(cluster.labels or {}),
        region=cluster.region,
        zones=tuple(cluster.zones or ()),
        provider=cluster.provider,
    )


def rule_of(convention: Any) -> Rule:
    return Rule(
        key=convention.key,
        required=convention.required,
        allowed_values=tuple(convention.allowed_values or ()),
        pattern=convention.pattern,
        aliases=tuple(convention.aliases or ()),
        description=convention.description,
    )


def convention_errors(
    key: str, allowed: Any, pattern: str, aliases: Any, example: str
) -> dict[str, list[str]]:
    """Field errors of a convention, for the model, the form and the API."""
    errors: dict[str, list[str]] = {}
    if label_key_error(key):
        errors["key"] = [str(label_key_error(key))]
    if not isinstance(allowed, list) or not all(isinstance(v, str) for v in allowed):
        errors["allowed_values"] = [_("Allowed values must be a list of strings.")]
    else:
        bad = [str(label_value_error(v)) for v in allowed if label_value_error(v)]
        if bad:
            errors["allowed_values"] = bad
    if pattern:
        try:
            re.compile(pattern)
        except re.error as exc:
            errors["pattern"] = [_("Not a valid regular expression: %(e)s") % {"e": exc}]
    if allowed and pattern:
        errors["pattern"] = [_("Give allowed values or a pattern, not both.")]
    if not isinstance(aliases, list) or any(label_key_error(str(a)) for a in aliases):
        errors["aliases"] = [_("Aliases must be valid label keys.")]
    if example and label_value_error(example):
        errors["example"] = [str(label_value_error(example))]
    return errors


def _basename(key: str) -> str:
    return key.rpartition("/")[2].lower()


def _same_thing(a: str, b: str, rules: Mapping[str, Rule]) -> bool:
    """Two keys encode the same thing: one is the other's alias, both alias one rule, or same basename."""
    for rule in rules.values():
        group = {rule.key, *rule.aliases}
        if a in group and b in group:
            return True
    return _basename(a) == _basename(b)


def _same_value(a: str, b: str) -> bool:
    norm = lambda v: VALUE_SYNONYMS.get(v.lower(), v.lower())  # noqa: E731
    return norm(a) == norm(b)


def lint_subject(subject: Subject, rules: Mapping[str, Rule]) -> list[Finding]:
    findings: list[Finding] = []
    labels = subject.labels

    def add(severity: str, code: str, key: str, message: str, fix: dict[str, Any] | None = None) -> None:
        findings.append(Finding(subject.name, severity, code, key, message, fix))

    for rule in rules.values():
        value = labels.get(rule.key)
        if value is None:
            if not rule.required:
                continue
            alias = next((a for a in rule.aliases if a in labels and rule.allows(labels[a])), None)
            derived = subject.derived(rule.key)
            fix = None
            if alias:
                fix = {"set": {rule.key: labels[alias]}, "remove": [alias]}
            elif len(rule.allowed_values) == 1:
                fix = {"set": {rule.key: rule.allowed_values[0]}, "remove": []}
            elif derived and rule.allows(derived) and not label_value_error(derived):
                fix = {"set": {rule.key: derived}, "remove": []}
            add(ERROR, "missing", rule.key, _("missing required label %(key)s") % {"key": rule.key}, fix)
        elif not rule.allows(value):
            canonical = rule.canonical(value)
            expected = ", ".join(rule.allowed_values) if rule.allowed_values else rule.pattern
            add(
                ERROR,
                "value",
                rule.key,
                _("%(key)s=%(value)s is not allowed (expected %(expected)s)")
                % {"key": rule.key, "value": value, "expected": expected},
                {"set": {rule.key: canonical}, "remove": []} if canonical else None,
            )

    keys = sorted(labels)
    aliases = {alias for rule in rules.values() for alias in rule.aliases}
    for key in keys:
        if key in rules or key in aliases or "/" in key or key.startswith(WELL_KNOWN_PREFIXES):
            continue  # an alias is reported as missing or duplicate, with its fix
        add(
            WARNING,
            "form",
            key,
            _("%(key)s is not in domain/purpose form (e.g. team/%(key)s)") % {"key": key},
        )

    for index, first in enumerate(keys):
        for second in keys[index + 1 :]:
            if not _same_thing(first, second, rules):
                continue
            keep = first if first in rules else second if second in rules else None
            drop = second if keep == first else first if keep == second else None
            agree = _same_value(labels[first], labels[second])
            fix = {"set": {}, "remove": [drop]} if keep and agree and drop else None
            message = (
                _("%(a)s and %(b)s encode the same thing (%(va)s, %(vb)s)")
                if agree
                else _("%(a)s and %(b)s encode the same thing but disagree (%(va)s vs %(vb)s)")
            ) % {"a": first, "b": second, "va": labels[first], "vb": labels[second]}
            add(WARNING, "duplicate", second, message, fix)
    return findings


def load_rules() -> dict[str, Rule]:
    from clusters.models import LabelConvention

    return {c.key: rule_of(c) for c in LabelConvention.objects.all()}


def lint_clusters(
    clusters: Iterable[Any], rules: Mapping[str, Rule] | None = None
) -> dict[str, list[Finding]]:
    """Findings per cluster name (clusters without findings map to an empty list)."""
    rules = load_rules() if rules is None else rules
    return {c.name: lint_subject(subject_of(c), rules) for c in clusters}


def _label_sets(clusters: Iterable[Any] | Mapping[str, Mapping[str, str]]) -> dict[str, Mapping[str, str]]:
    if isinstance(clusters, Mapping):
        return dict(clusters)
    objects: Iterable[Any] = clusters
    return {c.name: dict(c.labels or {}) for c in objects}


def suggest_key(key: str, candidates: list[str], rules: Mapping[str, Rule]) -> str:
    """The key probably meant: a close spelling, the same basename or a prefix; aliases map to their rule."""
    close = difflib.get_close_matches(key, candidates, n=1, cutoff=0.6)
    if not close:
        close = [k for k in candidates if _basename(k) == _basename(key)][:1]
    if not close:
        close = [
            k for k in candidates if min(len(k), len(key)) >= 3 and (key.startswith(k) or k.startswith(key))
        ][:1]
    if not close:
        return ""
    for rule in rules.values():
        if close[0] in rule.aliases:
            return rule.key
    return close[0]


def lint_selector(
    selector: str | dict[str, Any] | None,
    clusters: Iterable[Any] | Mapping[str, Mapping[str, str]],
    rules: Mapping[str, Rule] | None = None,
) -> list[dict[str, Any]]:
    """Findings about a cluster selector: syntax, matches none, matches all, unknown keys and values.

    `clusters` is a list of Cluster objects (or anything with .name and .labels) or {name: labels};
    `rules` (the conventions, e.g. `load_rules()`) adds their keys and maps aliases to them.
    Each finding is {"severity", "code", "key", "message", "suggestion"}.
    """
    rules = rules or {}
    labels_by_cluster = _label_sets(clusters)
    findings: list[dict[str, Any]] = []

    def add(severity: str, code: str, key: str, message: str, suggestion: str = "") -> None:
        findings.append(
            {"severity": severity, "code": code, "key": key, "message": message, "suggestion": suggestion}
        )

    try:
        parsed = to_selector(selector)
    except SelectorError as exc:
        add(ERROR, "syntax", "", exc.message)
        return findings
    keys_in_use = sorted({k for labels in labels_by_cluster.values() for k in labels} | set(rules))
    values_in_use: dict[str, set[str]] = {}
    for labels in labels_by_cluster.values():
        for key, value in labels.items():
            values_in_use.setdefault(key, set()).add(value)
    for requirement in parsed.requirements:
        key = requirement.key
        if key not in values_in_use:
            suggestion = suggest_key(key, [k for k in keys_in_use if k != key], rules)
            message = _("no cluster has the label %(key)s") % {"key": key}
            if suggestion:
                message += " — " + _("did you mean %(s)s?") % {"s": suggestion}
            if requirement.operator not in (DOES_NOT_EXIST, NOT_IN):
                add(WARNING, "unknown-key", key, message, suggestion)
            continue
        if requirement.operator in (EQUALS, DOUBLE_EQUALS, IN):
            for value in requirement.values:
                if value in values_in_use[key]:
                    continue
                close = difflib.get_close_matches(value, sorted(values_in_use[key]), n=1, cutoff=0.5)
                message = _("no cluster has %(key)s=%(value)s") % {"key": key, "value": value}
                if close:
                    message += " — " + _("did you mean %(s)s?") % {"s": close[0]}
                add(WARNING, "unknown-value", key, message, close[0] if close else "")
    matched = [name for name, labels in labels_by_cluster.items() if parsed.matches(labels)]
    if labels_by_cluster and not matched:
        add(WARNING, "matches-none", "", _("the selector matches no cluster"))
    elif len(labels_by_cluster) > 1 and len(matched) == len(labels_by_cluster) and not parsed.empty:
        add(WARNING, "matches-all", "", _("the selector matches every cluster; is it needed?"))
    return findings
