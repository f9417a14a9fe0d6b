"""The verbs other layers call: apply YAML, delete a template, rebalance a workload."""

from __future__ import annotations

from typing import Any

from scheduling.documents import ApplyResult, apply_documents, parse_yaml


def apply_yaml(text: str, user: Any = None) -> ApplyResult:
    """Apply multi-document YAML in one transaction; raise DocumentError naming the bad document."""
    return apply_documents(parse_yaml(text), user=user)
