"""What every app shares below it: the audit log, roles, permissions, API errors, pagination, safe YAML."""
