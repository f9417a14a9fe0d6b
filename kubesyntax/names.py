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


def dns_label_error(name: str, max_length: int = DNS_LABEL_MAX, what: str = "a name") -> str | None:
    """Why `name` is not a DNS-1123 label (namespaces, cluster names), or None when it is."""
    if not name:
        return f"{what} must not be empty"
    if len(name) > max_length:
        return f"{name!r}: {what} must be at most {max_length} characters"
    if not DNS_LABEL.fullmatch(name):
        return (
            f"{name!r}: {what} must consist of lowercase letters, digits and '-', "
            "and start and end with a letter or digit"
        )
    return None


def dns_subdomain_error(name: str, what: str = "a name") -> str | None:
    """Why `name` is not a DNS-1123 subdomain (most object names), or None when it is."""
    if not name:
        return f"{what} must not be empty"
    if len(name) > DNS_SUBDOMAIN_MAX:
        return f"{name[:20]!r}…: {what} must be at most {DNS_SUBDOMAIN_MAX} characters"
    if not DNS_SUBDOMAIN.fullmatch(name):
        return (
            f"{name!r}: {what} must be a DNS subdomain: lowercase letters, digits, '-' and '.', "
            "each dot-separated part starting and ending with a letter or digit"
        )
    return None


def label_key_error(key: str) -> str | None:
    """Why `key` is not a qualified name ([prefix/]name), as label, annotation and taint keys are."""
    if not key:
        return "a label key must not be empty"
    prefix, slash, name = key.rpartition("/")
    if slash:
        if not prefix:
            return f"{key!r}: the prefix before '/' must not be empty"
        if len(prefix) > DNS_SUBDOMAIN_MAX:
            return f"{key!r}: the prefix must be at most {DNS_SUBDOMAIN_MAX} characters"
        if not DNS_SUBDOMAIN.fullmatch(prefix):
            return (
                f"{key!r}: the prefix must be a DNS subdomain "
                "(lowercase letters, digits, '-' and '.', starting and ending with a letter or digit)"
            )
    if not name:
        return f"{key!r}: the name after the prefix must not be empty"
    if len(name) > NAME_PART_MAX:
        return f"{key!r}: the name part must be at most {NAME_PART_MAX} characters"
    if not NAME_PART.fullmatch(name):
        return (
            f"{key!r}: the name must consist of letters, digits, '-', '_' or '.', "
            "and start and end with a letter or digit"
        )
    return None


def label_value_error(value: str) -> str | None:
    """Why `value` is not a label value (the empty value is one), or None when it is."""
    if value == "":
        return None
    if len(value) > LABEL_VALUE_MAX:
        return f"{value[:20]!r}…: a label value must be at most {LABEL_VALUE_MAX} characters"
    if not NAME_PART.fullmatch(value):
        return (
            f"{value!r}: a label value must consist of letters, digits, '-', '_' or '.', "
            "and start and end with a letter or digit"
        )
    return None
