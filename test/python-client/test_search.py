"""Unified search across profiles, user playbooks and agent playbooks: search, search_async."""

from __future__ import annotations

import asyncio

import pytest

from conftest import client_method, client_params
from helpers import contents


@pytest.fixture
def travel_memory(api, user, agent_version):
    api.add_profile(user, "Owns a golden retriever named Biscuit")
    api.add_user_playbook(user, "Suggest dog-friendly hotels", trigger="The user plans a trip with a pet", agent_version=agent_version)
    api.add_agent_playbook(agent_version, "Ask whether pets travel along", trigger="The user books travel", playbook_status="APPROVED")
    return user, agent_version


def _assert_finds_travel_memory(response):
    assert response.success is True
    assert "Owns a golden retriever named Biscuit" in contents(response.profiles)
    assert "Suggest dog-friendly hotels" in contents(response.user_playbooks)
    assert "Ask whether pets travel along" in contents(response.agent_playbooks)


def test_search_returns_profiles_user_playbooks_and_agent_playbooks(client, travel_memory):
    user, agent_version = travel_memory

    response = client.search(query="a trip with my golden retriever", user_id=user, agent_version=agent_version, top_k=5)

    _assert_finds_travel_memory(response)
    assert {profile.user_id for profile in response.profiles} == {user}


@client_params("search", "entity_types")
def test_search_limits_itself_to_the_requested_entity_types(client, travel_memory):
    user, agent_version = travel_memory

    response = client.search(query="a trip with my golden retriever", user_id=user, agent_version=agent_version, entity_types=["profiles"])

    assert "Owns a golden retriever named Biscuit" in contents(response.profiles)
    assert (response.user_playbooks, response.agent_playbooks) == ([], [])


@client_method("search_async")
def test_search_async_returns_the_same_kinds_of_results(client, travel_memory):
    user, agent_version = travel_memory

    response = asyncio.run(client.search_async(query="a trip with my golden retriever", user_id=user, agent_version=agent_version, top_k=5))

    _assert_finds_travel_memory(response)


@pytest.mark.llm
def test_search_with_reformulation_reports_the_reformulated_query(client, travel_memory):
    user, agent_version = travel_memory

    response = client.search(
        query="and with him?",
        user_id=user,
        agent_version=agent_version,
        enable_reformulation=True,
        conversation_history=[{"role": "user", "content": "I am travelling with my dog next week"}],
    )

    assert response.success is True
    assert response.reformulated_query, "the server reports the query it searched with"
    assert response.reformulated_query != "and with him?"
