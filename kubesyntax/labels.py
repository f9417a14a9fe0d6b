"""Label maps: checked {key: value} maps and `key=value` assignments as on a command line."""

from __future__ import annotations

from kubesyntax.names import label_key_error, label_value_error


class LabelSyntaxError(ValueError):
    """A key or value that Kubernetes would refuse; str() is the reason."""


def check_labels(labels: object) -> dict[str, str]:
    """A validated {key: value} map; raises LabelSyntaxError on the first bad entry."""
    if not isinstance(labels, dict):
        raise LabelSyntaxError("labels must be a map of key to value")
    for key, value in labels.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise LabelSyntaxError(f"{key!r}: label keys and values must be strings")
        reason = label_key_error(key) or label_value_error(value)
        if reason:
            raise LabelSyntaxError(reason)
    return dict(labels)


def parse_assignment(text: str) -> tuple[str, str]:
    """`key=value` (as `kubectl label` takes it) into a checked pair."""
    key, sep, value = text.partition("=")
    if not sep:
        raise LabelSyntaxError(f"{text!r}: expected key=value")
    key, value = key.strip(), value.strip()
    reason = label_key_error(key) or label_value_error(value)
    if reason:
        raise LabelSyntaxError(reason)
    return key, value
