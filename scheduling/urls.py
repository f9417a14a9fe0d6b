"""Page routes of scheduling."""

app_name = "scheduling"
urlpatterns: list = []

from django.urls import include, path  # noqa: E402

urlpatterns += [path("", include("scheduling.editor.urls"))]
