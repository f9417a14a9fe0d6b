"""The REST API of scheduling under /api/v1/: views, their request and response shapes, and routes."""
