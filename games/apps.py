from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from games.live import broadcast
        from games.live.process import live
        from games.play import botplay, turnclock

        # What follows every commit, in order: the push, then a bot's next
        # step, then the turn clock's timer.
        live.after_commit[:] = [broadcast.push_snapshot, botplay.schedule, turnclock.schedule]
        live.after_chat[:] = [broadcast.push_chat]
