"""What clusters tell the apps above them, without importing them: Ready status and spec changes."""

from __future__ import annotations

from django.dispatch import Signal

# Sent with `cluster` (the name) and `ready` (True, False or Unknown) after the change is saved.
ready_changed = Signal()

# Sent with `cluster` (the name), `old` and `new` ({field: value} of the fields written) after a spec
# change (labels, taints, ...) commits through clusters.editing.update_spec.
spec_changed = Signal()

# Sent with `clusters` (the Cluster rows) after many clusters are registered in one transaction
# (services.join_many): their rows are written in bulk, so no post_save is sent for them.
clusters_joined = Signal()
