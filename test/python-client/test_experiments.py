"""Retrieval experiments through the client: start one, read it, stop it, read its results. Each test
stops what it started, so later files publish without an active experiment."""

from __future__ import annotations

import time

from conftest import client_method
from helpers import unique


@client_method("start_retrieval_experiment")
@client_method("list_retrieval_experiments")
@client_method("stop_retrieval_experiment")
@client_method("get_retrieval_experiment_results")
def test_an_experiment_runs_stops_and_reports_its_sessions(client, api):
    experiment_id = unique("exp")
    started = client.start_retrieval_experiment(experiment_id, holdout_percentage=50)
    try:
        assert started.active_experiment.experiment_id == experiment_id
        assert started.active_experiment.holdout_percentage == 50
        assert experiment_id in [e.experiment_id for e in client.list_retrieval_experiments().experiments]

        # A search tells each user their arm; the publish carries it back, and the session's outcome counts in that arm.
        for index in range(6):
            user = unique(f"exp-user-{index}")
            arm = api.post("/api/search", {"query": "where is my order", "user_id": user})["experiment"]["arm"]
            session_id = unique("s")
            api.publish(user, [{"role": "User", "content": "Where is my order?"}], session_id=session_id,
                        retrieval_experiment_id=experiment_id, retrieval_experiment_arm=arm)
            api.post("/api/session_outcome", {"session_id": session_id, "outcome": "success", "occurred_at": int(time.time())})
    finally:
        stopped = client.stop_retrieval_experiment(experiment_id)
    assert stopped.active_experiment is None
    [record] = [e for e in stopped.experiments if e.experiment_id == experiment_id]
    assert record.ended_at is not None and record.ended_at >= record.started_at

    results = client.get_retrieval_experiment_results(experiment_id)
    assert results.experiment.experiment_id == experiment_id
    assert results.treatment.published_session_count + results.holdout.published_session_count == 6
    assert results.treatment.evaluated_session_count + results.holdout.evaluated_session_count == 6
    for arm in (results.treatment, results.holdout):
        assert arm.success_rate in (None, 1.0)
