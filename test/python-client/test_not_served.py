"""Methods of areas served after this file was first written: evaluation (the scripted model judges
sessions, see scriptedJudgement in test/support/scripted-llm.ts) and the human questions (pending
tool calls): a window that mentions the staging account makes the scripted model ask a person."""

from __future__ import annotations

import time

import pytest

from conftest import client_method
from helpers import unique


@pytest.fixture
def published_session(api, user, agent_version):
    session_id = unique("s")
    api.publish(user, [{"role": "User", "content": "Can I change my delivery address?"}, {"role": "Agent", "content": "Yes, in Settings."}], session_id=session_id, agent_version=agent_version)
    return session_id


# -- evaluation ----------------------------------------------------------------


@client_method("get_agent_success_evaluation_results")
def test_get_agent_success_evaluation_results_answers_with_a_list(client, agent_version):
    response = client.get_agent_success_evaluation_results(limit=10, agent_version=agent_version)

    assert response.success is True
    assert response.agent_success_evaluation_results == []


@client_method("get_retrieved_learning_evaluation_results")
def test_get_retrieved_learning_evaluation_results_answers_with_a_list(client, user, published_session):
    response = client.get_retrieved_learning_evaluation_results(user_id=user, session_id=published_session, limit=10)

    assert response.success is True
    assert isinstance(response.results, list)


@client_method("regenerate_evaluations")
@client_method("get_evaluation_regeneration_status")
def test_regenerate_evaluations_starts_a_job_whose_status_can_be_read(client, published_session):
    now = int(time.time())

    started = client.regenerate_evaluations(from_ts=now - 3600, to_ts=now)
    status = client.get_evaluation_regeneration_status(started.job_id)

    assert started.job_id and started.total >= 0
    assert status.job_id == started.job_id
    assert status.status in {"running", "completed", "cancelled", "error"}


@client_method("cancel_evaluation_regeneration")
def test_cancel_evaluation_regeneration_ends_the_job_where_it_stands(client, published_session):
    now = int(time.time())
    started = client.regenerate_evaluations(from_ts=now - 3600, to_ts=now)

    answer = client.cancel_evaluation_regeneration(started.job_id)
    status = client.get_evaluation_regeneration_status(started.job_id)

    # The scripted judge may finish the job before the cancel arrives: then it is left as it ended.
    assert answer["job_id"] == started.job_id
    assert answer["status"] in {"cancelled", "completed", "error"}
    assert status.status == answer["status"]


@client_method("grade_on_demand")
def test_grade_on_demand_grades_a_published_session(client, agent_version, published_session):
    first = client.grade_on_demand(session_id=published_session, agent_version=agent_version)
    again = client.grade_on_demand(session_id=published_session, agent_version=agent_version)

    assert first.session_id == published_session
    assert first.result_id is not None or first.skipped_reason
    if first.result_id is not None:
        assert (again.cached, again.result_id) == (True, first.result_id)


# -- human questions (pending tool calls) -----------------------------------------


@pytest.fixture
def asked(api, user):
    """A pending question raised by a window of this user (pending_tool_call_config on for the test only)."""
    api.post("/api/update_config", {"pending_tool_call_config": {"enabled": True}})
    try:
        api.publish(user, [{"role": "User", "content": "Always use the staging account when you deploy."}], force_extraction=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            calls = [c for c in api.get("/api/pending_tool_calls", status="pending")["pending_tool_calls"] if c["user_id"] == user]
            if calls:
                return calls[0]["id"]
            time.sleep(0.1)
        raise AssertionError(f"no question was raised for {user}")
    finally:
        api.post("/api/update_config", {"pending_tool_call_config": {"enabled": False}})


@client_method("list_pending_tool_calls")
def test_list_pending_tool_calls_answers_with_a_list(client):
    response = client.list_pending_tool_calls(limit=10)

    assert isinstance(response.pending_tool_calls, list)
    assert all(call.status in {"pending", "resolved", "expired", "superseded", "cancelled"} for call in response.pending_tool_calls)


@client_method("get_pending_tool_call")
def test_get_pending_tool_call_returns_the_listed_call(client, asked):
    call = client.get_pending_tool_call(asked)

    assert (call.id, call.status, call.tool_name) == (asked, "pending", "ask_human")


@client_method("resolve_pending_tool_call")
def test_resolve_pending_tool_call_resolves_it_with_the_answer(client, asked):
    resolved = client.resolve_pending_tool_call(asked, answer="Yes, ship to the office")

    assert resolved.status == "resolved"
    assert resolved.result == {"answer": "Yes, ship to the office"}


@client_method("update_pending_tool_call_answer")
def test_update_pending_tool_call_answer_replaces_the_answer(client, asked):
    client.resolve_pending_tool_call(asked, answer="first answer")

    updated = client.update_pending_tool_call_answer(asked, "second answer")

    assert updated.result == {"answer": "second answer"}


@client_method("mark_pending_tool_call_not_applicable")
def test_mark_pending_tool_call_not_applicable_resolves_it(client, asked):
    resolved = client.mark_pending_tool_call_not_applicable(asked)

    assert resolved.status == "resolved"
    assert resolved.result and resolved.result.get("not_applicable") is True


@client_method("cancel_pending_tool_call")
def test_cancel_pending_tool_call_cancels_it(client, asked):
    assert client.cancel_pending_tool_call(asked).status == "cancelled"
