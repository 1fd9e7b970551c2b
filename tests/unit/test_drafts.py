"""The draft stash: unsaved form edits kept across a crash, read back, and cleared."""

from __future__ import annotations

from pathlib import Path

from app.profile.drafts import Draft, DraftStash
from app.profile.settings import Profile


def test_drafts_round_trip_and_clear(tmp_path: Path) -> None:
    stash = DraftStash(tmp_path / "p" / "drafts.json")
    drafts = [
        Draft("customers", "c1", {"city": "Lyon", "priceZone": 3}, "Customers: Acme"),
        Draft("vendors", None, {"vendorName": "New vendor"}),
    ]
    stash.save(drafts)
    assert stash.load() == drafts
    stash.clear()
    assert stash.load() == [] and not stash.path.exists()


def test_saving_nothing_removes_the_file(tmp_path: Path) -> None:
    stash = DraftStash(tmp_path / "drafts.json")
    stash.save([Draft("customers", "c1", {"city": "Nice"})])
    stash.save([])
    assert not stash.path.exists()


def test_a_damaged_file_is_ignored(tmp_path: Path) -> None:
    stash = DraftStash(tmp_path / "drafts.json")
    stash.path.write_text("{not json", encoding="utf-8")
    assert stash.load() == []


def test_each_profile_has_its_own_stash_and_lock_beside_its_cache() -> None:
    spring = Profile("Spring", "https://x/api", "https://x/token", "1")
    autumn = Profile("Autumn", "https://x/api", "https://x/token", "2")
    assert spring.drafts_path.parent == spring.cache_path.parent
    assert spring.lock_path.parent == spring.cache_path.parent
    assert spring.drafts_path != autumn.drafts_path
