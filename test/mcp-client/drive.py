"""Drives the service's MCP server with the Python MCP SDK's client (PyPI `mcp`), over one transport.

    python drive.py http URL KEY_A KEY_B
    python drive.py stdio URL KEY_A KEY_B     (starts scripts/mcp twice, once per key)

Prints one JSON object: what each step answered (tools listed, a search, a publish, an outcome,
bad input, the other organisation's view, an unknown key), for apps/server/test/mcp-python-client.test.ts
to check. The script judges nothing itself."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

ROOT = Path(__file__).resolve().parents[2]
A_USER = "alice"


#: The HTTP statuses the service answered, in order: the SDK reports a refusal without its status.
statuses: list[int] = []


async def record_status(response) -> None:
    statuses.append(response.status_code)


@asynccontextmanager
async def session(transport: str, url: str, key: str):
    if transport == "http":
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http:
            http.event_hooks["response"] = [record_status]
            async with streamable_http_client(f"{url}/mcp", http_client=http) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    yield client
    else:
        env = {"SERVICE_URL": url, "SERVICE_API_KEY": key, "PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root")}
        params = StdioServerParameters(command="bash", args=[str(ROOT / "scripts" / "mcp")], env=env)
        async with stdio_client(params, errlog=sys.stderr) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                yield client


def result_of(answer) -> dict:
    return {"is_error": bool(answer.is_error), "text": answer.content[0].text if answer.content else ""}


async def drive(transport: str, url: str, key_a: str, key_b: str) -> dict:
    report: dict = {}
    session_id = f"py-{transport}-{uuid.uuid4()}"
    async with session(transport, url, key_a) as alpha:
        report["tools"] = sorted(tool.name for tool in (await alpha.list_tools()).tools)
        report["search"] = result_of(await alpha.call_tool("search_learnings", {"query": "hiking in the mountains", "user_id": A_USER}))
        report["publish"] = result_of(
            await alpha.call_tool(
                "publish_interactions",
                {"user_id": A_USER, "session_id": session_id, "interaction_data_list": [{"role": "User", "content": "Book the usual mountain hut"}]},
            )
        )
        report["outcome"] = result_of(
            await alpha.call_tool("report_session_outcome", {"session_id": session_id, "outcome": "success", "occurred_at": int(os.environ["OCCURRED_AT"])})
        )
        report["questions"] = result_of(await alpha.call_tool("list_pending_questions", {"status": "pending"}))
        report["bad_input"] = result_of(await alpha.call_tool("get_user_profiles", {"user_id": 42}))
        report["unknown_question"] = result_of(await alpha.call_tool("answer_pending_question", {"pending_tool_call_id": "no-such-question", "answer": "yes"}))
        resource = await alpha.read_resource(f"profile://{A_USER}")
        report["resource"] = resource.contents[0].text
        report["after_errors"] = result_of(await alpha.call_tool("get_user_profiles", {"user_id": A_USER}))
    async with session(transport, url, key_b) as beta:
        report["other_search"] = result_of(await beta.call_tool("search_learnings", {"query": "hiking in the mountains", "user_id": A_USER}))
        report["other_profiles"] = result_of(await beta.call_tool("get_user_profiles", {"user_id": A_USER}))
        report["other_resource"] = (await beta.read_resource(f"profile://{A_USER}")).contents[0].text
    statuses.clear()
    try:
        async with session(transport, url, "als_unknown_key") as stranger:
            report["unknown_key"] = result_of(await stranger.call_tool("get_user_profiles", {"user_id": A_USER}))
    except BaseException as error:  # the HTTP door refuses before any exchange; anyio wraps it in a group
        report["unknown_key"] = {"refused": f"{type(error).__name__}: {error!r}", "statuses": statuses}
    return report


if __name__ == "__main__":
    transport, url, key_a, key_b = sys.argv[1:5]
    print(json.dumps(asyncio.run(drive(transport, url, key_a, key_b))))
