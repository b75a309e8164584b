from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from games.live import botplay, broadcast
        from games.play import turnclock
        from games.runtime import runtime

        # What follows every commit, in order: the push, then a bot's next
        # step, then the turn clock's timer.
        commits = runtime.commits
        commits.after_commit[:] = [broadcast.push_snapshot, botplay.schedule, turnclock.schedule]
        commits.after_chat[:] = [broadcast.push_chat]
