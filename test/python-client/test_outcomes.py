"""Session outcomes through the client: report how a session ended, once, and read it back."""

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


@client_method("mark_session_outcome")
def test_mark_session_outcome_records_the_outcome_once(client, published_session):
    occurred_at = int(time.time())
    response = client.mark_session_outcome(session_id=published_session, outcome="success", occurred_at=occurred_at, label="resolved", value=1.0)
    retry = client.mark_session_outcome(session_id=published_session, outcome="success", occurred_at=occurred_at, label="resolved", value=1.0)

    assert (response.success, response.recorded) == (True, True)
    assert response.outcome_id and response.outcome_revision == 1
    assert (retry.success, retry.recorded, retry.outcome_id) == (True, False, response.outcome_id)


@client_method("get_session_outcomes")
def test_get_session_outcomes_returns_the_recorded_outcome(client, api, user, published_session):
    api.post("/api/session_outcome", {"session_id": published_session, "outcome": "failure", "occurred_at": int(time.time()), "label": "escalated"})

    response = client.get_session_outcomes(session_ids=[published_session])

    assert response.success is True
    [record] = response.session_outcomes
    assert (record.session_id, record.user_id, record.outcome, record.label) == (published_session, user, "failure", "escalated")
