"""The game as players take part in it: what they may do and the verbs that do it.

Each socket action is declared once (``actions``); the verbs of
``services`` check who is asking and let the rules decide; the bots' and the
turn clock's verbs, the clock's timer, the daily challenge, names and chat
lines live beside them. A new
action's declaration and its decision go here; nothing here imports a socket
or a template engine (import-linter holds it).
"""
