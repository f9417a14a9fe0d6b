"""REST API routes of scheduling under /api/v1/."""

urlpatterns: list = []
