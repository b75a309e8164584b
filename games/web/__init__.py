"""Pages: Django views, forms, URLs and the guest a browser session carries.

Pages create, join and show games; everything that changes a game during
play goes through the game's socket (games/live/). A new page goes here,
calling games/play/ for changes and games/present/ for what it shows.
"""
