"""Resource templates, policies, bindings, works: scheduling, propagation, failover and rescheduling."""
