"""Fixtures for driving the published ``reflexio-ai`` client against a running service.

run.ts starts the service (embedded mode, scripted LLM) and sets REFLEXIO_TEST_URL. Every failure
report carries the HTTP exchanges of the test, so the exact request the client sent and the
answer it could not use are in the output.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import threading
from importlib.metadata import version

import aiohttp
import pytest
import requests
from reflexio.client.client import ReflexioClient

from helpers import Api, unique

BASE_URL = os.environ.get("REFLEXIO_TEST_URL", "")
CLIENT_VERSION = version("reflexio-ai")

# The client polls an operation-status route after rerun_*_generation(wait_for_response=True) for
# up to ten minutes; the suite bounds that wait so a missing route fails in half a minute.
OPERATION_POLL_BUDGET_S = 30.0


def pytest_configure(config: pytest.Config) -> None:
    if not BASE_URL:
        raise pytest.UsageError("REFLEXIO_TEST_URL is not set: run the suite with `bun test/python-client/run.ts`")
    _record_http_exchanges()


def pytest_report_header(config: pytest.Config) -> str:
    return f"reflexio-ai {CLIENT_VERSION} against {BASE_URL}"


# -- markers ------------------------------------------------------------------


def client_method(name: str) -> pytest.MarkDecorator:
    """Skips a test of a method this client version does not have."""
    return pytest.mark.skipif(not hasattr(ReflexioClient, name), reason=f"reflexio-ai {CLIENT_VERSION} has no {name}()")


def client_params(method: str, *params: str) -> pytest.MarkDecorator:
    """Skips a test that passes parameters this client version's method does not take."""
    found = getattr(ReflexioClient, method, None)
    accepted = set(inspect.signature(found).parameters) if found else set()
    missing = [p for p in params if p not in accepted]
    return pytest.mark.skipif(bool(missing), reason=f"reflexio-ai {CLIENT_VERSION}: {method}() takes no {', '.join(missing)}")


def _serialises_datetimes() -> bool:
    # 0.2.8 sends request.model_dump() (Python mode): a datetime reaches json.dumps and raises
    # TypeError inside the client before anything is sent. Newer clients dump in JSON mode.
    return 'model_dump(mode="json")' in inspect.getsource(ReflexioClient.get_interactions)


sends_datetimes = pytest.mark.skipif(
    not _serialises_datetimes(),
    reason=f"reflexio-ai {CLIENT_VERSION} cannot send datetimes: it posts model_dump() without mode='json' (client-side TypeError)",
)


def not_served(area: str) -> pytest.MarkDecorator:
    """A method whose contract endpoint the service does not serve yet."""
    return pytest.mark.xfail(strict=False, reason=f"not served yet: {area}")


# -- fixtures -----------------------------------------------------------------


class _RecordingPool:
    """Stands in for the client's shared thread pool and keeps the futures of its fire-and-forget calls."""

    def __init__(self) -> None:
        self.futures: list = []

    def submit(self, fn, *args, **kwargs):
        future = ReflexioClient._thread_pool.submit(fn, *args, **kwargs)
        self.futures.append(future)
        return future


@pytest.fixture
def client() -> ReflexioClient:
    """A fresh client (empty response cache) for the service under test, no API key (local mode)."""
    instance = ReflexioClient(url_endpoint=BASE_URL)
    instance._thread_pool = _RecordingPool()  # type: ignore[assignment]
    instance._poll_operation_status = functools.partial(  # type: ignore[method-assign]
        ReflexioClient._poll_operation_status, instance, poll_interval=1.0, max_wait=OPERATION_POLL_BUDGET_S
    )
    return instance


def finish_background(client: ReflexioClient, timeout: float = 120) -> None:
    """Waits for the client's fire-and-forget requests; re-raises what one of them raised."""
    for future in client._thread_pool.futures:  # type: ignore[attr-defined]
        future.result(timeout=timeout)


@pytest.fixture(scope="session")
def api() -> Api:
    return Api(BASE_URL)


@pytest.fixture
def user() -> str:
    return unique("user")


@pytest.fixture
def agent_version() -> str:
    return unique("agent")


# -- the HTTP exchanges of each test, shown when it fails ------------------------

_exchanges: list[str] = []
_lock = threading.Lock()


def _note(who: str, method: str, url: str, sent: object, status: int, got: str) -> None:
    sent_text = sent if isinstance(sent, str) else json.dumps(sent)
    with _lock:
        _exchanges.append(f"[{who}] {method} {url}\n    sent: {str(sent_text)[:3000]}\n    got {status}: {got[:3000]}")


def _record_http_exchanges() -> None:
    original_send = requests.Session.send

    def send(self, request, **kwargs):
        response = original_send(self, request, **kwargs)
        body = request.body.decode("utf-8", "replace") if isinstance(request.body, bytes) else (request.body or "")
        who = "helper" if request.headers.get("X-Test-Helper") else "client"
        _note(who, request.method, request.url, body, response.status_code, response.text)
        return response

    requests.Session.send = send  # type: ignore[method-assign]

    original_request = aiohttp.ClientSession._request

    async def request(self, method, url, **kwargs):
        response = await original_request(self, method, url, **kwargs)
        body = await response.read()
        _note("client, async", method, str(url), kwargs.get("json"), response.status, body.decode("utf-8", "replace"))
        return response

    aiohttp.ClientSession._request = request  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _fresh_exchange_log():
    with _lock:
        _exchanges.clear()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        with _lock:
            recent = _exchanges[-10:]
        if recent:
            report.sections.append(("HTTP exchanges of this test (oldest first)", "\n".join(recent)))
