"""Persistence: the rows of a game and how they are read and written.

Reads (``selectors``: the engine state and the public snapshot), the move
log's writes, the threads that run the sockets' database work, and a guest's
records. A new action's write goes here: what rows change, never whether
the change is allowed (that is ``games.play``).
"""
