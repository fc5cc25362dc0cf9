"""Per-user erasure: clear_user_data."""

from __future__ import annotations

from conftest import client_method
from helpers import contents, unique


@client_method("clear_user_data")
def test_clear_user_data_removes_only_that_users_data(client, api, user, agent_version):
    other = unique("user")
    for who in (user, other):
        api.publish(who, [{"role": "User", "content": f"hello from {who}"}, {"role": "Agent", "content": "hi"}])
        api.add_profile(who, f"profile of {who}")
        api.add_user_playbook(who, f"playbook of {who}", agent_version=agent_version)
    agent_playbook = api.add_agent_playbook(agent_version, "Greet warmly", trigger="The user greets")

    response = client.clear_user_data(user)

    assert response.success is True
    assert response.deleted_counts and all(count >= 1 for count in response.deleted_counts.values())
    assert (api.interactions(user), api.profiles(user), api.user_playbooks(user_id=user)) == ([], [], [])
    assert contents(api.profiles(other)) == [f"profile of {other}"]
    assert [p["agent_playbook_id"] for p in api.agent_playbooks(agent_version=agent_version)] == [agent_playbook]
