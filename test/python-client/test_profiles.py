"""Profiles: add, get, get all, search (and its deprecated alias), rerank, storage stats, deletes, change log, upgrade."""

from __future__ import annotations

import pytest
from reflexio.models.api_schema.service_schemas import Status

from conftest import client_method, client_params, finish_background
from helpers import contents, unique

CURRENT = (None, Status.CURRENT)  # how the client represents a CURRENT profile


def test_add_user_profile_stores_the_profile(client, api, user):
    response = client.add_user_profile([{"user_id": user, "content": "Prefers window seats on flights", "profile_time_to_live": "one_month"}])

    assert response.success is True
    assert response.added_count == 1
    [stored] = api.profiles(user)
    assert stored["content"] == "Prefers window seats on flights"
    assert stored["profile_time_to_live"] == "one_month"


def test_get_profiles_returns_the_users_profiles(client, api, user):
    profile_id = api.add_profile(user, "Owns a cat named Miso")
    api.add_profile(unique("other-user"), "Not this user's profile")

    response = client.get_profiles(user_id=user, force_refresh=True)

    assert response.success is True
    [profile] = response.user_profiles
    assert (profile.profile_id, profile.user_id, profile.content) == (profile_id, user, "Owns a cat named Miso")
    assert profile.status in CURRENT
    assert profile.last_modified_timestamp > 0


def test_get_profiles_status_filter_selects_current_and_pending(client, api, user):
    api.add_profile(user, "Lives in Porto")
    api.add_profile(user, "Is moving to Berlin", status="PENDING")

    both = client.get_profiles(user_id=user, status_filter=[None, "pending"], force_refresh=True)
    pending = client.get_profiles(user_id=user, status_filter=["pending"], force_refresh=True)

    assert sorted(contents(both.user_profiles)) == ["Is moving to Berlin", "Lives in Porto"]
    assert contents(pending.user_profiles) == ["Is moving to Berlin"]
    assert pending.user_profiles[0].status == Status.PENDING


def test_get_all_profiles_lists_profiles_of_every_user(client, api):
    first, second = unique("user"), unique("user")
    api.add_profile(first, f"profile of {first}")
    api.add_profile(second, f"profile of {second}")

    response = client.get_all_profiles(limit=1000)

    assert response.success is True
    assert {f"profile of {first}", f"profile of {second}"} <= set(contents(response.user_profiles))


@client_params("get_all_profiles", "user_id")
def test_get_all_profiles_filters_by_user(client, api):
    first, second = unique("user"), unique("user")
    api.add_profile(first, f"profile of {first}")
    api.add_profile(second, f"profile of {second}")

    response = client.get_all_profiles(limit=1000, user_id=first)

    assert contents(response.user_profiles) == [f"profile of {first}"]


def _pets_and_work(api, user):
    api.add_profile(user, "Owns a golden retriever named Biscuit")
    api.add_profile(user, "Works night shifts as a nurse")


@client_method("search_user_profiles")
def test_search_user_profiles_finds_the_matching_profile(client, api, user):
    _pets_and_work(api, user)

    response = client.search_user_profiles(user_id=user, query="which dog does she own", top_k=5)

    assert response.success is True
    assert response.user_profiles[0].content == "Owns a golden retriever named Biscuit"
    assert {profile.user_id for profile in response.user_profiles} == {user}


def test_search_profiles_deprecated_alias_finds_the_matching_profile(client, api, user):
    _pets_and_work(api, user)

    response = client.search_profiles(user_id=user, query="which dog does she own", top_k=5)

    assert response.success is True
    assert response.user_profiles[0].content == "Owns a golden retriever named Biscuit"


@client_method("rerank_user_profiles")
def test_rerank_user_profiles_puts_the_most_relevant_first(client, api, user):
    hiking = api.add_profile(user, "Zoe enjoys hiking on weekends")
    allergy = api.add_profile(user, "Zoe is allergic to cats")

    response = client.rerank_user_profiles(user_id=user, query="allergic to cats", profile_ids=[hiking, allergy, "no-such-profile"], top_k=5)

    assert response.success is True
    assert [profile.profile_id for profile in response.user_profiles][:1] == [allergy]
    assert {profile.profile_id for profile in response.user_profiles} <= {hiking, allergy}


@client_method("storage_stats")
def test_storage_stats_counts_the_users_profiles_and_playbooks(client, api, user):
    api.add_profile(user, "Speaks Portuguese")
    api.add_profile(user, "Drinks coffee without sugar", status="ARCHIVED")
    api.add_user_playbook(user, "Answer in Portuguese when asked in Portuguese", trigger="The user writes in Portuguese")

    response = client.storage_stats(user)

    assert response.success is True
    assert (response.profile_count, response.playbook_count) == (2, 1)
    assert response.oldest_profile_modified is not None
    assert response.newest_profile_modified >= response.oldest_profile_modified


def test_delete_profile_by_id_removes_only_that_profile(client, api, user):
    doomed = api.add_profile(user, "Has a motorbike")
    api.add_profile(user, "Has a bicycle")

    response = client.delete_profile(user_id=user, profile_id=doomed, wait_for_response=True)

    assert response.success is True
    assert contents(api.profiles(user)) == ["Has a bicycle"]


def test_delete_profile_fire_and_forget_also_deletes(client, api, user):
    doomed = api.add_profile(user, "Plays the cello")

    assert client.delete_profile(user_id=user, profile_id=doomed) is None
    finish_background(client)

    assert api.profiles(user) == []


def test_delete_profiles_by_ids_deletes_exactly_those(client, api, user):
    first = api.add_profile(user, "Likes jazz")
    second = api.add_profile(user, "Likes opera")
    api.add_profile(user, "Likes fado")

    response = client.delete_profiles_by_ids([first, second])

    assert response.success is True
    assert response.deleted_count == 2
    assert contents(api.profiles(user)) == ["Likes fado"]


@pytest.mark.llm
def test_get_profile_change_log_records_what_learning_added(client, api, user):
    request_id = api.publish(user, [{"role": "User", "content": "We adopted a golden retriever last month."}], wait=True)

    response = client.get_profile_change_log()

    assert response.success is True
    entries = [entry for entry in response.profile_change_logs if entry.user_id == user]
    assert entries, "learning from the publish is in the change log"
    assert entries[0].request_id == request_id
    assert any("golden retriever" in profile.content.lower() for profile in entries[0].added_profiles)


@client_method("upgrade_profiles")
@pytest.mark.llm
def test_upgrade_profiles_promotes_pending_profiles(client, api, user):
    api.publish(user, [{"role": "User", "content": "I am vegan, please remember that."}])
    api.post("/api/rerun_profile_generation", {"user_id": user, "wait_for_response": True})
    assert contents(api.profiles(user, ["PENDING"])), "the rerun wrote PENDING profiles"

    response = client.upgrade_profiles(user_id=user)

    assert response.success is True
    assert response.profiles_promoted == 1
    assert api.profiles(user, ["PENDING"]) == []
    assert any("vegan" in content.lower() for content in contents(api.profiles(user, ["CURRENT"])))
