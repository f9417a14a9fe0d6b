"""Policy YAML in and out: parse with line numbers, dump in Karmada's key order, map field paths to lines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from core import useryaml
from kubesyntax import fieldpaths


@dataclass(frozen=True)
class YamlProblem:
    """A problem in YAML text: the 1-based line (None when unknown), the field path and the message."""

    line: int | None
    path: str
    message: str


class YamlError(ValueError):
    """YAML that cannot become a policy document; carries the line of the problem."""

    def __init__(self, problem: YamlProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


MAX_YAML_BYTES = 256 * 1024


def parse_yaml(text: str) -> dict[str, Any]:
    """One YAML document that must be a mapping; raises YamlError with the line of the problem."""
    if len(text.encode("utf-8", "replace")) > MAX_YAML_BYTES:
        raise YamlError(YamlProblem(None, "", f"the policy is larger than {MAX_YAML_BYTES // 1024} KiB"))
    try:
        # A policy never needs aliases, so they are refused with their line rather than expanded.
        documents = [doc for doc in useryaml.load_all(text, aliases=False) if doc is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        reason = " ".join(part for part in (exc.context, exc.problem) if part)
        raise YamlError(YamlProblem(line, "", reason or "not valid YAML")) from None
    except yaml.YAMLError as exc:  # useryaml.YAMLTooComplex included: nesting past what Python allows
        raise YamlError(YamlProblem(None, "", str(exc))) from None
    if not documents:
        raise YamlError(YamlProblem(1, "", "the document is empty"))
    if len(documents) > 1:
        raise YamlError(YamlProblem(None, "", "put exactly one policy in the editor"))
    if not isinstance(documents[0], dict):
        raise YamlError(
            YamlProblem(1, "", "the document must be a mapping (apiVersion, kind, metadata, spec)")
        )
    return documents[0]


_TOP_ORDER = ("apiVersion", "kind", "metadata", "spec", "status")


def _ordered(doc: dict[str, Any]) -> dict[str, Any]:
    head = {key: doc[key] for key in _TOP_ORDER if key in doc}
    return {**head, **{key: value for key, value in doc.items() if key not in head}}


def dump_yaml(doc: dict[str, Any]) -> str:
    """Block-style YAML with apiVersion, kind, metadata and spec first; other keys keep their order."""
    return yaml.safe_dump(
        _ordered(doc), sort_keys=False, default_flow_style=False, allow_unicode=True, width=100
    )


def line_of(text: str, path: str) -> int | None:
    """The 1-based line of the field at ``path`` in ``text``, or of its nearest ancestor that exists."""
    try:
        node = useryaml.compose(text)
    except yaml.YAMLError:
        return None
    if node is None:
        return None
    line = node.start_mark.line + 1
    for part in fieldpaths.split(path):
        child = None
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key, value in node.value:
                if key.value == part:
                    line = key.start_mark.line + 1
                    child = value
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
            line = child.start_mark.line + 1
        if child is None:
            return line
        node = child
    return line
