"""Play now from the home page, without JavaScript: the waiting page and
its status, the pairing that sends both to one game, the bot offered when
the countdown ends, leaving in one press, and the refusals, translated."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django.utils import translation

from games.edge.guests import GUEST_KEY
from games.models import Game, Player, QueueTicket
from games.web.forms import stranger_name
from tests.pages.test_front_door import UNTOUCHED

pytestmark = pytest.mark.django_db


def press(client: Client, lang: str = "en", address: str = "198.51.100.7", **fields: str):
    return client.post(
        f"/{lang}/now/",
        {**UNTOUCHED, "play_ruleset": "yacht", "play_seats": "2", **fields},
        REMOTE_ADDR=address,
    )


def test_the_home_page_offers_play_now_with_the_rule_set_under_it_yacht_by_default(client):
    html = client.get("/en/").content.decode()
    door = html.split('class="door door-now"', 1)[1].split("</section>", 1)[0]
    assert 'formaction="/en/now/"' in door and ">Play now</button>" in door
    assert '<option value="yacht" selected>' in door
    assert 'name="play_seats"' in door and 'name="play_language"' in door


def test_pressing_play_now_shows_the_waiting_page_with_its_countdown_and_leave(client):
    response = press(client, name="Ana")
    assert response.status_code == 302 and response["Location"] == "/en/now/wait/"
    page = client.get("/en/now/wait/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "Yacht: waiting for 1 other player." in html
    assert '<span class="play-now-seconds">0:20</span>' in html
    assert 'action="/en/now/leave/"' in html and "Play a bot" not in html
    # Without JavaScript the page asks again by itself.
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in html
    status = client.get("/en/now/status.json").json()
    assert status["state"] == "waiting" and status["offer"] is False
    assert 19 <= status["seconds_left"] <= 20
    ticket = QueueTicket.objects.get()
    assert (ticket.guest_id, ticket.name) == (client.session[GUEST_KEY], "Ana")


def test_a_second_guest_pressing_play_now_is_sent_to_the_game_and_the_first_page_follows():
    ana, ben = Client(), Client()
    press(ana, name="Ana")
    response = press(ben, name="Ben", address="203.0.113.9")
    game = Game.objects.get()
    assert response["Location"] == f"/en/g/{game.token}/"
    status = ana.get("/en/now/status.json").json()
    assert (status["state"], status["url"]) == ("paired", f"/en/g/{game.token}/")
    assert ana.get("/en/now/wait/")["Location"] == f"/en/g/{game.token}/"
    table = ana.get(f"/en/g/{game.token}/").content.decode()
    assert "Ana" in table and "Ben" in table
    assert game.status == Game.Status.PLAYING and game.turn_seconds == 30


ANIMALS = {
    "en": {"Otter", "Fox", "Owl", "Heron", "Lynx", "Beaver", "Penguin", "Koala"},
    "es": {"Nutria", "Zorro", "Búho", "Garza", "Lince", "Castor", "Pingüino", "Koala"},
    "it": {"Lontra", "Volpe", "Gufo", "Airone", "Lince", "Castoro", "Pinguino", "Koala"},
    "ca": {"Llúdriga", "Guineu", "Mussol", "Agró", "Linx", "Castor", "Pingüí", "Coala"},
}


def guest_client(guest: str) -> Client:
    client = Client()
    session = client.session
    session[GUEST_KEY] = guest
    session.save()
    return client


@pytest.mark.parametrize("lang", ["en", "es", "it", "ca"])
def test_strangers_who_give_no_name_play_as_two_different_animals_in_their_language(lang):
    # Two guests whose browsers alone would make them the same animal.
    with translation.override(lang):
        first = stranger_name("guest-0", [])
        twin = next(f"guest-{n}" for n in range(1, 99) if stranger_name(f"guest-{n}", []) == first)
    ana, ben = guest_client("guest-0"), guest_client(twin)
    press(ana, lang)
    html = ana.get(f"/{lang}/now/wait/").content.decode()
    press(ben, lang, address="203.0.113.9")
    names = list(Player.objects.order_by("order").values_list("name", flat=True))
    assert names[0] == first and names[1] != first
    assert set(names) <= ANIMALS[lang]
    said = {
        "en": "You play as “",
        "es": "Juegas como «",
        "it": "Giochi come «",
        "ca": "Jugues com a «",
    }
    assert f"{said[lang]}{first}" in html


def test_a_stranger_who_gave_a_name_plays_under_it_and_is_told_so(client):
    press(client, name="Ana")
    assert "You play as “Ana”." in client.get("/en/now/wait/").content.decode()


@override_settings(YACHT_PLAY_NOW_WAIT_SECONDS=0)
def test_when_the_countdown_ends_the_page_offers_a_bot_or_keep_waiting(client):
    press(client)
    html = client.get("/en/now/wait/").content.decode()
    assert "Nobody has come yet." in html
    assert 'action="/en/now/bot/"' in html and 'action="/en/now/keep/"' in html
    assert client.get("/en/now/status.json").json()["offer"] is True
    assert client.post("/en/now/keep/")["Location"] == "/en/now/wait/"
    html = client.get("/en/now/wait/").content.decode()
    assert "Nobody has come yet." not in html
    assert "Still looking: you can play a bot at any time." in html
    response = client.post("/en/now/bot/")
    game = Game.objects.get()
    assert response["Location"] == f"/en/g/{game.token}/"
    assert game.status == Game.Status.PLAYING
    assert list(Player.objects.filter(game=game).values_list("bot", flat=True)) == ["", "solid"]


def test_leave_is_one_press_back_home_and_the_ticket_is_paired_with_nobody(client):
    press(client)
    response = client.post("/en/now/leave/", follow=True)
    assert response.redirect_chain == [("/en/", 302)]
    assert "You have left the Play now queue." in response.content.decode()
    assert QueueTicket.objects.get().state == QueueTicket.State.LEFT
    assert client.get("/en/now/wait/")["Location"] == "/en/"
    assert press(Client(), address="203.0.113.9").status_code == 302
    assert not Game.objects.exists()


def test_the_waiting_page_without_a_ticket_sends_the_visitor_home(client):
    assert client.get("/en/now/wait/")["Location"] == "/en/"
    assert client.get("/en/now/status.json").json() == {"state": "none", "url": "/en/"}
    assert "/es/" in client.post("/es/now/bot/")["Location"]


@override_settings(YACHT_PLAY_NOW_JOINS_PER_SESSION=1)
def test_pressing_play_now_too_often_is_refused_in_the_page_s_language_and_writes_nothing():
    client = Client()
    # The first press has no session yet to count against: its address counts it.
    press(client, lang="es")
    assert press(client, lang="es").status_code == 302
    response = press(client, lang="es")
    assert response.status_code == 429
    assert "Has pulsado «Jugar ya» muchas veces" in response.content.decode()
    assert QueueTicket.objects.count() == 1


@override_settings(YACHT_PLAY_NOW_WAITING_PER_ADDRESS=1)
def test_a_network_already_waiting_is_refused_in_the_page_s_language():
    press(Client(), lang="it", play_seats="3")
    response = press(Client(), lang="it", play_seats="3")
    assert response.status_code == 429
    assert "Diverse persone della tua rete sono già in attesa" in response.content.decode()
    assert QueueTicket.objects.count() == 1


@override_settings(YACHT_PLAY_NOW_POLLS_PER_SESSION=2)
def test_a_waiting_page_asking_too_fast_is_answered_429_without_a_read(
    client, django_assert_num_queries
):
    press(client)
    assert client.get("/en/now/status.json").status_code == 200
    assert client.get("/en/now/status.json").status_code == 200
    # The session is read (one query); the ticket is neither read nor written.
    with django_assert_num_queries(1):
        assert client.get("/en/now/status.json").status_code == 429


@override_settings(YACHT_PLAY_NOW_POLLS_PER_SESSION=1)
def test_the_page_reloading_itself_past_the_pace_shows_the_ticket_without_marking_it_seen(client):
    press(client)
    assert client.get("/en/now/wait/").status_code == 200
    seen = QueueTicket.objects.get().seen_at
    page = client.get("/en/now/wait/")
    assert page.status_code == 200 and "Looking for players" in page.content.decode()
    assert QueueTicket.objects.get().seen_at == seen


def test_a_wrong_seat_count_or_rule_set_says_so_and_keeps_the_choices_made(client):
    response = press(client, play_seats="7", play_ruleset="yatzy", play_language="on")
    html = response.content.decode()
    assert response.status_code == 400
    assert "Play now seats 2 to 4 players." in html
    assert "name" not in html.split('class="errorlist', 1)[1].split("</ul>", 1)[0].lower()
    assert '<option value="yatzy" selected>' in html
    assert 'name="play_language" id="id_play_language" checked' in html
    response = press(client, play_ruleset="nope")
    assert "There is no such rule set." in response.content.decode()
    assert not QueueTicket.objects.exists()


def test_only_players_of_my_language_waits_for_the_page_s_language(client):
    press(client, lang="ca", play_language="on")
    assert QueueTicket.objects.get().language == "ca"
