"""Benchmark `aidlc mcp`'s warm `status` against `aidlc status` as a fresh process, on a big synthetic bank.

Usage::

    python benchmarks/mcp_status.py [--stories 10000] [--runs 5] [--json] [--workdir DIR]

What it does
------------
1. Generates a memory bank of ``--stories`` stories with the generator of ``benchmarks/validate.py`` (10,000
   stories: 50 intents x 10 units x 20 stories and 2,000 bolts), in a git repository.
2. Starts ``aidlc mcp`` (the installed console script) as a subprocess and talks to it over stdio through the MCP
   SDK's client, as a coding agent does. Its first ``status`` call reads the bank (``first call``).
3. Measures, over ``--runs`` runs interleaved (fresh, warm, fresh, warm, ...): ``aidlc status --format json`` as a
   fresh process (start-up, imports, reading and checking the bank); the warm server's answer to a ``status`` tool
   call (the request sent, the result received and parsed: the round trip over stdio); and the SDK client's whole
   ``call_tool``, which then also validates the result against the tool's output schema (jsonschema, in the
   client: on a 1.4 MB document, most of its time).
4. Changes one story's status, then calls ``status`` again (``after a change``): the answer must reflect it (the
   server computes the document again when a file of the records changed), and that call's time is shown.
5. Prints a table and the goal, PASS or MISS: the warm server's answer to ``status`` in under a third of the fresh
   process's time. The goal is informational: exit code 0, unless the changed file did not show or the document
   differs from the CLI's (exit 1).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import CallToolRequest, CallToolRequestParams, CallToolResult, Implementation

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import Stat, aidlc_executable, in_workdir
from validate import generate_bank


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--stories", type=int, default=10_000, help="stories in the generated bank (default 10000)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each measurement (default 5)")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON document")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="generate the bank here and keep it (default: a temporary folder, removed)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.stories < 1:
        parser.error("--runs and --stories must be at least 1")
    return args


def fresh_status(aidlc: str, repo: Path) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    done = subprocess.run([aidlc, "status", "--format", "json", str(repo)], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"benchmark: aidlc status failed: {done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout)


async def warm_status(client: Client, validated: bool = True) -> tuple[float, dict[str, Any]]:
    """A `status` call: the SDK client's `call_tool` (`validated`), or the server's answer alone (sent, received,
    parsed; the client's output-schema check left out)."""
    started = time.perf_counter()
    if validated:
        result = await client.call_tool("status", {})
    else:
        request = CallToolRequest(params=CallToolRequestParams(name="status", arguments={}))
        result = await client.session.send_request(request, CallToolResult)
    seconds = time.perf_counter() - started
    if result.is_error or result.structured_content is None:
        raise SystemExit(f"benchmark: the status tool failed: {result.content}")
    return seconds, result.structured_content


def change_a_story(repo: Path) -> Path:
    """Mark the first story (by path) in progress, or back to draft when a kept bank has it in progress already: a
    change `status` must show in its counts."""
    story = min((repo / "memory-bank" / "intents").glob("*/units/*/stories/*.md"))
    text = story.read_text(encoding="utf-8")
    for before, after in (("status: in-progress", "status: draft"), ("status: draft", "status: in-progress"),
                          ("status: ready", "status: in-progress"), ("status: complete", "status: in-progress")):
        if before in text:
            story.write_text(text.replace(before, after, 1), encoding="utf-8")
            return story
    raise SystemExit(f"benchmark: {story} has no status this benchmark changes")


def measure(repo: Path, runs: int) -> dict[str, Any]:
    aidlc = aidlc_executable()
    params = StdioServerParameters(command=aidlc, args=["mcp", "--repo", str(repo)], cwd=str(repo))

    async def main() -> dict[str, Any]:
        async with Client(params, client_info=Implementation(name="benchmark", version="1")) as client:
            first, warmed = await warm_status(client)
            fresh_runs: list[float] = []
            warm_runs: list[float] = []
            validated_runs: list[float] = []
            fresh_document: dict[str, Any] = {}
            for _ in range(runs):
                seconds, fresh_document = fresh_status(aidlc, repo)
                fresh_runs.append(seconds)
                seconds, document = await warm_status(client, validated=False)
                warm_runs.append(seconds)
                validated_seconds, validated = await warm_status(client)
                validated_runs.append(validated_seconds)
                if document != warmed or validated != warmed:
                    raise SystemExit("benchmark: the warm status changed while nothing did")
            before = warmed["stories"]
            change_a_story(repo)
            changed_seconds, changed = await warm_status(client)
            _, fresh_changed = fresh_status(aidlc, repo)
        return {"first_call": first, "fresh": Stat.of(fresh_runs).__dict__, "warm": Stat.of(warm_runs).__dict__,
                "warm_validated": Stat.of(validated_runs).__dict__,
                "same_document": {k: v for k, v in fresh_document.items() if k != "root"} ==
                {k: v for k, v in warmed.items() if k != "root"},
                "after_change": {"seconds": changed_seconds, "stories_before": before,
                                 "stories_after": changed["stories"],
                                 "reflected": changed["stories"] != before and
                                 changed["stories"] == fresh_changed["stories"]}}
    return anyio.run(main)


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    repo = workdir / f"bank-{args.stories}"
    if not (repo / "memory-bank").is_dir():
        print(f"generating a bank of {args.stories} stories in {repo} ...", file=sys.stderr, flush=True)
        generate_bank(repo, args.stories)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    found = measure(repo, args.runs)
    ratio = found["warm"]["median"] / found["fresh"]["median"]
    return {"stories": args.stories, "runs": args.runs, **found, "ratio": ratio,
            "goal": {"name": "warm status under a third of a fresh aidlc status", "passed": ratio < 1 / 3}}


def render(report: dict[str, Any]) -> str:
    fresh, warm, changed = report["fresh"], report["warm"], report["after_change"]
    lines = [f"aidlc mcp, {report['stories']} stories, {report['runs']} runs (median, fastest):",
             f"  aidlc status, fresh process   {fresh['median']:.3f} s  {fresh['min']:.3f} s",
             f"  status tool, warm server      {warm['median']:.3f} s  {warm['min']:.3f} s  "
             f"({report['ratio']:.3f}x the fresh process)",
             f"  status tool, SDK call_tool    {report['warm_validated']['median']:.3f} s  "
             f"{report['warm_validated']['min']:.3f} s  (the client also checks the output schema)",
             f"  status tool, first call       {report['first_call']:.3f} s",
             f"  status tool, after a change   {changed['seconds']:.3f} s  (reflected: {changed['reflected']})",
             f"  same document as the CLI: {report['same_document']}",
             f"goal: {report['goal']['name']}: {'PASS' if report['goal']['passed'] else 'MISS'}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = in_workdir(args.workdir, "aidlc-mcp-bench-", lambda workdir: run(args, workdir))
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0 if report["after_change"]["reflected"] and report["same_document"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
