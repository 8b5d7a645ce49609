"""Tournaments as a decider: pure functions over a tournament's events (no I/O, no clock).

A tournament's stream holds `created`, `registered`, `withdrawn` (with its `reason`),
`started`, `round_started` (its tables, each a game, seats in order), `table_finished` (a
game's ranks and forfeited seats) and `finished` (the final standings), or `cancelled` (a
scheduled start with too few entrants). `state.fold` folds them; `pairing` decides
each round's tables by format (swiss, round-robin, knockout) with seats balanced;
`standings` ranks the entrants. The service runs them like a game.
"""
