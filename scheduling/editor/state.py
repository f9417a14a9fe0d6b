"""Reading the editor's submission: which side is authoritative (form or YAML), the document, its problems."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from scheduling.editor.checks import validate_policy
from scheduling.editor.document import YamlError, YamlProblem, dump_yaml, line_of, parse_yaml
from scheduling.editor.formstate import FormState, form_from_policy, policy_from_form

FORM = "form"
YAML = "yaml"

# Where a problem shows in the form: the longest matching path prefix names the error slot.
SLOTS = (
    ("metadata.name", "name"),
    ("metadata.namespace", "namespace"),
    ("metadata.annotations", "division"),
    ("metadata", "name"),
    ("spec.priority", "priority"),
    ("spec.schedulePriority", "schedule_priority"),
    ("spec.placement.workloadAffinity", "workload_affinity"),
    ("spec.resourceSelectors", "selectors"),
    ("spec.placement.clusterAffinity.clusterNames", "cluster_names"),
    ("spec.placement.clusterAffinity.labelSelector", "labels"),
    ("spec.placement.clusterAffinity.fieldSelector", "fields"),
    ("spec.placement.clusterAffinity.exclude", "exclude"),
    ("spec.placement.clusterAffinity", "affinity"),
    ("spec.placement.clusterTolerations", "tolerations"),
    ("spec.placement.spreadConstraints", "spread"),
    ("spec.placement.replicaScheduling.weightPreference", "weights"),
    ("spec.placement.replicaScheduling", "scheduling"),
)
SLOT_NAMES = (*dict.fromkeys(slot for _, slot in SLOTS), "general")
_INDEX = re.compile(r"^\[(\d+)\]\.?")


def _slot_message(path: str, prefix: str, message: str) -> str:
    rest = path[len(prefix) :].lstrip(".")
    match = _INDEX.match(rest)
    if match:
        rest = f"#{int(match.group(1)) + 1} {rest[match.end() :]}".strip()
    return f"{rest}: {message}" if rest else message


def form_slots(problems: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Problems grouped by the form field that shows them, each message relative to that field."""
    slots: dict[str, list[str]] = {name: [] for name in SLOT_NAMES}
    for path, message in problems:
        for prefix, slot in sorted(SLOTS, key=lambda item: -len(item[0])):
            if path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "["):
                slots[slot].append(_slot_message(path, prefix, message))
                break
        else:
            slots["general"].append(f"{path}: {message}" if path else message)
    return slots


@dataclass
class EditorInput:
    """One submission of the editor: the document (None when the YAML does not parse) and its problems."""

    mode: str
    yaml_text: str
    doc: dict[str, Any] | None
    problems: list[tuple[str, str]] = field(default_factory=list)
    yaml_problem: YamlProblem | None = None

    def form_state(self) -> FormState:
        assert self.doc is not None
        return form_from_policy(self.doc)

    def yaml_problems(self) -> list[YamlProblem]:
        """Problems located on lines of the YAML text (regenerated from the document in form mode)."""
        if self.yaml_problem is not None:
            return [self.yaml_problem]
        text = self.yaml_text if self.mode == YAML else dump_yaml(self.doc or {})
        return [YamlProblem(line_of(text, path), path, message) for path, message in self.problems]


def read_editor(data: Any) -> EditorInput:
    """The document from whichever side the user edited last, validated as apply will validate it."""
    mode = YAML if data.get("mode") == YAML else FORM
    text = data.get("yaml") or ""
    if mode == YAML:
        try:
            doc = parse_yaml(text)
        except YamlError as exc:
            return EditorInput(mode, text, None, [], exc.problem)
        problems: list[tuple[str, str]] = []
    else:
        doc, problems = policy_from_form(data)
        problems = list(problems)
    known = {path for path, _ in problems}
    problems += [p for p in validate_policy(doc) if p[0] not in known]
    return EditorInput(mode, text, doc, problems)
