"""The policy editor: form and YAML of a propagation policy, its live preview, what-if and drills."""
