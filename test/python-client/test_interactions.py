"""Publishing and reading interactions: publish_interaction(_async), get/search/get_all interactions, learning status,
delete_interaction, finalize_session(_async)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import pytest

from conftest import client_method, finish_background, sends_datetimes
from helpers import contents, unique, wait_until

TURNS = [
    {"role": "User", "content": "Can you suggest a weekend hike near Porto?"},
    {"role": "Agent", "content": "The Paiva Walkways are a popular two-hour hike."},
]


def test_publish_interaction_stores_the_turns_under_the_returned_request_id(client, api, user):
    session_id = unique("s")

    response = client.publish_interaction(user_id=user, session_id=session_id, interactions=TURNS, source="pytest", agent_version="agent-v1")

    assert response.success is True
    assert response.request_id
    assert response.warnings == [], "clean turns draw no warning (the client's own fields are not unknown)"
    stored = api.interactions(user)
    assert sorted(contents(stored)) == sorted(turn["content"] for turn in TURNS)
    assert {item["request_id"] for item in stored} == {response.request_id}
    [session] = api.sessions(user)
    assert session["session_id"] == session_id
    assert session["requests"][0]["request"]["source"] == "pytest"
    assert session["requests"][0]["request"]["agent_version"] == "agent-v1"


def test_publish_interaction_keeps_tool_calls_and_roles(client, api, user):
    turns = [
        {"role": "User", "content": "What is the weather in Lisbon?"},
        {
            "role": "Agent",
            "content": "It is sunny, 24 degrees.",
            "tools_used": [{"tool_name": "weather", "tool_data": {"input": {"city": "Lisbon"}, "output": "sunny 24C"}, "status": "success"}],
        },
    ]

    client.publish_interaction(user_id=user, session_id=unique("s"), interactions=turns)

    stored = {item["role"]: item for item in api.interactions(user)}
    assert stored["Agent"]["tools_used"][0]["tool_name"] == "weather"
    assert stored["Agent"]["tools_used"][0]["tool_data"]["input"] == {"city": "Lisbon"}
    assert stored["User"]["content"] == "What is the weather in Lisbon?"


@pytest.mark.llm
def test_publish_interaction_wait_for_response_returns_the_learning_it_waited_for(client, api, user):
    turns = [{"role": "User", "content": "I have a golden retriever and need a dog-friendly hotel."}]

    response = client.publish_interaction(
        user_id=user, session_id=unique("s"), interactions=turns, wait_for_response=True, force_extraction=True
    )

    assert response.success is True
    learned = [p for p in api.profiles(user) if "golden retriever" in p["content"].lower()]
    assert learned, "the scripted model extracts a profile from 'golden retriever'"
    assert response.profiles_added == len(learned), "the client reports the profiles the wait covered as profiles_added"
    if "learning_status" in type(response).model_fields:
        assert response.learning_status == "done"


@client_method("publish_interaction_async")
def test_publish_interaction_async_stores_the_turns(client, api, user):
    response = asyncio.run(client.publish_interaction_async(user_id=user, session_id=unique("s"), interactions=TURNS))

    assert response.success is True
    assert {item["request_id"] for item in api.interactions(user)} == {response.request_id}


@client_method("get_learning_status")
@pytest.mark.llm
def test_get_learning_status_reports_done_once_the_request_was_learned(client, api, user):
    waited = api.publish(user, [{"role": "User", "content": "I am vegan, by the way."}], wait=True)
    unlearned = api.publish(user, [{"role": "User", "content": "Just saying hello."}])

    assert client.get_learning_status(waited) == "done"
    assert client.get_learning_status(unlearned) in {"pending", "processing"}


def test_get_interactions_returns_the_users_turns(client, api, user):
    request_id = api.publish(user, TURNS)
    api.publish(unique("other-user"), [{"role": "User", "content": "not this user's turn"}])

    response = client.get_interactions(user_id=user, top_k=10)

    assert response.success is True
    assert sorted(contents(response.interactions)) == sorted(turn["content"] for turn in TURNS)
    assert {item.request_id for item in response.interactions} == {request_id}
    assert {item.user_id for item in response.interactions} == {user}
    assert {item.role for item in response.interactions} == {"User", "Agent"}


@sends_datetimes
def test_get_interactions_applies_the_time_window(client, api, user):
    now = int(time.time())
    api.publish(user, [{"role": "User", "content": "an old turn", "created_at": now - 7200}])
    api.publish(user, [{"role": "User", "content": "a recent turn", "created_at": now - 60}])

    response = client.get_interactions(
        user_id=user, start_time=datetime.fromtimestamp(now - 600, UTC), end_time=datetime.fromtimestamp(now, UTC)
    )

    assert contents(response.interactions) == ["a recent turn"]


def test_get_all_interactions_includes_every_users_turns(client, api):
    first, second = unique("user"), unique("user")
    api.publish(first, [{"role": "User", "content": f"turn of {first}"}])
    api.publish(second, [{"role": "User", "content": f"turn of {second}"}])

    response = client.get_all_interactions(limit=1000)

    assert response.success is True
    found = set(contents(response.interactions))
    assert {f"turn of {first}", f"turn of {second}"} <= found


def test_search_interactions_finds_a_turn_by_its_words(client, api, user):
    api.publish(
        user,
        [
            {"role": "User", "content": "My flight to Tokyo leaves on Friday morning."},
            {"role": "User", "content": "I prefer aisle seats on long trips."},
        ],
    )

    response = client.search_interactions(user_id=user, query="flight to Tokyo", top_k=5)

    assert response.success is True
    assert response.interactions, "the turn naming the Tokyo flight is found"
    assert "Tokyo" in response.interactions[0].content
    assert {item.user_id for item in response.interactions} == {user}


def test_delete_interaction_removes_only_that_interaction(client, api, user):
    api.publish(user, TURNS)
    doomed = next(item for item in api.interactions(user) if item["role"] == "Agent")

    response = client.delete_interaction(user_id=user, interaction_id=doomed["interaction_id"], wait_for_response=True)

    assert response.success is True
    assert contents(api.interactions(user)) == [TURNS[0]["content"]]


def test_delete_interaction_fire_and_forget_also_deletes(client, api, user):
    api.publish(user, [{"role": "User", "content": "delete me in the background"}])
    [doomed] = api.interactions(user)

    assert client.delete_interaction(user_id=user, interaction_id=doomed["interaction_id"]) is None
    finish_background(client)

    assert api.interactions(user) == []


@client_method("finalize_session")
@pytest.mark.llm
def test_finalize_session_learns_the_sessions_short_window_now(client, api, user):
    session_id = unique("s")
    request_id = api.publish(user, [{"role": "User", "content": "I am vegan, by the way."}], session_id=session_id)
    assert api.get("/api/learning_status", request_id=request_id)["status"] in {"pending", "processing"}, "one turn is below the stride"

    response = client.finalize_session(user_id=user, session_id=session_id)

    assert (response.success, response.accepted) == (True, True)
    wait_until(lambda: api.get("/api/learning_status", request_id=request_id)["status"] == "done", timeout=60, what="the finished session to be learned")
    assert any("vegan" in content.lower() for content in contents(api.profiles(user)))


@client_method("finalize_session_async")
def test_finalize_session_async_accepts_nothing_for_an_unknown_session(client, user):
    response = asyncio.run(client.finalize_session_async(user_id=user, session_id=unique("no-such-session")))

    assert (response.success, response.accepted) == (True, False)
