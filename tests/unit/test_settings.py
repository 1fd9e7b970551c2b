"""Profiles on disk, secrets in the keyring (or this session only), nothing secret in files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from app.profile.settings import Profile, ProfileStore, SecretStore, config_dir, data_dir
from tests.conftest import MemoryKeyring


def a_profile(name: str = "Spring show") -> Profile:
    return Profile(
        name=name,
        base_url="https://api.example.test/v1",
        auth_url="https://api.example.test/auth/oauth/token",
        show_id="100200",
    )


def test_user_dirs_are_the_tests_own(user_dirs: Path) -> None:
    assert config_dir().is_relative_to(user_dirs)
    assert data_dir().is_relative_to(user_dirs)


def test_profiles_round_trip_and_remember_the_last() -> None:
    store = ProfileStore()
    store.save(a_profile("A"))
    store.save(a_profile("B"))
    store.save(Profile(**{**a_profile("A").__dict__, "rate_limit": 100}))
    store.set_last("B")
    again = ProfileStore()
    assert [p.name for p in again.all()] == ["A", "B"]  # by name: saving A again moves nothing
    assert again.get("A") is not None and again.get("A").rate_limit == 100  # type: ignore[union-attr]
    assert again.last == "B"
    again.remove("B")
    assert again.last is None


def test_profile_paths_are_per_profile_and_safe() -> None:
    p = a_profile("../../etc/passwd show")
    assert p.cache_path.parent == p.data_dir
    assert p.data_dir.is_relative_to(data_dir())
    assert p.overrides_path.name == "api-overrides.toml"


def test_secret_goes_to_the_keyring_not_the_profile_file(memory_keyring: MemoryKeyring) -> None:
    store, secrets = ProfileStore(), SecretStore()
    profile = a_profile()
    store.save(profile)
    assert secrets.set(profile, "s3cret-value") is True
    assert secrets.get(profile) == "s3cret-value"
    assert "s3cret-value" in memory_keyring.store.values()
    assert "s3cret-value" not in store.path.read_text(encoding="utf-8")


def test_without_a_keyring_the_secret_is_kept_for_the_session(
    memory_keyring: MemoryKeyring,
) -> None:
    memory_keyring.broken = True
    secrets = SecretStore()
    profile = a_profile()
    assert secrets.set(profile, "s3cret-value") is False
    assert secrets.get(profile) == "s3cret-value"
    assert not secrets.persistent
    assert secrets.problem is not None and "this session only" in secrets.problem
    assert SecretStore().get(profile) is None  # a new session does not have it


def test_the_profile_list_keeps_one_order_whatever_was_saved_or_used_last(tmp_path: Path) -> None:
    """Issue 30, item 8: the list reordered between openings and the wrong show was opened."""
    store = ProfileStore(tmp_path / "profiles.json")
    for name in ("spring show", "Autumn show", "Winter show"):
        store.save(Profile(name, "https://a.test/v1", "https://a.test/token", name[:3].upper()))
    order = [p.name for p in store.all()]
    assert order == ["Autumn show", "spring show", "Winter show"]
    store.save(replace(store.all()[0], rate_limit=120))  # edited
    store.set_last("Winter show")  # opened
    assert [p.name for p in store.all()] == order
    assert store.get("Autumn show").rate_limit == 120  # type: ignore[union-attr]
