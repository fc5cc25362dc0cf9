"""Aggregation of user playbooks into agent playbooks: run_playbook_aggregation, submit/get aggregation operations."""

from __future__ import annotations

import pytest

from conftest import client_method
from helpers import unique, wait_until

SHIPPING = [
    ("Give the shipping tracking link and the carrier name", "The user asks where the parcel is"),
    ("Share the shipping tracking link and name the carrier", "The user asks about the parcel's whereabouts"),
    ("Send the shipping tracking link with the carrier", "The user wants to know where the parcel is"),
]


@pytest.fixture
def similar_user_playbooks(api, agent_version):
    """Three users learned the same guidance: one cluster for the aggregator."""
    for content, trigger in SHIPPING:
        api.add_user_playbook(unique("user"), content, trigger=trigger, agent_version=agent_version)
    return agent_version


@pytest.mark.llm
def test_run_playbook_aggregation_creates_a_pending_agent_playbook(client, api, similar_user_playbooks):
    agent_version = similar_user_playbooks

    response = client.run_playbook_aggregation(agent_version=agent_version, playbook_name="shipping", wait_for_response=True)

    assert response.success is True
    [created] = api.agent_playbooks(agent_version=agent_version)
    assert created["playbook_status"].upper() == "PENDING"
    assert created["content"] in [content for content, _ in SHIPPING], "the scripted aggregator restates a member"


@client_method("submit_playbook_aggregation")
@pytest.mark.llm
def test_submit_playbook_aggregation_returns_a_receipt_that_reaches_succeeded(client, api, similar_user_playbooks):
    agent_version = similar_user_playbooks
    request_id = unique("aggregation")

    receipt = client.submit_playbook_aggregation(request_id=request_id, agent_version=agent_version)

    assert (receipt.request_id, receipt.agent_version) == (request_id, agent_version)
    assert receipt.status in {"queued", "running", "retrying", "succeeded"}
    done = wait_until(
        lambda: (op := client.get_playbook_aggregation_operation(receipt.operation_id)).status in {"succeeded", "failed"} and op,
        timeout=60,
        what="the aggregation operation to finish",
    )
    assert done.status == "succeeded"
    assert done.operation_id == receipt.operation_id
    assert done.completed_at is not None
    created = api.agent_playbooks(agent_version=agent_version)
    assert done.result is not None
    assert (done.result.user_playbooks_processed, done.result.clusters_found, done.result.playbooks_generated) == (3, 1, len(created))
    assert len(created) == 1


@client_method("submit_playbook_aggregation")
def test_submit_playbook_aggregation_is_idempotent_per_request_id(client, api, agent_version):
    api.add_user_playbook(unique("user"), "Offer the size guide", trigger="The user asks about sizes", agent_version=agent_version)
    request_id = unique("aggregation")

    first = client.submit_playbook_aggregation(request_id=request_id, agent_version=agent_version)
    again = client.submit_playbook_aggregation(request_id=request_id, agent_version=agent_version)

    assert again.operation_id == first.operation_id
