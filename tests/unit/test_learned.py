"""What is learned about a show's API is kept per profile and shared by its processes."""

from __future__ import annotations

import os
import time
from pathlib import Path

from app.api.learned import Learned


def test_a_fact_learned_by_one_process_is_known_to_the_next(tmp_path: Path) -> None:
    Learned(tmp_path).set("auth.credential_style", "basic")
    assert Learned(tmp_path).get("auth.credential_style") == "basic"
    assert (tmp_path / "learned.json").stat().st_mode & 0o777 == 0o600


def test_facts_of_several_writers_are_all_kept(tmp_path: Path) -> None:
    first, second = Learned(tmp_path), Learned(tmp_path)
    first.set("paging.customers", {"style": "page", "page_param": "pageNumber"})
    second.set("auth.token_lifetime", 300.0)
    assert Learned(tmp_path).get("paging.customers")["page_param"] == "pageNumber"
    assert Learned(tmp_path).get("auth.token_lifetime") == 300.0
    first.set("auth.token_lifetime", None)
    assert Learned(tmp_path).get("auth.token_lifetime", "gone") == "gone"


def test_a_lock_left_by_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    lock = tmp_path / "learned.json.lock"
    lock.write_text("")
    os.utime(lock, (time.time() - 60, time.time() - 60))
    Learned(tmp_path).set("paging.customers", {"style": "offset"})
    assert Learned(tmp_path).get("paging.customers") == {"style": "offset"}
    assert not lock.exists()


def test_without_a_folder_facts_live_in_memory() -> None:
    learned = Learned(None)
    learned.set("auth.credential_style", "body")
    assert learned.get("auth.credential_style") == "body"
    assert Learned(None).get("auth.credential_style") is None


def test_an_unwritable_folder_keeps_the_fact_for_this_process(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    learned = Learned(blocked)
    learned.set("auth.credential_style", "basic")
    assert learned.get("auth.credential_style") == "basic"
