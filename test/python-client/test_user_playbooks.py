"""User playbooks: add, get, search, update, deletes, upgrade, review."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from reflexio.models.api_schema.service_schemas import Status, UserPlaybook

from conftest import client_method, client_params, sends_datetimes
from helpers import contents, unique

CURRENT = (None, Status.CURRENT)
HAS_TRIGGER = "trigger" in UserPlaybook.model_fields  # newer clients; 0.2.8 nests it in structured_data


def _trigger_of(playbook) -> str | None:
    return playbook.trigger if HAS_TRIGGER else playbook.structured_data.trigger


def _seed(api, user, agent_version, *entries):
    """A published request of the user and playbooks learned from it, as (content, trigger) pairs."""
    request_id = api.publish(user, [{"role": "User", "content": "Where is my order?"}, {"role": "Agent", "content": "It ships tomorrow."}])
    ids = [
        api.add_user_playbook(user, content, trigger=trigger, agent_version=agent_version, request_id=request_id, playbook_name="orders")
        for content, trigger in entries
    ]
    return request_id, ids


def test_add_user_playbook_stores_the_playbook(client, api, user, agent_version):
    request_id = api.publish(user, [{"role": "User", "content": "Please always answer briefly."}])
    entry = {"user_id": user, "agent_version": agent_version, "request_id": request_id, "playbook_name": "style", "content": "Keep answers under three sentences"}
    if HAS_TRIGGER:
        entry["trigger"] = "The user asks any question"
    else:
        entry["structured_data"] = {"trigger": "The user asks any question"}

    response = client.add_user_playbook([entry])

    assert response.success is True
    assert response.added_count == 1
    [stored] = api.user_playbooks(user_id=user)
    assert (stored["content"], stored["trigger"], stored["playbook_name"]) == ("Keep answers under three sentences", "The user asks any question", "style")
    assert (stored["agent_version"], stored["request_id"]) == (agent_version, request_id)


def test_get_user_playbooks_returns_the_users_playbooks(client, api, user, agent_version):
    request_id, [playbook_id] = _seed(api, user, agent_version, ("Give the tracking link", "The user asks where the order is"))
    _seed(api, unique("other-user"), agent_version, ("Not this user's playbook", "Never"))

    response = client.get_user_playbooks(user_id=user)

    assert response.success is True
    [playbook] = response.user_playbooks
    assert (playbook.user_playbook_id, playbook.user_id, playbook.content) == (playbook_id, user, "Give the tracking link")
    assert (playbook.agent_version, playbook.request_id, playbook.playbook_name) == (agent_version, request_id, "orders")
    assert _trigger_of(playbook) == "The user asks where the order is"
    assert playbook.status in CURRENT


def test_get_user_playbooks_status_filter_selects_current_and_pending(client, api, user, agent_version):
    api.add_user_playbook(user, "Offer express shipping", agent_version=agent_version)
    api.add_user_playbook(user, "Offer gift wrapping", agent_version=agent_version, status="PENDING")
    api.add_user_playbook(user, "Offer a discount code", agent_version=agent_version, status="ARCHIVED")

    response = client.get_user_playbooks(user_id=user, status_filter=[Status.CURRENT, Status.PENDING])

    assert sorted(contents(response.user_playbooks)) == ["Offer express shipping", "Offer gift wrapping"]


@sends_datetimes
@client_params("get_user_playbooks", "start_time", "end_time")
def test_get_user_playbooks_applies_the_creation_time_window(client, api, user, agent_version):
    api.add_user_playbook(user, "Mention the loyalty programme", agent_version=agent_version)
    now = time.time()

    earlier = client.get_user_playbooks(user_id=user, start_time=datetime.fromtimestamp(now - 7200, UTC), end_time=datetime.fromtimestamp(now - 3600, UTC))
    around_now = client.get_user_playbooks(user_id=user, start_time=datetime.fromtimestamp(now - 600, UTC), end_time=datetime.fromtimestamp(now + 600, UTC))

    assert contents(earlier.user_playbooks) == []
    assert contents(around_now.user_playbooks) == ["Mention the loyalty programme"]


def test_search_user_playbooks_finds_the_matching_playbook(client, api, user, agent_version):
    api.add_user_playbook(user, "Suggest only vegetarian recipes", trigger="The user asks for a dinner recipe", agent_version=agent_version)
    api.add_user_playbook(user, "Quote prices in euros", trigger="The user asks how much something costs", agent_version=agent_version)

    response = client.search_user_playbooks(query="what recipe should I cook for dinner", user_id=user, top_k=5)

    assert response.success is True
    assert response.user_playbooks[0].content == "Suggest only vegetarian recipes"
    assert {playbook.user_id for playbook in response.user_playbooks} == {user}


def test_update_user_playbook_changes_content_and_name(client, api, user, agent_version):
    playbook_id = api.add_user_playbook(user, "Reply in English", agent_version=agent_version, playbook_name="language")

    response = client.update_user_playbook(playbook_id, content="Reply in the user's language", playbook_name="languages")

    assert response.success is True
    [stored] = api.user_playbooks(user_playbook_id=playbook_id)
    assert (stored["content"], stored["playbook_name"]) == ("Reply in the user's language", "languages")


@client_params("update_user_playbook", "trigger", "rationale")
def test_update_user_playbook_changes_trigger_and_rationale(client, api, user, agent_version):
    playbook_id = api.add_user_playbook(user, "Offer a refund", trigger="The user complains", agent_version=agent_version)

    client.update_user_playbook(playbook_id, trigger="The parcel arrived damaged", rationale="Refunds settle damage claims fastest")

    [stored] = api.user_playbooks(user_playbook_id=playbook_id)
    assert (stored["trigger"], stored["rationale"], stored["content"]) == ("The parcel arrived damaged", "Refunds settle damage claims fastest", "Offer a refund")


@client_params("update_user_playbook", "structured_data")
def test_update_user_playbook_changes_the_structured_trigger(client, api, user, agent_version):
    playbook_id = api.add_user_playbook(user, "Offer a refund", trigger="The user complains", agent_version=agent_version)

    client.update_user_playbook(playbook_id, structured_data={"trigger": "The parcel arrived damaged", "rationale": "Refunds settle damage claims fastest"})

    [stored] = api.user_playbooks(user_playbook_id=playbook_id)
    assert (stored["trigger"], stored["rationale"]) == ("The parcel arrived damaged", "Refunds settle damage claims fastest")


def test_delete_user_playbook_removes_it(client, api, user, agent_version):
    doomed = api.add_user_playbook(user, "Recommend the premium plan", agent_version=agent_version)
    api.add_user_playbook(user, "Recommend the basic plan", agent_version=agent_version)

    response = client.delete_user_playbook(doomed, wait_for_response=True)

    assert response.success is True
    assert contents(api.user_playbooks(user_id=user)) == ["Recommend the basic plan"]


def test_delete_user_playbooks_by_ids_deletes_exactly_those(client, api, user, agent_version):
    first = api.add_user_playbook(user, "Use metric units", agent_version=agent_version)
    second = api.add_user_playbook(user, "Use 24-hour time", agent_version=agent_version)
    api.add_user_playbook(user, "Use ISO dates", agent_version=agent_version)

    response = client.delete_user_playbooks_by_ids([first, second])

    assert response.success is True
    assert response.deleted_count == 2
    assert contents(api.user_playbooks(user_id=user)) == ["Use ISO dates"]


@client_method("upgrade_user_playbooks")
@pytest.mark.llm
def test_upgrade_user_playbooks_promotes_pending_playbooks(client, api, user, agent_version):
    api.publish(
        user,
        [
            {"role": "User", "content": "Any idea for dinner tonight?"},
            {"role": "Agent", "content": "How about roast chicken?", "expert_content": "How about a lentil curry? It is vegan."},
        ],
        agent_version=agent_version,
    )
    api.post("/api/rerun_playbook_generation", {"agent_version": agent_version, "wait_for_response": True})
    assert api.user_playbooks(user_id=user, status_filter=["PENDING"]), "the rerun wrote a PENDING user playbook"

    response = client.upgrade_user_playbooks(agent_version=agent_version)

    assert response.success is True
    assert response.user_playbooks_promoted == 1
    assert api.user_playbooks(user_id=user, status_filter=["PENDING"]) == []
    assert len(api.user_playbooks(user_id=user, status_filter=["CURRENT"])) == 1


@client_method("review_user_playbooks")
@pytest.mark.llm
def test_review_user_playbooks_reports_a_decision_per_playbook(client, api, user, agent_version):
    # The scripted reviewer accepts content with KEEP, rejects DROP, and edits anything else.
    start = time.time() - 1
    _, (keep, drop, edit) = _seed(
        api,
        user,
        agent_version,
        ("KEEP give the tracking link", "The user asks where the order is"),
        ("DROP promise next-day delivery", "The user asks where the order is"),
        ("Say when it ships", "The user asks where the order is"),
    )
    end = time.time() + 1

    response = client.review_user_playbooks(start_time=datetime.fromtimestamp(start, UTC), end_time=datetime.fromtimestamp(end, UTC), top_k=100)

    assert response.success is True
    # The review covers the whole project's window; this test's playbooks are the newest in it.
    decisions = {result.user_playbook_id: result.decision for result in response.results if result.user_playbook_id in {keep, drop, edit}}
    assert decisions == {keep: "accept", drop: "reject", edit: "edit"}
    proposal = next(result for result in response.results if result.user_playbook_id == edit)
    assert proposal.edit is not None and proposal.edit.content, "an edit decision carries the proposed playbook"
    assert len(api.user_playbooks(user_id=user, status_filter=["CURRENT"])) == 3, "report mode writes nothing"
