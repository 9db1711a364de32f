"""
Example workflows written with Temporal's Python SDK, nothing of Flowport's: catalog.yaml declares
them so that Flowport serves them (docs/any-worker.md). Each workflow type is named explicitly; the
catalog maps the names clients use to these types.
"""
import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities import compose_greeting, flaky_charge, tick

STEP_TIMEOUT = timedelta(seconds=30)


@workflow.defn(name="Greet")
class Greet:
    @workflow.run
    async def run(self, input: dict) -> dict:
        greeting = await workflow.execute_activity(compose_greeting, input["name"], start_to_close_timeout=STEP_TIMEOUT)
        return {"greeting": greeting}


@workflow.defn(name="OrderWorkflow")
class OrderWorkflow:
    """Waits for `approve`; `state` tells where it stands; `set_discount` changes the discount while it waits."""

    def __init__(self) -> None:
        self.approved_by: str | None = None
        self.discount = 0

    @workflow.run
    async def run(self, input: dict) -> dict:
        await workflow.wait_condition(lambda: self.approved_by is not None)
        return {"item": input["item"], "quantity": input["quantity"], "discount": self.discount, "approvedBy": self.approved_by}

    @workflow.signal
    def approve(self, payload: dict) -> None:
        self.approved_by = payload["by"]

    @workflow.query
    def state(self) -> dict:
        return {"approved": self.approved_by is not None, "discount": self.discount}

    @workflow.update
    def set_discount(self, percent: int) -> int:
        self.discount = percent
        return percent

    @set_discount.validator
    def validate_discount(self, percent: int) -> None:
        # The worker's own rule, beyond what the catalog's schema says: Flowport answers 422.
        if percent > 50:
            raise ValueError("a discount over 50% needs a manager")


@workflow.defn(name="FlakyWorkflow")
class FlakyWorkflow:
    @workflow.run
    async def run(self, input: dict) -> dict:
        attempts = await workflow.execute_activity(
            flaky_charge,
            bool(input.get("failAlways", False)),
            start_to_close_timeout=STEP_TIMEOUT,
            retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=100), backoff_coefficient=1.0, maximum_attempts=5),
        )
        return {"attempts": attempts}


@workflow.defn(name="TickerWorkflow")
class TickerWorkflow:
    @workflow.run
    async def run(self, input: dict) -> dict:
        interval = input.get("intervalMs", 1000) / 1000
        ticked = 0
        for n in range(input["ticks"]):
            await workflow.execute_activity(tick, n, start_to_close_timeout=STEP_TIMEOUT)
            ticked += 1
            await asyncio.sleep(interval)
        return {"ticked": ticked}
