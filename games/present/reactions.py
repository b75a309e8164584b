"""How a chat line's quick phrase or reaction is shown: its catalog label,
and each reaction as a small drawing."""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe

from games.models import ChatMessage

PHRASES = {code: label for code, label in ChatMessage.Phrase.choices}
REACTIONS = {code: label for code, label in ChatMessage.Reaction.choices}

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
