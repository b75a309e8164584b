"""What people see, made from snapshots: HTML, labels, error texts, charts.

The page and every push render a table through ``rendering`` and the same
partial, so a refresh and a live update cannot disagree; ``viewcache`` keeps
each distinct view rendered once. A new action's buttons and words go here
(and in the templates); nothing here writes or decides.
"""
