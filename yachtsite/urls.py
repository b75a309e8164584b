from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path

from games.live import health
from games.web import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("i18n/setlang/", views.set_language, name="set_language"),
    path("health/", health.health, name="health"),
]
urlpatterns += i18n_patterns(
    path("admin/", admin.site.urls),
    path("", include("games.web.urls")),
)
