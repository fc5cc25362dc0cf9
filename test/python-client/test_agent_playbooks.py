"""Agent playbooks: add, get, search, update, approval status, deletes."""

from __future__ import annotations

import json

from reflexio.models.api_schema.service_schemas import AgentPlaybook, PlaybookStatus, Status

from conftest import client_params
from helpers import contents

CURRENT = (None, Status.CURRENT)
HAS_TRIGGER = "trigger" in AgentPlaybook.model_fields


def _entry(agent_version: str, content: str, trigger: str, **fields) -> dict:
    entry = {"agent_version": agent_version, "content": content, "playbook_name": "support", **fields}
    if HAS_TRIGGER:
        entry["trigger"] = trigger
    else:
        entry["structured_data"] = {"trigger": trigger}
    return entry


def _approval(stored: dict) -> str:
    return stored["playbook_status"].upper()


def test_add_agent_playbooks_stores_them_with_status_and_metadata(client, api, agent_version):
    entry = _entry(
        agent_version,
        "Ask for the order number first",
        "The user reports a missing parcel",
        playbook_status=PlaybookStatus.APPROVED,
        playbook_metadata=json.dumps({"team": "support"}),
    )

    response = client.add_agent_playbooks([entry])

    assert response.success is True
    assert response.added_count == 1
    [stored] = api.agent_playbooks(agent_version=agent_version)
    assert (stored["content"], stored["trigger"], stored["playbook_name"]) == ("Ask for the order number first", "The user reports a missing parcel", "support")
    assert _approval(stored) == "APPROVED"
    assert json.loads(stored["playbook_metadata"]) == {"team": "support"}


def test_add_agent_playbooks_without_metadata_uses_the_clients_default(client, api, agent_version):
    response = client.add_agent_playbooks([_entry(agent_version, "Apologise once, then solve", "The user is upset")])

    assert response.success is True
    [stored] = api.agent_playbooks(agent_version=agent_version)
    assert stored["content"] == "Apologise once, then solve"
    assert _approval(stored) == "PENDING"


def test_get_agent_playbooks_returns_approved_ones_by_default(client, api, agent_version):
    approved = api.add_agent_playbook(agent_version, "Offer a callback", trigger="The user is on hold", playbook_status="APPROVED")
    api.add_agent_playbook(agent_version, "Offer a voucher", trigger="The user is on hold", playbook_status="PENDING")

    response = client.get_agent_playbooks(agent_version=agent_version, force_refresh=True)

    assert response.success is True
    [playbook] = response.agent_playbooks
    assert (playbook.agent_playbook_id, playbook.content, playbook.agent_version) == (approved, "Offer a callback", agent_version)
    assert playbook.playbook_status == PlaybookStatus.APPROVED
    assert playbook.status in CURRENT


def test_get_agent_playbooks_filters_by_approval_status(client, api, agent_version):
    api.add_agent_playbook(agent_version, "Offer a callback", trigger="The user is on hold", playbook_status="APPROVED")
    pending = api.add_agent_playbook(agent_version, "Offer a voucher", trigger="The user is on hold", playbook_status="PENDING")

    response = client.get_agent_playbooks(agent_version=agent_version, playbook_status_filter=PlaybookStatus.PENDING, force_refresh=True)

    assert [playbook.agent_playbook_id for playbook in response.agent_playbooks] == [pending]
    assert response.agent_playbooks[0].playbook_status == PlaybookStatus.PENDING


def test_search_agent_playbooks_finds_the_matching_playbook(client, api, agent_version):
    api.add_agent_playbook(agent_version, "Share the tracking link and the carrier name", trigger="The user asks where the parcel is", playbook_status="APPROVED")
    api.add_agent_playbook(agent_version, "Explain the 30-day refund window", trigger="The user asks for a refund", playbook_status="APPROVED")

    response = client.search_agent_playbooks(query="where is my parcel", agent_version=agent_version, top_k=5)

    assert response.success is True
    assert response.agent_playbooks[0].content == "Share the tracking link and the carrier name"
    assert {playbook.agent_version for playbook in response.agent_playbooks} == {agent_version}


def test_update_agent_playbook_changes_content_and_approval(client, api, agent_version):
    playbook_id = api.add_agent_playbook(agent_version, "Offer a discount", trigger="The user threatens to cancel", playbook_status="PENDING")

    response = client.update_agent_playbook(playbook_id, content="Offer a 10% discount", playbook_status=PlaybookStatus.APPROVED)

    assert response.success is True
    [stored] = api.agent_playbooks(agent_playbook_id=playbook_id)
    assert stored["content"] == "Offer a 10% discount"
    assert _approval(stored) == "APPROVED"


@client_params("update_agent_playbook", "trigger", "rationale")
def test_update_agent_playbook_changes_trigger_and_rationale(client, api, agent_version):
    playbook_id = api.add_agent_playbook(agent_version, "Offer a discount", trigger="The user threatens to cancel")

    client.update_agent_playbook(playbook_id, trigger="The user asks to close the account", rationale="Retention offers work before closure")

    [stored] = api.agent_playbooks(agent_playbook_id=playbook_id)
    assert (stored["trigger"], stored["rationale"]) == ("The user asks to close the account", "Retention offers work before closure")


def test_update_agent_playbook_status_rejects_a_playbook(client, api, agent_version):
    playbook_id = api.add_agent_playbook(agent_version, "Promise same-day delivery", trigger="The user is in a hurry", playbook_status="APPROVED")

    response = client.update_agent_playbook_status(playbook_id, playbook_status=PlaybookStatus.REJECTED)

    assert response.success is True
    [stored] = api.agent_playbooks(agent_playbook_id=playbook_id)
    assert _approval(stored) == "REJECTED"


def test_delete_agent_playbook_removes_it(client, api, agent_version):
    doomed = api.add_agent_playbook(agent_version, "Suggest the FAQ page", trigger="Any question")
    api.add_agent_playbook(agent_version, "Suggest the help centre", trigger="Any question")

    response = client.delete_agent_playbook(doomed, wait_for_response=True)

    assert response.success is True
    assert contents(api.agent_playbooks(agent_version=agent_version)) == ["Suggest the help centre"]


def test_delete_agent_playbooks_by_ids_deletes_exactly_those(client, api, agent_version):
    first = api.add_agent_playbook(agent_version, "Use a friendly tone", trigger="Always")
    second = api.add_agent_playbook(agent_version, "Sign off with the agent's name", trigger="Always")
    api.add_agent_playbook(agent_version, "Never use emojis", trigger="Always")

    response = client.delete_agent_playbooks_by_ids([first, second])

    assert response.success is True
    assert response.deleted_count == 2
    assert contents(api.agent_playbooks(agent_version=agent_version)) == ["Never use emojis"]
