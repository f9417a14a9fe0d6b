"""The policy editor: form and YAML of one (Cluster)PropagationPolicy, its live preview, what-if and drills."""
