# karmada-ui image: one image for the web server, the workers, beat and the optional simulated clusters.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_DEBUG=0 KARMADA_UI_VAR_DIR=/var/lib/karmada-ui
RUN apt-get update && apt-get install -y --no-install-recommends gettext && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY . .
RUN pip install --no-cache-dir . && pip install --no-cache-dir -e . \
    && SECRET_KEY=build-only python manage.py compilemessages -v0 \
    && SECRET_KEY=build-only python manage.py collectstatic --noinput -v0
RUN useradd --system --home /var/lib/karmada-ui karmada && mkdir -p /var/lib/karmada-ui && chown karmada /var/lib/karmada-ui
USER karmada
EXPOSE 8000
CMD ["gunicorn", "karmada_ui.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4"]
