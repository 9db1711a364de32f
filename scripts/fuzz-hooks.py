"""
Schemathesis hooks of `npm run fuzz` (scripts/fuzz.ts), loaded through SCHEMATHESIS_HOOKS.

Two things the OpenAPI document cannot say, and nothing else:

1. Where a schema-valid request is still refused by design. Opaque cursors (`pageToken`,
   `lastEventId`, `Last-Event-ID`) have a documented alphabet but only tokens the API issued are
   valid, and `input` / `payload` are checked against the JSON Schema of the *published* catalog,
   which the document cannot know. A 400 whose every issue points at one of those is expected; a
   400 that also names anything else still fails. So is the documented refusal of `__proto__`
   keys (prototype-poisoning protection, anywhere in a body). `POST /workflow/run` answers 408
   WorkflowExecutionTimedOutError when its `timeout` (any integer ≥ 1) elapses first (DESIGN.md
   §4.6); a result of the seeded open run is 424 WorkflowNotCompletedError (the specification's
   answer while a run is running). And DESIGN.md §4.4/§4.6 answer a catalog no worker has published with 503
   CatalogNotAvailableError (Retry-After); any other 5xx still fails.

2. Which workflows and runs exist. A generated `workflowName` is never in the catalog and a
   generated id never names a run, so without help little would reach the engine. Positive cases
   only (they stay schema-valid), chosen from the generated data itself so Hypothesis can replay
   and shrink them:
   - half of the start/run cases start `hello` (it completes within milliseconds, so no run or
     stream is left waiting), with the generated name as its input;
   - about two thirds of the cases with a workflow id address one of the runs scripts/fuzz.ts
     seeded (FLOWPORT_FUZZ_RUNS: completed, failed, continued-as-new, parent of a child, and one
     left running with handlers), pinned ones with that run's id;
   - on the running one, half of the handler names become declared ones, and half of those get a
     payload of the declared shape (the rest keep the generated payload: a 400 `payload`).
   A stream ends only when its run closes, so stream operations, in every mode, never address
   the seeded open run (scripts/fuzz.ts terminates any other run left open).
"""

import atexit
import json
import os
from collections import Counter

import schemathesis
from schemathesis.core.failures import ServerError
from schemathesis.openapi.checks import RejectedPositiveData

OPAQUE_CURSORS = {("querystring", "/pageToken"), ("querystring", "/lastEventId"), ("headers", "/last-event-id")}
CHECKED_AGAINST_CATALOG = {"input", "payload"}
PROTOTYPE_KEY_REFUSED = "is refused: a __proto__ key"
START_OPERATIONS = {"/workflow/start", "/workflow/run"}
KNOWN_WORKFLOW = "hello"
SEEDED_RUNS = json.loads(os.environ.get("FLOWPORT_FUZZ_RUNS", "[]"))
# The declared handlers of the running seed (examples/src/approval) and a payload of each one's shape.
HANDLERS = {"signal": ("name", "approve", "by"), "query": ("query", "state", None), "update": ("name", "relabel", "label")}


# What was accepted as by design, printed at the end so the exceptions stay visible.
accepted = Counter()
atexit.register(lambda: accepted and print("Accepted by design (scripts/fuzz-hooks.py):\n" + "\n".join(
    f"  {count:5d}  {reason}" for reason, count in accepted.most_common())))


def _accept(reason):
    accepted[reason] += 1
    return False


def _body(response):
    try:
        return json.loads(response.content)
    except ValueError:
        return None


def _expected_refusal(issue):
    return ((issue.get("in"), issue.get("path")) in OPAQUE_CURSORS or issue.get("in") in CHECKED_AGAINST_CATALOG
            or str(issue.get("message")).startswith(PROTOTYPE_KEY_REFUSED))


def _reason(issue):
    if issue["in"] in CHECKED_AGAINST_CATALOG:
        return issue["in"]
    if str(issue.get("message")).startswith(PROTOTYPE_KEY_REFUSED):
        return "__proto__ key"
    return f"{issue['in']} {issue['path']}"


@schemathesis.hook
def filter_failure(context, failure, case, response):
    body = _body(response)
    if not isinstance(body, dict):
        return True
    label = f"{failure.code} {response.status_code} {body.get('error')}"
    if isinstance(failure, ServerError):
        if response.status_code == 503 and body.get("error") == "CatalogNotAvailableError":
            return _accept(f"{label}: catalog not published")
    elif isinstance(failure, RejectedPositiveData):
        if response.status_code == 408 and body.get("error") == "WorkflowExecutionTimedOutError":
            return _accept(f"{label}: /workflow/run timeout elapsed")
        if response.status_code == 424 and body.get("error") == "WorkflowNotCompletedError":
            return _accept(f"{label}: result of the seeded run that is still open")
        issues = body.get("issues") or []
        if response.status_code == 400 and body.get("error") == "ValidationError" and issues and all(map(_expected_refusal, issues)):
            where = sorted(set(map(_reason, issues)))
            return _accept(f"{label}: {', '.join(where)}")
    return True


def _choice(value, n):
    """A number in [0, n) derived from a generated value, so the same case maps the same way on replay."""
    return sum(map(ord, str(value))) % n


def _start_known_workflow(case):
    generated = case.body.get("workflowName") if isinstance(case.body, dict) else None
    if not isinstance(generated, str) or _choice(generated, 2):
        return
    body = {key: value for key, value in case.body.items() if key not in ("catalog", "taskQueue")}
    body["workflowName"] = KNOWN_WORKFLOW
    body["input"] = {"name": generated}
    case.body = body


def _address_seeded_run(operation, case):
    params = dict(case.path_parameters or {})
    runs = [run for run in SEEDED_RUNS if not (operation.path.endswith("/stream") and run["open"])]
    pick = _choice(params.get("id"), len(runs) * 3 // 2) if runs else len(runs)
    if pick >= len(runs):
        return
    run = runs[pick]
    params["id"] = run["workflowId"]
    if "rid" in params:
        params["rid"] = run["runId"]
    kind = operation.path.split("/")[3] if operation.path.count("/") >= 4 else None
    if run["open"] and kind in HANDLERS:
        param, name, field = HANDLERS[kind]
        if _choice(params.get(param), 2) == 0:
            params[param] = name
            if field and isinstance(case.body, dict) and _choice(case.body.get("payload"), 2) == 0:
                case.body = {"payload": {field: str(case.body.get("payload"))}}
    case.path_parameters = params


def _keep_streams_closed(case):
    params = case.path_parameters or {}
    open_ids = {run["workflowId"] for run in SEEDED_RUNS if run["open"]}
    closed = [run for run in SEEDED_RUNS if not run["open"]]
    if params.get("id") in open_ids and closed:
        case.path_parameters = {**params, "id": closed[0]["workflowId"]}
        if "rid" in params:
            case.path_parameters["rid"] = closed[0]["runId"]


@schemathesis.hook
def map_case(context, case):
    operation = context.operation
    if operation is not None and operation.path.endswith("/stream"):
        _keep_streams_closed(case)
    if operation is None or case.meta is None or not case.meta.generation.mode.is_positive:
        return case
    if operation.method.upper() == "POST" and operation.path in START_OPERATIONS:
        _start_known_workflow(case)
    elif "{id}" in operation.path:
        _address_seeded_run(operation, case)
    return case
