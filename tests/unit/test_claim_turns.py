"""A claim's records are sent in turns of their members (app/team/team_outbox.py `by_turns`)."""

from __future__ import annotations

from app.team.claims import TeamChange
from app.team.team_outbox import by_turns


def change(id_: int, member: str, record: str, op: str = "update") -> TeamChange:
    return TeamChange(id_, member, id_, "customers", record, op, {}, {"city": member}, ("city",),
                      None, None, 0, "")  # fmt: skip


def test_each_members_oldest_goes_first_then_each_ones_next() -> None:
    claim = [change(1, "ann", "a1"), change(2, "ann", "a2"), change(3, "ann", "a3"),
             change(4, "ben", "b1"), change(5, "ben", "b2"), change(6, "cy", "c1")]  # fmt: skip
    assert [c.id for c in by_turns(claim)] == [1, 4, 6, 2, 5, 3]


def test_a_records_changes_keep_their_order_and_go_together() -> None:
    claim = [change(1, "ann", "r"), change(2, "ben", "s"), change(3, "ben", "r")]
    assert [c.id for c in by_turns(claim)] == [1, 3, 2]  # r's chain is ann's first turn


def test_a_claim_that_creates_a_record_keeps_the_team_outboxs_order() -> None:
    claim = [change(1, "ann", "a1"), change(2, "ann", "a2"), change(3, "ben", "new", "create")]
    assert [c.id for c in by_turns(claim)] == [1, 2, 3]
