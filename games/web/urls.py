from django.urls import path

import games.edge.converters  # noqa: F401  (registers the <token:...> converter)
from games.web import daily_views, queue_views, verify_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("g/<token:token>/", views.game, name="game"),
    path("g/<token:token>/join/", views.join, name="join"),
    path("g/<token:token>/review/", views.review_page, name="review"),
    path("g/<token:token>/end/", views.game_end, name="game_end"),
    path("g/<token:token>/verify/", verify_views.verify_page, name="verify"),
    path("g/<token:token>/verify.json", verify_views.verify_json, name="verify_json"),
    path("now/", queue_views.play_now, name="play_now"),
    path("now/wait/", queue_views.play_now_wait, name="play_now_wait"),
    path("now/status.json", queue_views.play_now_status, name="play_now_status"),
    path("now/leave/", queue_views.play_now_leave, name="play_now_leave"),
    path("now/bot/", queue_views.play_now_bot, name="play_now_bot"),
    path("now/keep/", queue_views.play_now_keep, name="play_now_keep"),
    path("daily/", daily_views.daily_page, name="daily"),
    path("daily/<str:day>/", daily_views.daily_board_page, name="daily_board"),
    path("coach/", views.coach, name="coach"),
    path("my/games/", views.my_games, name="my_games"),
    path("my/stats/", views.my_stats, name="my_stats"),
    path("rules/", views.rules_page, name="rules"),
    path("rules/<str:ruleset>/", views.rules_page, name="rules"),
]
