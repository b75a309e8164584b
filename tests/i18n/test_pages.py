"""Every page of a game, rendered in Spanish, Italian and Catalan: the right
<html lang>, the key sentences in that language and no English left over."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import translation
from django.utils.html import escape

from games.edge.guests import GUEST_KEY
from games.models import MAX_SEATS, Game, Move, Player
from games.play import services
from games.present import rendering
from games.present.messages import error_message
from games.rules import Roll, Score, get_ruleset

pytestmark = pytest.mark.django_db

# Sentences of the English interface that must not survive in a translated page.
ENGLISH = [
    "Your name",
    "More options",
    "Play with friends",
    "Play the computer",
    "Plays each turn well",
    "Get an invite link",
    "Today's challenge",
    "five-dice game played live",
    "five-dice game, played live",
    "Skip to content",
    "Invite link",
    "Join this game",
    "Join as this name",
    "Start the game",
    "Waiting for",
    "Share the invite link",
    "Free seat",
    "Your turn",
    "Roll again",
    "rolls left",
    "Keyboard",
    "Connecting",
    "Scorecards",
    "Final scores",
    "Rematch",
    "wins with",
    "Rules of",
    "The server rolls every die",
    "score in",
]

# RULES.md: the `yacht` boxes as players of each language know them.
YACHT_BOXES = {
    "es": ["Unos", "Doses", "Treses", "Cuatros", "Cincos", "Seises", "Full House",
           "Cuatro iguales", "Escalera pequeña", "Escalera grande", "Elección", "Yacht"],
    "it": ["Uno", "Due", "Tre", "Quattro", "Cinque", "Sei", "Full House", "Poker",
           "Scala piccola", "Scala grande", "Scelta", "Yacht"],
    "ca": ["Uns", "Dos", "Tres", "Quatres", "Cincs", "Sis", "Full House", "Quatre iguals",
           "Escala petita", "Escala gran", "Elecció", "Yacht"],
}  # fmt: skip

EXPECTED = {
    "es": {
        "home": [
            "Tu nombre",
            "Puestos",
            "Más opciones",
            "Contra el ordenador",
            "Principiante",
            "Crear una invitación",
            "El desafío de hoy",
            "Clásico 13",
        ],
        "lobby_host": ["Enlace de invitación", "Jugadores", "anfitrión", "Empezar la partida"],
        "lobby_guest": ["Únete a esta partida", "Entrar con este nombre", "Tu nombre"],
        "my_turn": ["Tu turno", "Volver a tirar", "Quedan 2 tiradas", "Ronda 1 de 12"],
        "their_turn": ["Turno de Ana", "Quedan 2 tiradas"],
        "end": ["Puntuación final", "Revancha"],
        "end_duel": ["Puntuaciones finales", "Revancha", "1.º"],
    },
    "it": {
        "home": [
            "Il tuo nome",
            "Posti",
            "Altre opzioni",
            "Contro il computer",
            "Principiante",
            "Crea un invito",
            "Classico 13",
        ],
        "lobby_host": ["Link d’invito", "Giocatori", "organizzatore", "Inizia la partita"],
        "lobby_guest": ["Unisciti a questa partita", "Entra con questo nome", "Il tuo nome"],
        "my_turn": ["Tocca a te", "Rilancia", "Restano 2 lanci", "Giro 1 di 12"],
        "their_turn": ["Tocca a Ana", "Restano 2 lanci"],
        "end": ["Punteggio finale", "Rivincita"],
        "end_duel": ["Punteggi finali", "Rivincita", "1º"],
    },
    "ca": {
        "home": [
            "El teu nom",
            "Llocs",
            "Més opcions",
            "Contra l’ordinador",
            "Principiant",
            "Crea una invitació",
            "Clàssic 13",
        ],
        "lobby_host": ["Enllaç d’invitació", "Jugadors", "amfitrió", "Comença la partida"],
        "lobby_guest": ["Uneix-te a aquesta partida", "Entra amb aquest nom", "El teu nom"],
        "my_turn": ["El teu torn", "Torna a tirar", "Queden 2 tirades", "Ronda 1 de 12"],
        "their_turn": ["Ara juga Ana", "Queden 2 tirades"],
        "end": ["Puntuació final", "Revenja"],
        "end_duel": ["Puntuacions finals", "Revenja", "1r"],
    },
}

LANGUAGES = list(EXPECTED)


def text_of(html: str) -> str:
    """What a reader sees or hears: the text, plus labels kept in attributes."""
    attributes = " ".join(
        re.findall(
            r'(?:aria-label|title|data-label-\w+|data-copied|placeholder|content)="([^"]*)"', html
        )
    )
    text = re.sub(r"<[^>]+>", " ", html)
    return " ".join(f"{text} {attributes}".replace("&#x27;", "'").replace("&quot;", '"').split())


def check_page(html: str, lang: str, keys: list[str]) -> None:
    assert re.search(rf'<html lang="{lang}">', html), "wrong or missing <html lang>"
    text = text_of(html)
    for phrase in keys:
        assert phrase in text, f"{phrase!r} missing from the {lang} page"
    leftovers = [phrase for phrase in ENGLISH if phrase in text]
    assert leftovers == [], f"English left in the {lang} page"


def host_client() -> tuple[Client, Game, str]:
    client = Client()
    response = client.post("/en/", {"name": "Ana", "seats": "2", "ruleset": "yacht"})
    token = response["Location"].rstrip("/").rsplit("/", 1)[1]
    return client, Game.objects.get(token=token), client.session[GUEST_KEY]


def play(game: Game, guest: str, action: Roll | Score) -> Game:
    game.refresh_from_db()
    return services.game_act(token=game.token, guest_id=guest, version=game.version, action=action)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_home_page_is_in_the_language_of_its_prefix(client: Client, lang: str):
    check_page(client.get(f"/{lang}/").content.decode(), lang, EXPECTED[lang]["home"])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lobby_is_translated_for_the_host_and_for_a_newcomer(lang: str):
    host, game, _guest = host_client()
    check_page(host.get(f"/{lang}/g/{game.token}/").content.decode(), lang,
               EXPECTED[lang]["lobby_host"])  # fmt: skip
    newcomer = Client()
    check_page(newcomer.get(f"/{lang}/g/{game.token}/").content.decode(), lang,
               EXPECTED[lang]["lobby_guest"])  # fmt: skip


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_table_mid_turn_is_translated_for_the_player_and_the_one_waiting(lang: str):
    ana, game, ana_guest = host_client()
    bo = Client()
    bo.post(f"/{lang}/g/{game.token}/join/", {"name": "Bo"})
    services.game_start(token=game.token, guest_id=ana_guest)
    play(game, ana_guest, Roll())

    mine = ana.get(f"/{lang}/g/{game.token}/").content.decode()
    check_page(mine, lang, EXPECTED[lang]["my_turn"])
    boxes = re.findall(
        r'<th scope="row"><button type="button" class="box-name-button"'
        r' popovertarget="box-help-\w+" popovertargetaction="show">([^<]+)</button>',
        mine.split("<tbody>")[1].split("</tbody>")[0],
    )
    assert boxes == YACHT_BOXES[lang]
    theirs = bo.get(f"/{lang}/g/{game.token}/").content.decode()
    check_page(theirs, lang, EXPECTED[lang]["their_turn"])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_end_of_a_game_is_translated(lang: str):
    ana = Client()
    response = ana.post(f"/{lang}/", {"name": "Ana", "seats": "1", "ruleset": "yacht"})
    assert response["Location"].startswith(f"/{lang}/g/")
    game = Game.objects.get(token=response["Location"].rstrip("/").rsplit("/", 1)[1])
    guest = ana.session[GUEST_KEY]
    assert game.status == Game.Status.PLAYING  # a solitaire table starts at once
    for key in get_ruleset(game.ruleset).category_keys:
        play(game, guest, Roll())
        play(game, guest, Score(key))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    check_page(ana.get(response["Location"]).content.decode(), lang, EXPECTED[lang]["end"])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_end_of_a_game_of_two_is_translated(lang: str):
    ana = Client()
    response = ana.post(f"/{lang}/", {"name": "Ana", "seats": "2", "ruleset": "yacht"})
    game = Game.objects.get(token=response["Location"].rstrip("/").rsplit("/", 1)[1])
    guest = ana.session[GUEST_KEY]
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    services.game_start(token=game.token, guest_id=guest)
    for key in get_ruleset(game.ruleset).category_keys:
        for who in (guest, "bo"):
            play(game, who, Roll())
            play(game, who, Score(key))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    check_page(ana.get(response["Location"]).content.decode(), lang, EXPECTED[lang]["end_duel"])


# Each language's way of writing a rank, from first to sixth (MAX_SEATS).
ORDINALS = {
    "en": ["#1", "#2", "#3", "#4", "#5", "#6"],
    "es": ["1.º", "2.º", "3.º", "4.º", "5.º", "6.º"],
    "it": ["1º", "2º", "3º", "4º", "5º", "6º"],
    "ca": ["1r", "2n", "3r", "4t", "5è", "6è"],
}


@pytest.mark.parametrize("lang", list(ORDINALS))
def test_the_end_screen_writes_every_place_as_its_language_writes_ranks(lang: str):
    seats = [{"name": f"P{n}", "total": 100 - n} for n in range(MAX_SEATS)]
    with translation.override(lang):
        labels = [seat["place_label"] for seat in rendering._places(seats)]
    assert labels == ORDINALS[lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_missing_game_says_so_in_the_language_of_the_link(client: Client, lang: str):
    response = client.get(f"/{lang}/g/no-such-game/")
    assert response.status_code == 404
    html = response.content.decode()
    assert f'<html lang="{lang}">' in html
    with translation.override(lang):
        assert escape(error_message("no_such_game")) in html


@pytest.mark.parametrize(
    ("lang", "game", "move", "status"),
    [
        ("es", "partida", "se unió", "Esperando jugadores"),
        ("it", "partita", "è entrato", "In attesa di giocatori"),
        ("ca", "partida", "s’hi va unir", "A l’espera de jugadors"),
    ],
)
def test_the_admin_names_models_moves_and_statuses_in_the_staff_members_language(
    lang: str, game: str, move: str, status: str
):
    with translation.override(lang):
        assert str(Game._meta.verbose_name) == game
        assert str(Move.Kind.JOIN.label) == move
        assert str(Game.Status.LOBBY.label) == status
        assert str(Player(name="Ana", order=0)) != "Ana (seat 1)"
