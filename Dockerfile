# karmada-ui image: one image for the web server, the workers, beat and the optional simulated clusters.
FROM python:3.11-slim-bookworm
# Static files live in the image, apart from the state directory, so a volume never hides a newer set.
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_DEBUG=0 KARMADA_UI_VAR_DIR=/var/lib/karmada-ui \
    STATIC_ROOT=/app/staticfiles
RUN apt-get update && apt-get install -y --no-install-recommends gettext && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# The build needs no real secrets: these placeholders only satisfy the production settings' checks.
RUN pip install --no-cache-dir -e . \
    && SECRET_KEY=build-only KARMADA_UI_ENCRYPTION_KEY=build-only python manage.py compilemessages -v0 \
    && SECRET_KEY=build-only KARMADA_UI_ENCRYPTION_KEY=build-only python manage.py collectstatic --noinput -v0
RUN useradd --system --home /var/lib/karmada-ui karmada \
    && mkdir -p /var/lib/karmada-ui/beat && chown -R karmada /var/lib/karmada-ui
USER karmada
EXPOSE 8000
CMD ["gunicorn", "karmada_ui.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4"]
