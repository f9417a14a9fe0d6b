"""URL routes: pages per app, the REST API under /api/v1/, its OpenAPI schema and docs."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from karmada_ui import views
from karmada_ui.token_view import obtain_auth_token

api_v1 = [
    path("auth/token/", obtain_auth_token, name="api-token"),
    path("", include("clusters.api_urls")),
    path("", include("scheduling.api.urls")),
    path("", include("observability.api_urls")),
]

handler404 = "core.api_errors.page_not_found"

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up code as a script file, as the CSP requires.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api_docs.html"),
        name="api-docs",
    ),
    path("k8s/", include("kubeapi.urls")),
    path("clusters/", include("clusters.urls")),
    path("", include("scheduling.urls")),
    path("", include("observability.urls")),
]
