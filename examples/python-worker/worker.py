"""
A Temporal worker in Python, as a team already runs one: it knows nothing of Flowport. Flowport
fronts it once its catalog is published (docs/any-worker.md):

    python worker.py &                                   # TEMPORAL_ADDRESS, PYTHON_WORKER_TASK_QUEUE
    flowport catalog publish catalog.yaml
"""
import asyncio
import os

from temporalio.client import Client
from temporalio.worker import Worker

from activities import compose_greeting, flaky_charge, tick
from workflows import FlakyWorkflow, Greet, OrderWorkflow, TickerWorkflow


async def main() -> None:
    client = await Client.connect(os.environ.get("TEMPORAL_ADDRESS", "localhost:7233"), namespace=os.environ.get("TEMPORAL_NAMESPACE", "default"))
    task_queue = os.environ.get("PYTHON_WORKER_TASK_QUEUE", "python-orders")
    worker = Worker(
        client,
        task_queue=task_queue,
        workflows=[Greet, OrderWorkflow, FlakyWorkflow, TickerWorkflow],
        activities=[compose_greeting, flaky_charge, tick],
    )
    async with worker:
        print(f"Python worker polling {task_queue}", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
