"""Learning on demand: rerun_*_generation (fire-and-forget and waiting), manual_*_generation."""

from __future__ import annotations

import pytest

from conftest import finish_background
from helpers import contents, wait_until

pytestmark = pytest.mark.llm

VEGAN = [{"role": "User", "content": "I am vegan, so no meat or dairy please."}]
LISBON = [{"role": "User", "content": "I am in Lisbon this week for a conference."}]
RECIPE = [
    {"role": "User", "content": "Any idea for dinner tonight?"},
    {"role": "Agent", "content": "How about roast chicken?", "expert_content": "How about a lentil curry? It is vegan."},
]


def _profiles_with(api, user, word, status):
    return [content for content in contents(api.profiles(user, [status])) if word in content.lower()]


def test_rerun_profile_generation_writes_pending_profiles(client, api, user):
    api.publish(user, VEGAN)

    assert client.rerun_profile_generation(user_id=user) is None
    finish_background(client)

    wait_until(lambda: _profiles_with(api, user, "vegan", "PENDING"), timeout=60, what="a PENDING profile about being vegan")


def test_rerun_profile_generation_wait_for_response_reports_what_it_generated(client, api, user):
    api.publish(user, VEGAN)

    response = client.rerun_profile_generation(user_id=user, wait_for_response=True)

    assert response.success is True, response.msg
    pending = _profiles_with(api, user, "vegan", "PENDING")
    assert pending, "the rerun wrote a PENDING profile"
    assert response.profiles_generated == len(api.profiles(user, ["PENDING"]))


def test_rerun_playbook_generation_writes_pending_user_playbooks(client, api, user, agent_version):
    api.publish(user, RECIPE, agent_version=agent_version)

    assert client.rerun_playbook_generation(agent_version=agent_version) is None
    finish_background(client)

    wait_until(lambda: api.user_playbooks(user_id=user, status_filter=["PENDING"]), timeout=60, what="a PENDING user playbook")


def test_rerun_playbook_generation_wait_for_response_reports_what_it_generated(client, api, user, agent_version):
    api.publish(user, RECIPE, agent_version=agent_version)

    response = client.rerun_playbook_generation(agent_version=agent_version, wait_for_response=True)

    assert response.success is True, response.msg
    pending = api.user_playbooks(user_id=user, status_filter=["PENDING"])
    assert pending, "the rerun wrote a PENDING user playbook"
    assert response.playbooks_generated == len(pending)


def test_manual_profile_generation_writes_current_profiles(client, api, user):
    api.publish(user, LISBON)

    assert client.manual_profile_generation(user_id=user) is None
    finish_background(client)

    wait_until(lambda: _profiles_with(api, user, "lisbon", "CURRENT"), timeout=60, what="a CURRENT profile about Lisbon")


def test_manual_playbook_generation_writes_current_user_playbooks(client, api, user, agent_version):
    api.publish(user, RECIPE, agent_version=agent_version)

    assert client.manual_playbook_generation(agent_version=agent_version) is None
    finish_background(client)

    wait_until(lambda: api.user_playbooks(user_id=user, status_filter=["CURRENT"]), timeout=60, what="a CURRENT user playbook")
