"""Activities of the example workflows: the steps Flowport shows (catalog.yaml lists them)."""
from temporalio import activity
from temporalio.exceptions import ApplicationError


@activity.defn
async def compose_greeting(name: str) -> str:
    return f"Hello, {name}!"


@activity.defn
async def flaky_charge(fail_always: bool) -> int:
    """Declined on the first two attempts (retried), then charged; always declined with fail_always."""
    attempt = activity.info().attempt
    if fail_always:
        raise ApplicationError("card declined for good", type="CardDeclined", non_retryable=True)
    if attempt < 3:
        raise ApplicationError(f"card declined (attempt {attempt})", type="CardDeclined")
    return attempt


@activity.defn
async def tick(n: int) -> int:
    return n
