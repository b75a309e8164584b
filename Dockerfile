# Yacht's application image: daphne serving Django + Channels, with static
# files collected at build time and served by whitenoise (no separate static
# server). docker-compose.yml runs several of these behind nginx.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# gettext's msgfmt compiles the translations below.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first, so a code change does not reinstall them: only the
# runtime ones, each at the version requirements.lock pins (the one CI tested).
COPY pyproject.toml requirements.lock ./
COPY games/__init__.py games/__init__.py
COPY yachtsite/__init__.py yachtsite/__init__.py
RUN pip install -c requirements.lock .

# Hashed, pre-compressed files that whitenoise can serve with long cache
# lifetimes; the manifest is written by collectstatic here, at build time.
ENV DJANGO_STATIC_ROOT=/app/staticfiles \
    YACHT_STATICFILES_STORAGE=whitenoise.storage.CompressedManifestStaticFilesStorage

COPY . .
# Without DEBUG the settings refuse to load with no secret key. These build
# steps sign nothing, so a throwaway key serves them; the real one comes from
# the environment at run time.
RUN export DJANGO_SECRET_KEY=image-build-only-signs-nothing \
    && pip install --no-deps . \
    && python manage.py compilemessages -v 0 \
    && python manage.py collectstatic --no-input -v 0 \
    # The strategy tables of the perfect bot, the hints and the review are
    # baked into the image: no replica builds them at run time.
    && python manage.py build_solver_tables

RUN useradd --system --uid 10001 yacht
USER yacht

EXPOSE 8000
# No --proxy-headers: daphne would believe any client's X-Forwarded-For. The
# app reads it only from the proxies in YACHT_TRUSTED_PROXIES.
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "yachtsite.asgi:application"]
