from collections.abc import Sequence
from typing import Any

from django import forms
from django.forms.renderers import Jinja2
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.models import BOT_LEVELS, MAX_SEATS, NAME_MAX_LENGTH, TURN_CLOCKS
from games.play.names import look_alike, unnamed_name
from games.present.labels import BOT_LEVEL_NOTES, RULESET_BLURBS, RULESET_NAMES
from games.rules import DEFAULT_RULESET, RULESETS

# The site's own forms draw their widgets with the Jinja2 versions of
# Django's widget templates: the same markup (apart from whitespace) in
# under half the time, on the home page every visit starts from. The admin
# keeps the default renderer, for its own widget templates.
JINJA_WIDGETS = Jinja2()


class NameField(forms.CharField):
    def __init__(self, *, autofocus: bool = True, **kwargs: Any) -> None:
        attrs: dict[str, Any] = {"autocomplete": "nickname"}
        if autofocus:
            attrs["autofocus"] = True
        super().__init__(
            label=_("Your name"),
            max_length=NAME_MAX_LENGTH,
            strip=True,
            widget=forms.TextInput(attrs=attrs),
            **kwargs,
        )

    def clean(self, value: str) -> str:
        value = super().clean(value)
        return " ".join(value.split())


def default_name() -> str:
    """Who a player is who gave no name: starting a game or the daily challenge
    takes one tap, and the name can be given next time."""
    return gettext("Player")


# Who a stranger at a Play now table is when they gave no name: an animal,
# friendlier than "Player 2" and told apart at a glance, in their language.
STRANGER_NAMES = (
    pgettext_lazy("a stranger's name", "Otter"),
    pgettext_lazy("a stranger's name", "Fox"),
    pgettext_lazy("a stranger's name", "Owl"),
    pgettext_lazy("a stranger's name", "Heron"),
    pgettext_lazy("a stranger's name", "Lynx"),
    pgettext_lazy("a stranger's name", "Beaver"),
    pgettext_lazy("a stranger's name", "Penguin"),
    pgettext_lazy("a stranger's name", "Koala"),
)


def stranger_name(guest: str, ahead: Sequence[str]) -> str:
    """A Play now name for ``guest``, who gave none: the same animal at every
    table, unless one of those ``ahead`` in the queue looks like it (then
    the next)."""
    return unnamed_name([str(name) for name in STRANGER_NAMES], guest, ahead)


class OptionalNameField(NameField):
    """A name that may be left blank (then ``default_name``). No autofocus: on
    a phone it would open the keyboard over the choices the page offers."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(autofocus=False, required=False, **kwargs)


class NewGameForm(forms.Form):
    default_renderer = JINJA_WIDGETS
    name = OptionalNameField()
    seats = forms.TypedChoiceField(
        label=_("Seats"),
        choices=[(n, str(n)) for n in range(1, MAX_SEATS + 1)],
        coerce=int,
        initial=2,
        help_text=_("One seat is a solitaire game."),
    )
    ruleset = forms.ChoiceField(
        label=_("Rule set"),
        choices=[(key, RULESET_NAMES[key]) for key in RULESETS],
        initial=DEFAULT_RULESET,
        widget=forms.RadioSelect,
    )

    # The front door's buttons: a bot level plays the computer, none (the
    # friends' button) opens a lobby to share.
    opponents = forms.ChoiceField(
        label=_("Play the computer"),
        choices=[("", _("Play with friends")), *BOT_LEVELS],
        required=False,
    )
    watch = forms.BooleanField(
        label=_("Just watch"),
        required=False,
        help_text=_(
            "Bots take every seat and play while you watch: pick their level under "
            "“Play the computer”."
        ),
    )
    turn_seconds = forms.TypedChoiceField(
        label=_("Turn clock"),
        choices=TURN_CLOCKS,
        coerce=int,
        initial=0,
        # Left out (an older form, a script): no clock.
        required=False,
        widget=forms.Select(attrs={"aria-describedby": "turn-clock-help"}),
        help_text=_(
            "When a player's time runs out, a bot plays that turn for them; they take their "
            "seat back by acting."
        ),
    )
    hints = forms.BooleanField(
        label=_("Allow hints"),
        required=False,
        help_text=_(
            "Players may ask the advisor what each choice is worth. Everyone sees that "
            "hints are on."
        ),
    )

    duplicate = forms.BooleanField(
        label=_("Duplicate: everyone plays the same dice at once"),
        required=False,
        help_text=_(
            "Every seat plays each round at the same time, on the same dice; nobody sees "
            "another's dice until the round is over. For 2 to 6 seats."
        ),
    )
    perfect_reference = forms.BooleanField(
        label=_("Compare with the perfect player"),
        required=False,
        help_text=_(
            "In a duplicate game, the perfect player plays the same dice alongside; its "
            "score is shown at the end."
        ),
    )

    # A companion to real dice: no die is rolled by the server.
    dice_entered = forms.BooleanField(
        label=_("Real dice: enter what you roll"),
        required=False,
        help_text=_(
            "For a table with real dice: each player taps in the faces they threw, and the "
            "card adds up, with the advisor on. Works with pass and play or a link; no bots "
            "or clock."
        ),
    )

    # Pass and play: the "On one device" door's buttons ("pass_and_play",
    # "1" with the server's dice, "real" with real dice) start a game for
    # the people on this device, all of them this browser's, with bots among
    # them if asked.
    pass_and_play = forms.ChoiceField(choices=[("1", "1"), ("real", "real")], required=False)
    people_count = forms.TypedChoiceField(
        label=_("People"),
        choices=[(n, str(n)) for n in range(2, MAX_SEATS + 1)],
        coerce=int,
        initial=2,
        required=False,
    )
    people = forms.CharField(
        label=_("Names of the people playing here, one a line"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "autocomplete": "off"}),
        help_text=_(
            "Optional. The names written here decide who plays “On one device” (2 to 6); "
            "left blank, they play as Player 1, Player 2…, the first under your name if you "
            "gave one."
        ),
    )
    people_bots = forms.TypedChoiceField(
        label=_("Bots among them"),
        choices=[(n, str(n)) for n in range(MAX_SEATS - 1)],
        coerce=int,
        initial=0,
        required=False,
    )
    people_bot_level = forms.ChoiceField(
        label=_("Their level"), choices=BOT_LEVELS, initial="solid", required=False
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("pass_and_play") == "real":
            data["dice_entered"] = True
        if data.get("pass_and_play"):
            self._clean_people(data)
        if data.get("watch") and not data.get("opponents"):
            self.add_error("opponents", _("Choose which bots should play."))
        if data.get("duplicate") and (data.get("seats") or 0) < 2:
            self.add_error("duplicate", _("A duplicate game needs 2 to 6 seats."))
        if data.get("dice_entered"):
            self._clean_companion(data)
        refused = [field for field in ("people_count", "pass_and_play") if self.has_error(field)]
        if refused:
            # Without a script, the page sent back opens on its top: focus
            # on the door's count brings the door, and why it refused, into
            # view, and names the reason to a screen reader.
            attrs = self.fields["people_count"].widget.attrs
            attrs["autofocus"] = True
            attrs["aria-describedby"] = " ".join(f"id_{field}_error" for field in refused)
        return data

    def _clean_companion(self, data: dict[str, Any]) -> None:
        """What a game of real dice cannot have: everything that needs the
        server's dice (a bot, the clock's stand-in bot, shared rounds). Said
        beside the choice that asked for real dice: the box under "More
        options", or the door's real-dice button."""
        field = "pass_and_play" if data.get("pass_and_play") == "real" else "dice_entered"
        bots = data.get("people_bots") if data.get("pass_and_play") else data.get("opponents")
        if bots or data.get("watch"):
            self.add_error(
                field, _("Bots need the server's dice: play real dice with people only.")
            )
        if data.get("turn_seconds"):
            self.add_error(
                field,
                _("A turn clock hands a late turn to a bot: choose no clock for real dice."),
            )
        if data.get("duplicate"):
            self.add_error(
                field,
                _("Duplicate rounds share the server's dice: untick one of the two."),
            )

    def _clean_people(self, data: dict[str, Any]) -> None:
        """The people of a pass-and-play game: the names written, one a line
        (blank lines left out), or else as many as the door's count, the
        first under the name given."""
        names = [" ".join(line.split()) for line in (data.get("people") or "").splitlines()]
        names = [name for name in names if name]
        if names:
            data["people"] = names
        else:
            data["people"] = default_people(data.get("people_count") or 2, data.get("name") or "")
        count = len(data["people"])
        if not 2 <= count <= MAX_SEATS:
            self.add_error("people", _("Write the names of 2 to 6 people, one a line."))
        elif count + (data.get("people_bots") or 0) > MAX_SEATS:
            self.add_error("people_bots", _("A table has at most 6 seats, bots included."))
        if data.get("duplicate"):
            self.add_error(
                "duplicate", _("A duplicate game needs a device for each person: untick it.")
            )

    # The fields under "More options", and those of its boxes whose ticking
    # matters enough to be shown again when the form comes back.
    OPTIONS = (
        "seats",
        "ruleset",
        "turn_seconds",
        "hints",
        "dice_entered",
        "duplicate",
        "perfect_reference",
        "watch",
        "people",
        "people_bots",
        "people_bot_level",
    )
    SHOWN_AGAIN = ("dice_entered", "watch", "people")

    def options_open(self) -> bool:
        """Whether a form sent back opens "More options": a setting there was
        refused, is one a player should see again, or stands in the way of
        real dice asked for by the door's button."""
        if not self.is_bound:
            return False
        return (
            any(self[field].errors for field in self.OPTIONS)
            or any(self[field].value() for field in self.SHOWN_AGAIN)
            or bool(self["pass_and_play"].errors)
        )

    def ruleset_blurbs(self) -> list[tuple[str, object, object]]:
        return [(key, RULESET_NAMES[key], RULESET_BLURBS[key]) for key in RULESETS]

    def bot_levels(self) -> list[tuple[str, object, object]]:
        return [(key, label, BOT_LEVEL_NOTES[key]) for key, label in BOT_LEVELS]


def default_people(count: int, first: str) -> list[str]:
    """``count`` people for one device when nobody wrote their names: the
    name given first (else "Player 1"), then "Player 2", "Player 3"…, each
    number skipped whose name looks like one already taken."""
    people = [first] if first else []
    number = len(people)
    while len(people) < count:
        number += 1
        candidate = f"{default_name()} {number}"
        if not any(look_alike(candidate, taken) for taken in people):
            people.append(candidate)
    return people


class JoinForm(forms.Form):
    default_renderer = JINJA_WIDGETS
    name = NameField()


class DailyForm(forms.Form):
    """Entering the daily challenge, from its page or the home page's button."""

    default_renderer = JINJA_WIDGETS
    name = OptionalNameField()
    # Ticked on the home page before its daily button: refused, not ignored.
    dice_entered = forms.BooleanField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("dice_entered"):
            self.add_error(
                None,
                _(
                    "Today's challenge is the same server dice for everyone: it cannot be "
                    "played with real dice."
                ),
            )
        return data


class PlayNowForm(forms.Form):
    """Play now, from the home page's door: the name of the home form, and
    the rule set, seats and language wanted at a stranger's table."""

    default_renderer = JINJA_WIDGETS
    name = OptionalNameField()
    play_ruleset = forms.ChoiceField(
        label=_("Rule set"),
        choices=[(key, RULESET_NAMES[key]) for key in RULESETS],
        initial=DEFAULT_RULESET,
        required=False,
    )
    play_seats = forms.TypedChoiceField(
        label=_("Players"),
        choices=[(n, str(n)) for n in range(2, 5)],
        coerce=int,
        initial=2,
        required=False,
    )
    play_language = forms.BooleanField(label=_("Only players of my language"), required=False)
