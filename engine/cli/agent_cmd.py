"""CLI for the tool-calling agent: run a request, approve or deny a paused call, read the audit log.

    python -m engine agent "REQUEST" [--role viewer|analyst|admin] [--user NAME] [--provider ID]
    python -m engine agent resume RUN_ID --approve|--deny
    python -m engine audit list [--run RUN_ID] [--user NAME]

``agent`` takes the request as free words; when the first word is ``resume`` the rest is a run
id and one of --approve/--deny. A paused run is stored under the data folder, so it is resumed
by a later process.

With users or API tokens configured (WORKBENCH_USERS, WORKBENCH_API_TOKENS), ``agent`` acts as the configured
user ``--user`` (default: the login name) with that user's role and grants, under the same rules as the API
and the pages (:class:`engine.agent.access.AgentGate`): the tools read only the user's bases, and a
run is shown and decided only by someone who may read every base it read. ``audit list --user NAME`` lists
only the steps of runs that user may see; without ``--user`` it lists every step (the operator's view, as
for anyone who can open the data folder).
"""

from __future__ import annotations

import argparse
import getpass
import json
from typing import Any

from engine.agent import AgentRun, AuditLog, build_runtime
from engine.cli.common import emit, settings_from, table
from engine.config import Settings
from engine.errors import ConfigError
from engine.facade import Workbench
from engine.identity import Directory, Identity
from engine.agent.access import AgentGate, tool_context_hook
from engine.identity.roles import ROLES
from engine.llm.registry import default_provider_id, get_provider

USAGE = ("python -m engine agent REQUEST [--role ROLE] [--user NAME] [--provider ID] [--max-steps N]\n"
         "       python -m engine agent resume RUN_ID (--approve | --deny)")


def register(sub, parent: argparse.ArgumentParser) -> None:
    agent = sub.add_parser("agent", parents=[parent], usage=USAGE, help="run a request through the tool-calling agent",
                           description="Run a request through the agent, or approve/deny a paused run's pending call.")
    agent.add_argument("request", nargs="+", metavar="REQUEST", help="the request, or: resume RUN_ID")
    agent.add_argument("--role", choices=ROLES, default=None,
                       help="role the run acts with (default: analyst); with resume: the approver's role. With "
                       "users configured, the user's own role applies")
    agent.add_argument("--user", default=None, help="who is asking (default: the login name); with users "
                       "configured, a configured user, whose role and grants apply")
    agent.add_argument("--provider", default=None, help="offline, anthropic[:model] ... (default: anthropic with a "
                       "key, else offline; resume: the run's own provider)")
    agent.add_argument("--max-steps", type=int, default=8, help="model turns before the run stops (default 8)")
    decide = agent.add_mutually_exclusive_group()
    decide.add_argument("--approve", action="store_true", help="with resume: run the pending call once")
    decide.add_argument("--deny", action="store_true", help="with resume: drop the pending call")
    agent.set_defaults(handler=lambda args: cmd_agent(args, agent))

    audit = sub.add_parser("audit", help="read the agent's audit log")
    audit_sub = audit.add_subparsers(dest="audit_command", required=True, metavar="ACTION")
    p = audit_sub.add_parser("list", parents=[parent], help="recorded tool-call steps, oldest first")
    p.add_argument("--run", default=None, metavar="RUN_ID", help="only this run")
    p.add_argument("--limit", type=int, default=200, help="at most this many (latest) steps")
    p.add_argument("--user", default=None, help="only the steps of runs this configured user may see")
    p.set_defaults(handler=cmd_audit_list)


def _gate(args, settings: Settings, directory: Directory, provider_id: str) -> AgentGate:
    """The agent over the data folder, its tools limited to (and noting) the run's user's bases; the store and
    the pipeline its answers go through are the engine facade's, as in the API and the pages."""
    engine = Workbench(settings, provider_id=provider_id)
    hook = tool_context_hook(directory, lambda: engine.pipeline, provider_id)
    runtime = build_runtime(settings, get_provider(provider_id), store=engine.store, context_hook=hook,
                            max_steps=args.max_steps)
    return AgentGate(runtime, directory)


def configured_identity(directory: Directory, user: str, role: str | None) -> Identity:
    """The configured user ``user`` (role and grants from the settings); a ConfigError says what to pass."""
    identity = directory.identity_for(user)
    if identity is None:
        raise ConfigError(f"{user!r} is not a configured user (WORKBENCH_USERS or a named API token); pass --user "
                          f"with one of: {', '.join(directory.names()) or 'none'}.")
    if role is not None and role != identity.role:
        raise ConfigError(f"{user} has the {identity.role} role in the settings, and runs act with it; "
                          f"leave out --role {role}.")
    return identity


def cmd_agent(args, parser: argparse.ArgumentParser) -> int:
    settings = settings_from(args)
    words = args.request
    user = args.user or _login()
    directory = Directory.from_settings(settings)
    identity = configured_identity(directory, user, args.role) if directory.configured else None
    if words[0] == "resume":
        if len(words) != 2 or not (args.approve or args.deny):
            parser.error("resume takes one RUN_ID and --approve or --deny: agent resume RUN_ID --approve")
        stored = AuditLog(settings).load_run(words[1])
        provider_id = args.provider or (stored.provider if stored else None) or default_provider_id()
        gate = _gate(args, settings, directory, provider_id)
        if identity is not None:
            run = gate.decide(identity, words[1], approve=args.approve)
        else:
            run = gate.runtime.resume(words[1], approve=args.approve, approver=user, approver_role=args.role)
    else:
        if args.approve or args.deny:
            parser.error("--approve/--deny go with: agent resume RUN_ID --approve")
        gate = _gate(args, settings, directory, args.provider or default_provider_id())
        request = " ".join(words)
        run = gate.start(identity, request) if identity is not None else gate.runtime.start(
            request, user, args.role or "analyst")
    return _print_run(args, run)


def _print_run(args, run: AgentRun) -> int:
    done = run.status in ("completed", "paused")  # "incomplete": a requested step was not done, exit 1
    emit(args, {"ok": done, **run.to_dict()}, render_run)
    return 0 if done else 1


def render_run(payload: dict[str, Any]) -> str:
    rows = [{**s, "arguments": json.dumps(s["arguments"], ensure_ascii=False),
             "result": (s["result"] or {}).get("error") or ("ok" if s["result"] else "pending")}
            for s in payload["steps"]]
    lines = [f"run {payload['run_id']}: {payload['status']} (role {payload['role']}, provider {payload['provider']})"]
    if rows:
        columns = ["step", "tool", "decision", "result", "duration_ms", "arguments"]
        lines += ["", table(rows, columns, {"arguments": 70})]
    pending = payload.get("pending")
    if pending:
        arguments = json.dumps(pending["arguments"], ensure_ascii=False)
        lines += ["", "confirmation_required", f"  {pending['tool']} {arguments}", f"  {pending['summary']}",
                  f"approve: python -m engine agent resume {payload['run_id']} --approve",
                  f"deny:    python -m engine agent resume {payload['run_id']} --deny"]
    elif payload["final_text"]:
        lines += ["", payload["final_text"]]
    return "\n".join(lines)


def cmd_audit_list(args) -> int:
    settings = settings_from(args)
    if args.user is None:
        steps = AuditLog(settings).steps(run_id=args.run, limit=args.limit)
    else:
        directory = Directory.from_settings(settings)
        if not directory.configured:
            raise ConfigError("--user limits the list to one user's runs, but no users are configured "
                              "(WORKBENCH_USERS); leave it out to list every step.")
        identity = configured_identity(directory, args.user, None)
        gate = AgentGate(build_runtime(settings, get_provider("offline")), directory)
        steps = gate.steps(identity, run_ids=[args.run] if args.run else None, limit=args.limit)

    def render(payload: dict[str, Any]) -> str:
        if not payload["steps"]:
            return "No agent steps recorded yet. Run one with: python -m engine agent \"REQUEST\""
        rows = [{**s, "arguments": json.dumps(s["arguments"], ensure_ascii=False)} for s in payload["steps"]]
        columns = ["ts", "run_id", "step", "user", "role", "tool", "decision", "result_status", "duration_ms",
                   "arguments"]
        return table(rows, columns, {"arguments": 60, "ts": 23})

    emit(args, {"run": args.run, "steps": steps}, render)
    return 0


def _login() -> str:
    try:
        return getpass.getuser() or "cli"
    except Exception:  # no login name in some containers
        return "cli"
