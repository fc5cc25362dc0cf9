"""Plain-HTTP helpers for setting up and checking state without the client under test.

Each test drives one client method; the data it needs and the checks of what that method did go
through these helpers, which speak the service's REST contract directly. A failure of one client
method then never hides behind the failure of another.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import requests

T = TypeVar("T")

ALL_STATUSES = ["CURRENT", "PENDING", "ARCHIVED"]
ALL_APPROVALS = ["PENDING", "APPROVED", "REJECTED"]


class ApiError(AssertionError):
    """A setup or check request the service refused: names the call and quotes the answer."""


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def wait_until(check: Callable[[], T], timeout: float = 30.0, interval: float = 0.25, what: str = "condition") -> T:
    """Polls ``check`` until it returns something truthy; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class Api:
    """The service over plain HTTP (JSON in, JSON out), for setup and verification."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        self.session.headers["X-Test-Helper"] = "api"
        # Against a hosted server (AUTH_MODE=required) the suite's own calls carry the client's key.
        api_key = os.environ.get("REFLEXIO_API_KEY")
        if api_key:
            self.session.headers["Authorization"] = f"Bearer {api_key}"

    def call(self, method: str, path: str, body: Any = None, params: dict | None = None, timeout: float = 300) -> Any:
        response = self.session.request(method, self.base_url + path, json=body, params=params, timeout=timeout)
        if response.status_code >= 400:
            raise ApiError(f"{method} {path} -> {response.status_code}: {response.text[:2000]}")
        return response.json() if response.content else None

    def post(self, path: str, body: Any = None, **kw: Any) -> Any:
        return self.call("POST", path, body, **kw)

    def get(self, path: str, **params: Any) -> Any:
        return self.call("GET", path, params=params or None)

    def delete(self, path: str, body: Any = None) -> Any:
        return self.call("DELETE", path, body)

    # -- interactions --------------------------------------------------------

    def publish(
        self,
        user_id: str,
        turns: list[dict],
        session_id: str | None = None,
        wait: bool = False,
        **fields: Any,
    ) -> str:
        """Publishes turns; ``wait`` forces extraction and waits for the learning. Returns the request id."""
        body = {"user_id": user_id, "session_id": session_id or unique("s"), "interaction_data_list": turns, **fields}
        if wait:
            body["force_extraction"] = True
        params = {"wait_for_response": "true"} if wait else None
        return self.post("/api/publish_interaction", body, params=params)["request_id"]

    def interactions(self, user_id: str) -> list[dict]:
        return self.post("/api/get_interactions", {"user_id": user_id, "top_k": 1000})["interactions"]

    def sessions(self, user_id: str) -> list[dict]:
        return self.post("/api/get_requests", {"user_id": user_id, "top_k": 1000})["sessions"]

    # -- profiles ------------------------------------------------------------

    def add_profile(self, user_id: str, content: str, **fields: Any) -> str:
        profile_id = fields.pop("profile_id", None) or str(uuid.uuid4())
        self.post("/api/add_user_profile", {"user_profiles": [{"user_id": user_id, "content": content, "profile_id": profile_id, **fields}]})
        return profile_id

    def profiles(self, user_id: str, statuses: list[str] | None = None) -> list[dict]:
        body = {"user_id": user_id, "top_k": 1000, "status_filter": statuses or ALL_STATUSES}
        return self.post("/api/get_profiles", body)["user_profiles"]

    # -- playbooks -----------------------------------------------------------

    def add_user_playbook(self, user_id: str, content: str, **fields: Any) -> int:
        answer = self.post("/api/add_user_playbook", {"user_playbooks": [{"user_id": user_id, "content": content, **fields}]})
        return answer["user_playbook_ids"][0]

    def user_playbooks(self, **filters: Any) -> list[dict]:
        body = {"limit": 1000, "status_filter": ALL_STATUSES, **filters}
        return self.post("/api/get_user_playbooks", body)["user_playbooks"]

    def add_agent_playbook(self, agent_version: str, content: str, **fields: Any) -> int:
        entry = {"agent_version": agent_version, "content": content, **fields}
        answer = self.post("/api/add_agent_playbook", {"agent_playbooks": [entry]})
        return answer["agent_playbook_ids"][0]

    def agent_playbooks(self, **filters: Any) -> list[dict]:
        body = {"limit": 1000, "status_filter": ALL_STATUSES, "playbook_status_filter": ALL_APPROVALS, **filters}
        return self.post("/api/get_agent_playbooks", body)["agent_playbooks"]

    # -- configuration -------------------------------------------------------

    def config(self) -> dict:
        return self.get("/api/get_config")


def contents(items: list[Any]) -> list[str]:
    """The ``content`` of each item, whether the item is a dict or a parsed model."""
    return [item["content"] if isinstance(item, dict) else item.content for item in items]
