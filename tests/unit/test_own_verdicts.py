"""The verdicts of a push on the user's own writes (issue 30, point 1 and observed 11): the ids
the show gives nested entries are never a change or a conflict, and a waiting change is laid
again on the show's answer to the user's own pushed change (`rebased`). Pure functions."""

from __future__ import annotations

from typing import Any

from app.store.changes import Change
from app.sync.push.verdicts import conflict_fields, conflicting_fields, rebased, same_on_show

GROUPS = [{"id": "kqj19r", "orderingGroupID": "OG02", "customers": ["C1"]}]
REGROUPED = [{"orderingGroupID": "OG02", "customers": ["C1"], "id": "2xqpbe"}]
RECORD = {"id": "r1", "customerName": "Shop", "phone": "1", "city": "A", "orderingGroups": GROUPS}


def change(seq: int, op: str = "update", base: Any = RECORD, **fields: Any) -> Change:
    return Change(
        seq=seq, resource="customers", record_id="r1", op=op, params={},
        payload={**RECORD, **fields}, changed_fields=tuple(fields), base=base, key_value=None,
        state="pending", attempts=0, last_error=None, response=None, server_id=None,
        theirs=None, created_at="", updated_at="",
    )  # fmt: skip


def test_nested_entries_with_new_ids_from_the_show_are_the_same() -> None:
    assert same_on_show(GROUPS, REGROUPED)
    assert same_on_show(GROUPS, [{**REGROUPED[0], "orderingSubGroupID": None}])
    assert not same_on_show(GROUPS, [{**REGROUPED[0], "orderingGroupID": "OG03"}])


def test_a_delete_is_no_conflict_with_the_new_ids_the_show_gave_nested_entries() -> None:
    server = {**RECORD, "orderingGroups": REGROUPED}
    assert conflicting_fields(change(1, "delete"), server) == []
    assert conflicting_fields(change(1, "delete"), {**server, "city": "B"}) == ["city"]


def test_a_conflict_lists_the_fields_changed_never_nested_ids_the_show_gave() -> None:
    theirs = {**RECORD, "orderingGroups": REGROUPED, "city": "Theirs", "email": "x@y.z"}
    mine = change(1, city="Mine")
    conflict = Change(**{**mine.__dict__, "state": "conflict", "theirs": theirs})
    assert conflict_fields(conflict) == ["city", "email"]


def test_your_later_pushed_save_is_no_conflict_with_your_earlier_edit() -> None:
    earlier, later = change(1, city="Grid"), change(2, city="Form")
    server = {**RECORD, "city": "Form"}
    assert conflicting_fields(earlier, server, [later]) == []


def test_a_waiting_change_is_rebased_on_the_answer_to_your_own_push() -> None:
    waiting = change(1, customerName="Grid")
    pushed = change(2, phone="2")
    answer = {**RECORD, "phone": "2", "orderingGroups": REGROUPED}
    again = rebased(waiting, answer, [pushed])
    assert again is not None and again.fields == ("customerName",)
    assert (again.base or {})["phone"] == "2" and again.payload["phone"] == "2"
    assert (again.base or {})["city"] == "A"  # another's change to it is still a conflict


def test_a_waiting_change_whose_every_field_your_later_push_set_is_moot() -> None:
    waiting = change(1, customerName="Grid")
    pushed = change(2, customerName="Form")
    again = rebased(waiting, {**RECORD, "customerName": "Form"}, [pushed])
    assert again is not None and again.fields is None


def test_a_change_made_after_the_pushed_one_keeps_its_field() -> None:
    pushed = change(1, customerName="Form")
    waiting = change(2, customerName="Grid")
    again = rebased(waiting, {**RECORD, "customerName": "Form"}, [pushed])
    assert again is not None and again.fields == ("customerName",)
    assert again.payload["customerName"] == "Grid"
    assert (again.base or {})["customerName"] == "Form"
