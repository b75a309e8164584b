"""The socket side of one process: websockets, channel layers, pushes.

The consumer parses a message through its declaration and calls a verb of
``games.play``; after the commit, ``broadcast`` pushes the snapshot to the
game's group. The process's live object (``process``), the channel layers,
the moves settled on the loop and the fair-share limits live here. A new
action's push and its socket-side controls go here.
"""
