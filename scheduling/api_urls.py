"""REST API routes of scheduling under /api/v1/."""

from django.urls import path

from scheduling import api

urlpatterns = [
    path("apply/", api.ApplyView.as_view(), name="scheduling-apply"),
    path("export/", api.ExportView.as_view(), name="scheduling-export"),
]
