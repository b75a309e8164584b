"""What a chat line may say, and how a quick phrase or reaction is drawn.

Free text is kept as typed (spaces collapsed), shown escaped everywhere.
Quick phrases and reactions are stored as codes, so each reader sees them
in their own language: the words come from the catalogs when the line is
rendered for that reader, never from whoever sent it.
"""

from __future__ import annotations

import unicodedata

from django.utils.safestring import SafeString, mark_safe

from games.models import CHAT_MAX_LENGTH, ChatMessage
from games.play.names import BIDI_CONTROLS
from games.rules import GameError

PHRASES = {code: label for code, label in ChatMessage.Phrase.choices}
REACTIONS = {code: label for code, label in ChatMessage.Reaction.choices}
CODES = (*PHRASES, *REACTIONS)

# Each reaction as a small drawing: no emoji font needed, the same on every
# system, and nothing in it comes from a player.
_FACE = '<circle cx="12" cy="12" r="10" fill="#f4c430" stroke="#8a6d00" stroke-width="1.2"/>'
_EYES = (
    '<circle cx="8.5" cy="10" r="1.4" fill="#1d2327"/>'
    '<circle cx="15.5" cy="10" r="1.4" fill="#1d2327"/>'
)
_DRAWINGS = {
    "smile": _FACE
    + _EYES
    + '<path d="M7.5 14.2q4.5 4.2 9 0" fill="none" stroke="#1d2327" stroke-width="1.6" '
    'stroke-linecap="round"/>',
    "wow": _FACE + _EYES + '<ellipse cx="12" cy="16" rx="2.2" ry="2.8" fill="#1d2327"/>',
    "sad": _FACE
    + _EYES
    + '<path d="M7.8 17.2q4.2-3.6 8.4 0" fill="none" stroke="#1d2327" stroke-width="1.6" '
    'stroke-linecap="round"/>',
    "heart": '<path d="M12 20.5 4.2 12.8a4.6 4.6 0 0 1 6.5-6.5L12 7.6l1.3-1.3a4.6 4.6 0 0 1 '
    '6.5 6.5Z" fill="#c92a2a" stroke="#862020" stroke-width="1.2" stroke-linejoin="round"/>',
    "star": '<path d="m12 2.8 2.8 5.8 6.3.9-4.6 4.4 1.1 6.3L12 17.2l-5.6 3 1.1-6.3'
    'L2.9 9.5l6.3-.9Z" fill="#f4c430" stroke="#8a6d00" stroke-width="1.2" '
    'stroke-linejoin="round"/>',
}
REACTION_SVG: dict[str, SafeString] = {
    code: mark_safe(
        '<svg class="reaction" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" '
        f'focusable="false">{drawing}</svg>'
    )
    for code, drawing in _DRAWINGS.items()
}
assert set(REACTION_SVG) == set(REACTIONS), "every reaction is drawn"


def read_chat(text: str | None, phrase: str | None) -> tuple[str, str]:
    """A chat message's stored ``(text, code)``: exactly one of the two, or
    ``GameError("bad_chat")``."""
    code = phrase or ""
    body = unicodedata.normalize("NFC", " ".join((text or "").split()))
    if bool(code) == bool(body):
        raise GameError("bad_chat")
    if code:
        if code not in CODES:
            raise GameError("bad_chat")
        return "", code
    if len(body) > CHAT_MAX_LENGTH or any(
        c in BIDI_CONTROLS or unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn") for c in body
    ):
        raise GameError("bad_chat")
    return body, ""
