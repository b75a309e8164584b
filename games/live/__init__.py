"""The socket side of one process: websockets, channel layers, pushes.

The consumer parses a message through its declaration and calls a verb of
``games.play``; after the commit, ``broadcast`` pushes the snapshot to the
game's group. The open sockets (``process``), what one process holds
(``limits``), presence, the bots' scheduling, the health page, the channel
layers and the moves settled on the loop live here. A new action's push and
its socket-side controls go here.
"""
