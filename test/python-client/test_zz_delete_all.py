"""Project-wide deletes (run last: they empty the project): delete_all_* ."""

from __future__ import annotations

from helpers import unique


def test_delete_all_interactions_empties_every_users_interactions(client, api, user):
    api.publish(user, [{"role": "User", "content": "to be wiped"}])
    api.publish(unique("user"), [{"role": "User", "content": "also wiped"}])

    response = client.delete_all_interactions()

    assert response.success is True
    assert response.deleted_count >= 2
    assert api.get("/api/get_all_interactions", limit=1000)["interactions"] == []


def test_delete_all_profiles_empties_every_users_profiles(client, api, user):
    api.add_profile(user, "to be wiped")
    other = unique("user")
    api.add_profile(other, "also wiped")

    response = client.delete_all_profiles()

    assert response.success is True
    assert response.deleted_count >= 2
    assert (api.profiles(user), api.profiles(other)) == ([], [])


def _one_of_each(api, user, agent_version):
    api.add_user_playbook(user, "a user playbook", agent_version=agent_version)
    api.add_agent_playbook(agent_version, "an agent playbook", trigger="always")


def test_delete_all_user_playbooks_keeps_agent_playbooks(client, api, user, agent_version):
    _one_of_each(api, user, agent_version)

    response = client.delete_all_user_playbooks()

    assert response.success is True
    assert response.deleted_count >= 1
    assert api.user_playbooks() == []
    assert len(api.agent_playbooks(agent_version=agent_version)) == 1


def test_delete_all_agent_playbooks_keeps_user_playbooks(client, api, user, agent_version):
    _one_of_each(api, user, agent_version)

    response = client.delete_all_agent_playbooks()

    assert response.success is True
    assert response.deleted_count >= 1
    assert api.agent_playbooks() == []
    assert len(api.user_playbooks(user_id=user)) == 1


def test_delete_all_playbooks_removes_both_kinds(client, api, user, agent_version):
    _one_of_each(api, user, agent_version)

    response = client.delete_all_playbooks()

    assert response.success is True
    assert response.deleted_count >= 2
    assert (api.user_playbooks(), api.agent_playbooks()) == ([], [])
