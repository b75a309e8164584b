from django.urls import path

from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("g/<str:token>/", views.game, name="game"),
    path("g/<str:token>/join/", views.join, name="join"),
    path("rules/", views.rules_page, name="rules"),
    path("rules/<str:ruleset>/", views.rules_page, name="rules"),
]
