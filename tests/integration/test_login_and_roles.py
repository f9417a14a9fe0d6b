"""Every page needs a signed-in user, the API answers 401/403 by itself, and roles limit writes."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

OPEN_PAGES = {"/healthz", "/accounts/login/", "/i18n/setlang/"}


def concrete_paths(resolver=None, prefix=""):
    """Every routed path that takes no arguments."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        route = str(entry.pattern)
        if "<" in route or "(?P" in route or "^" in route:
            continue
        if isinstance(entry, URLResolver):
            yield from concrete_paths(entry, prefix + route)
        elif isinstance(entry, URLPattern):
            yield "/" + prefix + route


@pytest.mark.django_db
def test_every_page_redirects_an_anonymous_visitor_to_the_login_form(client):
    pages = [
        p
        for p in concrete_paths()
        if not p.startswith(("/api/", "/k8s/", "/admin/", "/metrics")) and p not in OPEN_PAGES
    ]
    assert "/" in pages
    for path in pages:
        response = client.get(path)
        assert response.status_code == 302, path
        assert response["Location"].startswith(reverse("login")), path


@pytest.mark.django_db
def test_the_api_refuses_anonymous_callers_with_json():
    response = APIClient().get("/api/schema/")
    assert response.status_code in (401, 403)
    response = APIClient().get(reverse("api-token"))
    assert response.status_code == 405  # the token endpoint only takes POST


@pytest.mark.django_db
def test_a_viewer_can_read_the_schema_and_the_api_docs(client, viewer):
    client.force_login(viewer)
    assert client.get("/api/schema/").status_code == 200
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()


@pytest.mark.django_db
def test_a_token_from_the_token_endpoint_authenticates_api_calls(viewer):
    from tests.conftest import PASSWORD

    anonymous = APIClient()
    token = anonymous.post(reverse("api-token"), {"username": viewer.username, "password": PASSWORD}).json()[
        "token"
    ]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/schema/").status_code == 200


@pytest.mark.django_db
def test_the_login_page_signs_a_user_in_and_shows_the_role(client, operator):
    from tests.conftest import PASSWORD

    response = client.post(
        reverse("login"), {"username": operator.username, "password": PASSWORD}, follow=True
    )
    assert response.status_code == 200
    assert b"otto-operator" in response.content
    assert b"operator" in response.content


@pytest.mark.django_db
def test_role_permission_lets_viewers_read_and_operators_write():
    from types import SimpleNamespace

    from django.contrib.auth import get_user_model

    from core.permissions import RolePermission
    from core.roles import ADMIN, OPERATOR, VIEWER, grant

    def user_with(role):
        user = get_user_model().objects.create_user(username=f"u-{role}", password="x")
        grant(user, role)
        return user

    view = SimpleNamespace()
    admin_view = SimpleNamespace(write_role=ADMIN)
    permission = RolePermission()
    viewer, operator, admin = user_with(VIEWER), user_with(OPERATOR), user_with(ADMIN)
    read = SimpleNamespace(method="GET", user=viewer)
    assert permission.has_permission(read, view)
    assert not permission.has_permission(SimpleNamespace(method="POST", user=viewer), view)
    assert permission.has_permission(SimpleNamespace(method="POST", user=operator), view)
    assert not permission.has_permission(SimpleNamespace(method="POST", user=operator), admin_view)
    assert permission.has_permission(SimpleNamespace(method="DELETE", user=admin), admin_view)


@pytest.mark.django_db
def test_the_language_switch_serves_simplified_chinese(client, viewer):
    client.force_login(viewer)
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    response = client.get(reverse("home"), follow=True)
    assert 'lang="zh-hans"' in response.content.decode()
    assert "退出登录" in response.content.decode()
