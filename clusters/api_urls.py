"""REST API routes of clusters under /api/v1/."""

urlpatterns: list = []
