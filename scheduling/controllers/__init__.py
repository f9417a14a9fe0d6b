"""One module per Karmada controller: detector, scheduler, propagation, dispatch, failover, rescheduling,
the periodic reconcile, and the apply, export and preview doors over them."""
