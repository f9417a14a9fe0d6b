"""Karmada's formats and rules, pure: names, the resource interpreter, overrides, member manifests,
webhook validation, YAML documents and schedule triggers. No database, no I/O."""
