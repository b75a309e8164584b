"""Chat lines are stored with their game, named from the seat, and shown
to staff in the admin, escaped."""

import pytest
from django.contrib.auth.models import User

from games.models import ChatMessage, Game
from games.play import services
from games.rules import GameError
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_line_is_stored_with_the_seat_that_said_it_and_the_version_stays():
    game = factories.started_game(2)
    services.game_chat(token=game.token, guest_id="bo", text="  well   played ")
    services.game_chat(token=game.token, guest_id="", phrase="wow")
    said = list(ChatMessage.objects.filter(game=game).order_by("pk"))
    assert [(x.name, x.text, x.code) for x in said] == [("Bo", "well played", ""), ("", "", "wow")]
    assert said[0].player is not None and said[0].player.order == 1
    assert said[1].player is None
    assert Game.objects.get(pk=game.pk).version == game.version


def test_only_the_host_opens_or_closes_the_chat_to_spectators_and_a_rematch_keeps_it():
    game = factories.lobby_game(1)
    with pytest.raises(GameError, match="not_host"):
        services.game_spectator_chat(token=game.token, guest_id="zed", on=0)
    services.game_spectator_chat(token=game.token, guest_id="ana", on=0)
    with pytest.raises(GameError, match="chat_closed"):
        services.game_chat(token=game.token, guest_id="zed", phrase="thanks")
    services.game_chat(token=game.token, guest_id="ana", phrase="thanks")
    assert Game.objects.get(pk=game.pk).spectator_chat is False


def test_staff_read_a_tables_chat_in_the_admin_escaped(client):
    game = factories.started_game(2)
    services.game_chat(token=game.token, guest_id="ana", text="<i>gg</i>")
    staff = User.objects.create_superuser("staff", "staff@example.com", "a-long-password-1")
    client.force_login(staff)
    html = client.get(f"/en/admin/games/game/{game.pk}/change/").content.decode()
    assert "&lt;i&gt;gg&lt;/i&gt;" in html and "<i>gg</i>" not in html
    listing = client.get("/en/admin/games/chatmessage/?q=gg").content.decode()
    assert "&lt;i&gt;gg&lt;/i&gt;" in listing
