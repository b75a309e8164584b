"""What the two doors share: pages (games/web/) and the game's socket
(games/live/) both read the guest a browser session carries (``guests``)
and both route a game's URL by its invite token (``converters``).

It sits in its own layer just below the doors, so neither door imports the
other to learn these; nothing below them imports it: a verb of
games/play/ is handed a guest id, never a session or a URL.
"""
