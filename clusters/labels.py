"""Kubernetes label and taint syntax: keys, values, names, with one clear reason per error."""

from __future__ import annotations

import re

NAME_PART = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
CLUSTER_NAME_MAX = 48


class LabelSyntaxError(ValueError):
    """A key or value that Kubernetes would refuse; str() is the reason."""


def key_error(key: str) -> str | None:
    """Why `key` is not a valid label key, or None when it is."""
    if not key:
        return "a label key must not be empty"
    prefix, slash, name = key.rpartition("/")
    if slash:
        if not prefix:
            return f"{key!r}: the prefix before '/' must not be empty"
        if len(prefix) > 253:
            return f"{key!r}: the prefix must be at most 253 characters"
        if not DNS_SUBDOMAIN.match(prefix):
            return (
                f"{key!r}: the prefix must be a DNS subdomain "
                "(lowercase letters, digits, '-' and '.', starting and ending with a letter or digit)"
            )
    if not name:
        return f"{key!r}: the name after the prefix must not be empty"
    if len(name) > 63:
        return f"{key!r}: the name part must be at most 63 characters"
    if not NAME_PART.match(name):
        return (
            f"{key!r}: the name must consist of letters, digits, '-', '_' or '.', "
            "and start and end with a letter or digit"
        )
    return None


def value_error(value: str) -> str | None:
    """Why `value` is not a valid label value (empty is allowed), or None when it is."""
    if value == "":
        return None
    if len(value) > 63:
        return f"{value[:20]!r}…: a label value must be at most 63 characters"
    if not NAME_PART.match(value):
        return (
            f"{value!r}: a label value must consist of letters, digits, '-', '_' or '.', "
            "and start and end with a letter or digit"
        )
    return None


def check_labels(labels: object) -> dict[str, str]:
    """A validated {key: value} map; raises LabelSyntaxError on the first bad entry."""
    if not isinstance(labels, dict):
        raise LabelSyntaxError("labels must be a map of key to value")
    for key, value in labels.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise LabelSyntaxError(f"{key!r}: label keys and values must be strings")
        reason = key_error(key) or value_error(value)
        if reason:
            raise LabelSyntaxError(reason)
    return dict(labels)


def parse_assignment(text: str) -> tuple[str, str]:
    """`key=value` (as on a command line) into a checked pair."""
    key, sep, value = text.partition("=")
    if not sep:
        raise LabelSyntaxError(f"{text!r}: expected key=value")
    key, value = key.strip(), value.strip()
    reason = key_error(key) or value_error(value)
    if reason:
        raise LabelSyntaxError(reason)
    return key, value


def cluster_name_error(name: str) -> str | None:
    """Cluster names are DNS-1123 labels of at most 48 characters, as Karmada requires."""
    if not name:
        return "a cluster name must not be empty"
    if len(name) > CLUSTER_NAME_MAX:
        return f"{name!r}: a cluster name must be at most {CLUSTER_NAME_MAX} characters"
    if not DNS_LABEL.match(name):
        return (
            f"{name!r}: a cluster name must consist of lowercase letters, digits and '-', "
            "and start and end with a letter or digit"
        )
    return None
