"""Persistence: the rows of a game and how they are read and written.

Reads (``selectors``: the engine state and the public snapshot; ``advice``:
the solver's answers; ``records``: a guest's games and stats), what a move
starts from (``known``: the locked row, or the version this process
committed), the one write interface (``writes``), the threads that run
the sockets' database work, and the quotas counted in the shared cache
(``quotas``). A new action's rows go here: what changes,
never whether the change is allowed (that is ``games.play``).
"""
