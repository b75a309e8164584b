"""Pages: Django views, forms and URLs (the guest a browser session carries
and the token in a game's URL are in games/edge/, shared with the socket).

Pages create, join and show games; everything that changes a game during
play goes through the game's socket (games/live/). A new page goes here,
calling games/play/ for changes and games/present/ for what it shows.
"""
