"""The knowledge base without one ruling revision, for the history of what each revision changed
(`impact.revision_effects`): a side shares with the whole knowledge base everything but what the
revision's absence can move (the timelines, the values of the points a moved ruling sets).
"""

from __future__ import annotations

from typing import Optional

from ..base.record import replace as replace_fields
from ..engine.context import carded_games
from ..kb.knowledge import KnowledgeBase
from ..kb.timeline import moved_without


def without_revision(kb: KnowledgeBase, ruling: str, rev, seasons: Optional[dict] = None,
                     settings_of: Optional[dict] = None) -> KnowledgeBase:
    """The knowledge base as if one ruling revision had never been made (for the answers it
    changed). Everything but the timelines and the memoised values is shared; its season
    readings (`under_calendar`) are its own, each without the revision too. What `kb` memoised
    that no timeline decides is shared too: the notes of a day inside an inexact revision's
    period (`_fuzzy_in`: the settings and their dates, the calendar) and, given as `seasons`
    (`side_memo`), the revisions dated to a season and the season reading each day of a game
    meets (`runner._season_reading`: the same without a revision), the points and games some
    ruling sets for one card (engine.context `carded_points`). Given `settings_of`
    (`settings_of_rulings`), a point's value is `kb`'s where none of its settings is of a ruling
    whose times of force move (`_Unmoved`)."""
    values: dict = {}
    if settings_of is not None and kb.timelines.removed is None:
        moved = set().union(*(settings_of.get(r, ()) for r in rulings_moved(ruling, rev)))
        values = _Unmoved(kb, moved)
    return replace_fields(kb, timelines=kb.timelines.without(ruling, rev), _values=values,
                          memo=dict(seasons) if seasons else {}, _active_memo={},
                          _fuzzy_memo=kb._fuzzy_memo, _calendars={},
                          _whole=kb if kb.timelines.removed is None else None)


class _Unmoved(dict):
    """The values of a side without a revision (`KnowledgeBase._values`, read with `get`): one
    not worked out there yet is the whole knowledge base's where no setting of the point, for
    the card or game-wide, is of a ruling whose times of force move (`moved`: their (game, point,
    card or None)). A value is chosen among the settings in force (`KnowledgeBase.settings_in_force`),
    its note of an inexact period read from the settings' dates alone: those settings in force
    are the same on both sides, and so is the value. So is a card's value where only game-wide
    settings move but the card has settings of its own in force on the day: those are chosen
    first (`KnowledgeBase._value`), and the game's are not read (the whole knowledge base's
    value is then worked out there, once for every side)."""

    __slots__ = ("kb", "whole", "moved")

    def __init__(self, kb: KnowledgeBase, moved: set) -> None:
        super().__init__()
        self.kb, self.whole, self.moved = kb, kb._values, moved

    def get(self, key, default=None):
        found = dict.get(self, key)
        if found is None:
            game, point, card, day = key
            moved = self.moved
            if card is not None and (game, point, card) in moved:
                return default
            if (game, point, None) in moved:
                if card is None or not self.kb.settings_in_force(game, point, card, day):
                    return default
                found = self.kb.value(game, point, card=card, as_of=day)
            else:
                found = self.whole.get(key)
                if found is None:
                    return default
            self[key] = found
        return found


def settings_of_rulings(kb: KnowledgeBase) -> dict[str, set]:
    """ruling id -> the (game, point, card or None) of `kb.settings_by_card` it has a setting in."""
    out: dict[str, set] = {}
    for where, settings in kb.settings_by_card.items():
        for rid, _, _ in settings:
            out.setdefault(rid, set()).add(where)
    return out


# kb.season_revisions's, runner._season_reading's and _season_starts's
SEASON_KEYS = ("season-revisions", "engine.season", "engine.season-starts")
CARDED_KEYS = ("engine.carded", "engine.carded_games")  # engine.context carded_points's, carded_games's


def side_memo(kb: KnowledgeBase) -> dict:
    """What `kb` memoised that no timeline decides, for each side without a revision to start
    from (`without_revision`): of its seasons (`SEASON_KEYS`: functions of its rulings, games
    and calendar alone), and the points and games some ruling sets for one card
    (engine.context `carded_points`, `carded_games`: functions of the keys of
    `settings_by_card`, which a side shares), worked out anew by every side otherwise."""
    for game in kb.games:
        kb.season_revisions(game)
    carded_games(kb)        # and carded_points, which it reads
    return {k: v for k, v in kb.memo.items()
            if (type(k) is tuple and k and k[0] in SEASON_KEYS) or k in CARDED_KEYS}


def rulings_moved(ruling: str, rev) -> set[str]:
    """The rulings whose times of force can differ without one revision of `ruling`
    (`timeline.moved_without`: those `Timelines.without` recomputes). Nothing else's value
    moves: a rule point's value is chosen among the settings in force."""
    return moved_without(ruling, rev)
