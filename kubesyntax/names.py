"""Kubernetes names: DNS-1123 labels and subdomains, qualified names (label keys) and label values."""

from __future__ import annotations

import re

NAME_PART = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
DNS_LABEL_MAX = 63
DNS_SUBDOMAIN_MAX = 253
NAME_PART_MAX = 63
LABEL_VALUE_MAX = 63


LOWERCASE_RULE = "consist of lowercase letters, digits and '-', and start and end with a letter or digit"
SUBDOMAIN_RULE = (
    "be a DNS subdomain: lowercase letters, digits, '-' and '.', "
    "each dot-separated part starting and ending with a letter or digit"
)
NAME_RULE = "consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit"


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 40 else f"{text[:20]!r}…"


def _error(
    text: str, shown: str, what: str, max_length: int, pattern: re.Pattern[str], rule: str
) -> str | None:
    """Why `text` is longer than `max_length` or does not match `pattern` (which `rule` says in words)."""
    if len(text) > max_length:
        return f"{shown}: {what} must be at most {max_length} characters"
    if not pattern.fullmatch(text):
        return f"{shown}: {what} must {rule}"
    return None


def dns_label_error(name: str, max_length: int = DNS_LABEL_MAX, what: str = "a name") -> str | None:
    """Why `name` is not a DNS-1123 label (namespaces, cluster names), or None when it is."""
    if not name:
        return f"{what} must not be empty"
    return _error(name, _shown(name), what, max_length, DNS_LABEL, LOWERCASE_RULE)


def dns_subdomain_error(name: str, what: str = "a name") -> str | None:
    """Why `name` is not a DNS-1123 subdomain (most object names), or None when it is."""
    if not name:
        return f"{what} must not be empty"
    return _error(name, _shown(name), what, DNS_SUBDOMAIN_MAX, DNS_SUBDOMAIN, SUBDOMAIN_RULE)


def label_key_error(key: str) -> str | None:
    """Why `key` is not a qualified name ([prefix/]name), as label, annotation and taint keys are."""
    if not key:
        return "a label key must not be empty"
    prefix, slash, name = key.rpartition("/")
    if slash and not prefix:
        return f"{_shown(key)}: the prefix before '/' must not be empty"
    if slash:
        reason = _error(prefix, _shown(key), "the prefix", DNS_SUBDOMAIN_MAX, DNS_SUBDOMAIN, SUBDOMAIN_RULE)
        if reason:
            return reason
    if not name:
        return f"{_shown(key)}: the name after the prefix must not be empty"
    return _error(name, _shown(key), "the name", NAME_PART_MAX, NAME_PART, NAME_RULE)


def label_value_error(value: str) -> str | None:
    """Why `value` is not a label value (the empty value is one), or None when it is."""
    if value == "":
        return None
    return _error(value, _shown(value), "a label value", LABEL_VALUE_MAX, NAME_PART, NAME_RULE)
