"""What a chat line may say (its drawing is ``games.present.reactions``).

Free text is kept as typed (spaces collapsed), shown escaped everywhere.
Quick phrases and reactions are stored as codes, so each reader sees them
in their own language: the words come from the catalogs when the line is
rendered for that reader, never from whoever sent it.
"""

from __future__ import annotations

import unicodedata

from games.models import CHAT_MAX_LENGTH, ChatMessage
from games.play.names import BIDI_CONTROLS
from games.rules import GameError

CODES = (*ChatMessage.Phrase.values, *ChatMessage.Reaction.values)


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
