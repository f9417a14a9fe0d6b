"""Django settings for karmada-ui, read only from the environment with defaults that run as they are."""

from __future__ import annotations

import importlib.util
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from core import priorities
from core.env import (
    email_url_parts,
    env_bool,
    env_duration,
    env_float,
    env_int,
    env_list,
    env_rate,
    env_str,
    local_secret,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("KARMADA_UI_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DJANGO_DEBUG", True)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY (or SECRET_KEY_FILE) is required when DJANGO_DEBUG=0")
    SECRET_KEY = local_secret(VAR_DIR / "secret_key")

# How many proxies in front add themselves to X-Forwarded-For: the client address for lockouts and
# throttles is read that many hops from the right (0: the direct peer).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, minimum=0)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "django_celery_results",
    "csp",
    "axes",
    "karmada_ui",
    "core",
    "metrics",
    "clusters",
    "scheduling",
    "scheduling.editor",
    "observability",
    "kubeapi",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "karmada_ui.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a lockout flagged during sign-in into its response
]

ROOT_URLCONF = "karmada_ui.urls"
WSGI_APPLICATION = "karmada_ui.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "karmada_ui.context_processors.chrome",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'karmada-ui.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0, minimum=0),
        conn_health_checks=True,  # a kept connection is checked before its first use by a request or task
    )
}
# Celery's Django fixup closes a worker's database connection before and after every task unless told
# to reuse it: with DATABASE_CONN_MAX_AGE set, every task would open a PostgreSQL session of its own (a
# server process forked, authenticated and set up; a re-plan's hundred tasks, a hundred sessions). Kept
# for this many tasks at most; between tasks karmada_ui.celery closes one that is unusable or older than
# CONN_MAX_AGE, as Django does between requests.
CELERY_DB_REUSE_MAX = 10_000 if DATABASES["default"]["CONN_MAX_AGE"] else None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and a busy timeout let the web server and the workers share the demo database.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# The lockout backend goes first: it refuses a locked-out user or address before any password check.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "staticfiles")))
# plotly.js is served from the plotly package itself, so the chart library always matches plotly.py.
_PLOTLY_SPEC = importlib.util.find_spec("plotly")
STATICFILES_DIRS: list = [BASE_DIR / "static"]
if _PLOTLY_SPEC and _PLOTLY_SPEC.origin:
    STATICFILES_DIRS.append(("vendor/plotly", Path(_PLOTLY_SPEC.origin).parent / "package_data"))
if DEBUG:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise expects it even when serving from finders
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["core.permissions.RolePermission"],
    "DEFAULT_SCHEMA_CLASS": "core.api_schema.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "core.pagination.StrictLimitOffsetPagination",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "core.api_errors.exception_handler",
    # Rates live in API_THROTTLE_RATES below; these classes read them on every request.
    "DEFAULT_THROTTLE_CLASSES": [
        "core.throttles.AnonymousRateThrottle",
        "core.throttles.UserRateThrottle",
    ],
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
# The Kubernetes API under /k8s: the Kubernetes version it reports (kubectl picks its minor from it).
KUBEAPI_KUBERNETES_VERSION = env_str("KUBEAPI_KUBERNETES_VERSION", "1.31.0")
# The URL kubeconfigs name (`manage.py kubeconfig`), and where `manage.py serve_kubeapi` keeps its CA.
KUBEAPI_SERVER_URL = env_str("KUBEAPI_SERVER_URL", "https://127.0.0.1:8443/k8s")
KUBEAPI_TLS_DIR = env_str("KUBEAPI_TLS_DIR", str(VAR_DIR / "kubeapi-tls"))

SPECTACULAR_SETTINGS = {
    "TITLE": "karmada-ui API",
    "DESCRIPTION": "Clusters, policies, bindings and health of a Karmada-style multi-cluster control plane.",
    "VERSION": "v1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
}

# Celery: a local folder broker by default so the demo needs no server; Redis when configured.
REDIS_URL = env_str("REDIS_URL")
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL or "filesystem://localhost/")
CELERY_BROKER_FOLDER = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT = "karmada_ui.folder_broker:Transport"  # atomic message writes
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_BROKER_FOLDER / "queue"),
        "data_folder_out": str(CELERY_BROKER_FOLDER / "queue"),
        "processed_folder": str(CELERY_BROKER_FOLDER / "processed"),
        "store_processed": False,
        "polling_interval": 0.1,
        "control_folder": str(CELERY_BROKER_FOLDER / "control"),
    }
else:
    # A worker's BRPOP names its queues in its `-Q` order and Redis answers from the first non-empty
    # one; kombu's default ("round_robin") would move the queue just served to the end, alternating
    # event-driven work and the bulk lanes. The demo's folder broker asks in order too (folder_broker).
    # Message priorities (core.priorities) order work within and across the queues.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "queue_order_strategy": "priority",
        "priority_steps": priorities.STEPS,
    }
# django-celery-results' database backend, retrying a write on a fresh connection after the database
# dropped the old one (see karmada_ui/result_backend.py); up to 20 tries, at most a second apart.
CELERY_RESULT_BACKEND = "karmada_ui.result_backend:ReconnectingDatabaseBackend"
CELERY_RESULT_BACKEND_ALWAYS_RETRY = True
CELERY_RESULT_BACKEND_MAX_RETRIES = 20  # not forever: a database down for good fails the write
CELERY_RESULT_BACKEND_MAX_SLEEP_BETWEEN_RETRIES_MS = 1000
CELERY_RESULT_EXTENDED = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE

# Health collection (see clusters/): how often each member cluster is probed and how fast Ready flips.
HEALTH_PROBE_INTERVAL = env_float("HEALTH_PROBE_INTERVAL", 10.0, minimum=0.5)
HEALTH_CALL_TIMEOUT = env_float("HEALTH_CALL_TIMEOUT", 3.0, minimum=0.1)
# Ready follows a new observation once it has held this long (Karmada: 30 s; tighter here, still no flapping).
HEALTH_FAILURE_THRESHOLD = env_float("HEALTH_FAILURE_THRESHOLD", 3.0, minimum=0.0)
HEALTH_SUCCESS_THRESHOLD = env_float("HEALTH_SUCCESS_THRESHOLD", 5.0, minimum=0.0)
HEALTH_UNKNOWN_AFTER = env_float("HEALTH_UNKNOWN_AFTER", 40.0, minimum=1.0)

# A worker that consumes only the engine's queues (schedule, propagate and their bulk lanes) runs this
# much nicer (0-19, 0: as any other process): on a busy host the health collection, the member watcher
# and the web take the CPU first, and a burst of propagation cannot starve the probes into judging
# clusters Unknown (each such judgment re-plans every Duplicated binding, more load again).
ENGINE_NICENESS = env_int("ENGINE_NICENESS", 5, minimum=0, maximum=19)
# A worker that consumes only the schedule queue (and its lane): the decisions are a small share of the
# engine's CPU and every render and member write waits on them, so by default it keeps its priority
# ahead of propagation's (one schedule worker beside four propagate processes at the same niceness
# re-planned 1,000 bindings at a third of its own rate: bench_scale, 2026-12-06).
SCHEDULE_NICENESS = env_int("SCHEDULE_NICENESS", 0, minimum=0, maximum=19)

# Scheduling and propagation: seconds between reconcile passes (detection, triggers, drift, status).
# The safety net re-checks the whole fleet (events do the work as it happens); failover runs often.
SCHEDULING_RECONCILE_INTERVAL = env_float("SCHEDULING_RECONCILE_INTERVAL", 300.0, minimum=1.0)
SCHEDULING_FAILOVER_INTERVAL = env_float("SCHEDULING_FAILOVER_INTERVAL", 10.0, minimum=1.0)
# A binding marked dirty longer than this lost its task (a dead worker, a lost message): queued again.
SCHEDULING_LOST_MARK_AFTER = env_float("SCHEDULING_LOST_MARK_AFTER", 60.0, minimum=1.0)
# Staged rollouts: seconds between passes that move rollouts on (a Work's new status moves its own at once).
ROLLOUT_ADVANCE_INTERVAL = env_float("ROLLOUT_ADVANCE_INTERVAL", 5.0, minimum=1.0)
# NoExecute eviction: Gracefully (the old copy stays until the new clusters are healthy) or Directly,
# unless a policy's failover.cluster.purgeMode says otherwise; and how long a graceful eviction may wait.
SCHEDULING_NO_EXECUTE_PURGE_MODE = env_str("SCHEDULING_NO_EXECUTE_PURGE_MODE", "Gracefully")
if SCHEDULING_NO_EXECUTE_PURGE_MODE not in ("Gracefully", "Directly"):
    raise ImproperlyConfigured("SCHEDULING_NO_EXECUTE_PURGE_MODE must be Gracefully or Directly")
SCHEDULING_GRACEFUL_EVICTION_TIMEOUT = env_float("SCHEDULING_GRACEFUL_EVICTION_TIMEOUT", 600.0, minimum=0.0)

# Cluster credentials are encrypted at rest with this key (see clusters/credentials).
# Several comma-separated keys rotate: the first encrypts, every one decrypts.
KARMADA_UI_ENCRYPTION_KEY = env_str("KARMADA_UI_ENCRYPTION_KEY")
if not KARMADA_UI_ENCRYPTION_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "KARMADA_UI_ENCRYPTION_KEY (or KARMADA_UI_ENCRYPTION_KEY_FILE) is required when DJANGO_DEBUG=0"
        )
    KARMADA_UI_ENCRYPTION_KEY = local_secret(VAR_DIR / "encryption_key")

# /metrics: open, or protected by a bearer token when METRICS_TOKEN is set.
METRICS_TOKEN = env_str("METRICS_TOKEN")

# Built-in alerting (see observability/): how often the rules are evaluated and their tunables.
ALERT_EVALUATION_INTERVAL = env_float("ALERT_EVALUATION_INTERVAL", 5.0, minimum=1.0)
ALERT_CLUSTER_UNHEALTHY_FOR = env_duration("ALERT_CLUSTER_UNHEALTHY_FOR", "5m")
ALERT_CLUSTER_CPU_THRESHOLD = env_float("ALERT_CLUSTER_CPU_THRESHOLD", 80.0, minimum=0.0)
ALERT_CLUSTER_CPU_FOR = env_duration("ALERT_CLUSTER_CPU_FOR", "10m")
ALERT_WEBHOOK_TIMEOUT = env_float("ALERT_WEBHOOK_TIMEOUT", 5.0, minimum=0.1)
ALERT_EXTERNAL_URL = env_str("ALERT_EXTERNAL_URL", "http://127.0.0.1:8000")

# E-mail for alert notifications: EMAIL_URL (smtp://user:password@host:587?tls=1) or EMAIL_HOST and
# friends; with neither, messages are written to the worker's log.
EMAIL_URL = env_str("EMAIL_URL")
if EMAIL_URL:
    EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS, EMAIL_USE_SSL = (
        email_url_parts("EMAIL_URL", EMAIL_URL)
    )
else:
    EMAIL_HOST = env_str("EMAIL_HOST")
    EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_TIMEOUT = env_float("EMAIL_TIMEOUT", 10.0, minimum=0.1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "karmada-ui@localhost")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.server": {"level": "WARNING"}},
}

# Security headers on every response. The policy allows no inline script or style, no eval and no
# plugins: pages keep their behaviour in static/js, bound by data attributes, and pass data to it with
# json_script (tests/browser/test_every_page_under_csp.py walks every page and fails on a violation).
# plotly.js creates empty <style> elements and fills them through the CSSOM, which the CSP does not
# govern; the hash of the empty string admits exactly those, and no inline style with content.
EMPTY_INLINE_STYLE = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, EMPTY_INLINE_STYLE],
        "img-src": [SELF, "data:"],  # the empty favicon and Swagger UI's icons are data: URIs
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    },
}
if csp_report_uri := env_str("CSP_REPORT_URI"):  # where browsers send violation reports, if anywhere
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["report-uri"] = [csp_report_uri]
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
# Over TLS (DJANGO_DEBUG=0): browsers keep to HTTPS, and the session and CSRF cookies travel encrypted only.
# BEHIND_TLS_PROXY=1 trusts X-Forwarded-Proto from the TLS-terminating proxy in front.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY", False) else None
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]  # probes and scrapers often speak plain HTTP inside
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
# A session ends this long after sign-in (and, if asked, when the browser closes).
SESSION_COOKIE_AGE = env_duration("SESSION_MAX_AGE", "12h")
SESSION_EXPIRE_AT_BROWSER_CLOSE = env_bool("SESSION_EXPIRE_AT_BROWSER_CLOSE", False)

# Failed sign-ins (login page and token endpoint) lock out the user name and, separately, the address.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(seconds=env_duration("LOGIN_COOLOFF", "15m"))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
# A refused attempt during a lockout does not restart it, so the lockout ends when Retry-After says.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "karmada_ui.lockout.lockout_response"
AXES_CLIENT_IP_CALLABLE = "karmada_ui.lockout.client_address"
AXES_VERBOSE = False

# API throttles per caller: anonymous callers by address, signed-in and token callers by user; the token
# endpoint by address (it is where passwords are guessed). Rates are N/s, N/min, N/h or N/day.
API_THROTTLE_RATES = {
    "anonymous": env_rate("API_THROTTLE_ANON", "60/min"),
    "user": env_rate("API_THROTTLE_USER", "1200/min"),
    "auth-token": env_rate("API_THROTTLE_AUTH_TOKEN", "10/min"),
}
# Throttle counters live in the default cache: set CACHE_URL (redis://…) so every web process shares them.
CACHE_URL = env_str("CACHE_URL")
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
    if CACHE_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
