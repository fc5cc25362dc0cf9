"""Requests and sessions: get_requests, delete_request, delete_session, delete_requests_by_ids."""

from __future__ import annotations

from conftest import client_params, finish_background
from helpers import unique


def _two_sessions(api, user):
    first, second = unique("s"), unique("s")
    ids = {
        "a": api.publish(user, [{"role": "User", "content": "first request"}], session_id=first),
        "b": api.publish(user, [{"role": "User", "content": "second request"}, {"role": "Agent", "content": "noted"}], session_id=first),
        "c": api.publish(user, [{"role": "User", "content": "another session"}], session_id=second),
    }
    return first, second, ids


def test_get_requests_groups_the_users_requests_by_session(client, api, user):
    first, second, ids = _two_sessions(api, user)

    response = client.get_requests(user_id=user)

    assert response.success is True
    by_session = {session.session_id: session for session in response.sessions}
    assert set(by_session) == {first, second}
    assert {data.request.request_id for data in by_session[first].requests} == {ids["a"], ids["b"]}
    second_request = next(data for data in by_session[first].requests if data.request.request_id == ids["b"])
    assert [item.content for item in second_request.interactions] == ["second request", "noted"]
    assert {data.request.user_id for data in by_session[second].requests} == {user}


@client_params("get_requests", "session_id")
def test_get_requests_filters_by_session_id(client, api, user):
    first, _, ids = _two_sessions(api, user)

    response = client.get_requests(user_id=user, session_id=first)

    assert [session.session_id for session in response.sessions] == [first]
    assert {data.request.request_id for data in response.sessions[0].requests} == {ids["a"], ids["b"]}


def test_delete_request_removes_the_request_and_its_interactions(client, api, user):
    kept = api.publish(user, [{"role": "User", "content": "keep me"}])
    doomed = api.publish(user, [{"role": "User", "content": "delete me"}])

    response = client.delete_request(doomed, wait_for_response=True)

    assert response.success is True
    remaining = api.interactions(user)
    assert [item["content"] for item in remaining] == ["keep me"]
    assert {item["request_id"] for item in remaining} == {kept}


def test_delete_request_fire_and_forget_also_deletes(client, api, user):
    doomed = api.publish(user, [{"role": "User", "content": "delete me in the background"}])

    assert client.delete_request(doomed) is None
    finish_background(client)

    assert api.interactions(user) == []


def test_delete_session_removes_every_request_of_the_session(client, api, user):
    first, second, ids = _two_sessions(api, user)

    response = client.delete_session(first, wait_for_response=True)

    assert response.success is True
    assert response.deleted_requests_count == 2
    remaining = api.sessions(user)
    assert [session["session_id"] for session in remaining] == [second]


def test_delete_requests_by_ids_deletes_exactly_those(client, api, user):
    _, _, ids = _two_sessions(api, user)

    response = client.delete_requests_by_ids([ids["a"], ids["c"]])

    assert response.success is True
    assert response.deleted_count == 2
    remaining = {item["request_id"] for item in api.interactions(user)}
    assert remaining == {ids["b"]}
