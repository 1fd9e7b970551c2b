"""The demo profile (issue 30, point 1): a Save there queues like anywhere else — it pushes at
once only when the user turns "Push a record when I save it" on, and that choice is kept."""

from __future__ import annotations

from dataclasses import replace

from app.profile.demo import DEMO_PROFILE, demo_profile
from app.profile.settings import ProfileStore


def test_a_new_demo_profile_does_not_push_on_save() -> None:
    profile = demo_profile()
    assert profile.name == DEMO_PROFILE and profile.demo
    assert profile.push_on_save is False


def test_the_users_choice_to_push_on_save_in_the_demo_is_kept() -> None:
    ProfileStore().save(replace(demo_profile(), base_url="http://127.0.0.1:1", push_on_save=True))
    assert demo_profile().push_on_save is True
