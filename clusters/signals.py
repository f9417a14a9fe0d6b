"""What clusters tell the apps above them, without importing them: a cluster's Ready status changed."""

from __future__ import annotations

from django.dispatch import Signal

# Sent with `cluster` (the name) and `ready` (True, False or Unknown) after the change is saved.
ready_changed = Signal()
