"""One interpreter per game: `rulesdsl.games.<game id>` exposes `ENGINE` (see engine.registry)."""
