from django.urls import path

from games import verify_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("g/<str:token>/", views.game, name="game"),
    path("g/<str:token>/join/", views.join, name="join"),
    path("g/<str:token>/review/", views.review_page, name="review"),
    path("g/<str:token>/verify/", verify_views.verify_page, name="verify"),
    path("g/<str:token>/verify.json", verify_views.verify_json, name="verify_json"),
    path("rules/", views.rules_page, name="rules"),
    path("rules/<str:ruleset>/", views.rules_page, name="rules"),
]
