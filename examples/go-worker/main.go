// A Temporal worker in Go, as a team already runs one: it knows nothing of Flowport. Flowport
// fronts it once its catalog is published (docs/any-worker.md):
//
//	go run . &                                  # TEMPORAL_ADDRESS, GO_WORKER_TASK_QUEUE
//	flowport catalog publish catalog.yaml
package main

import (
	"fmt"
	"log"
	"log/slog"
	"os"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

func env(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func main() {
	taskQueue := env("GO_WORKER_TASK_QUEUE", "go-orders")
	// Warnings and errors only: the SDK logs every poll start at info.
	logger := tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	c, err := client.Dial(client.Options{
		HostPort:  env("TEMPORAL_ADDRESS", "localhost:7233"),
		Namespace: env("TEMPORAL_NAMESPACE", "default"),
		Logger:    logger,
	})
	if err != nil {
		log.Fatalf("cannot reach the engine: %v", err)
	}
	defer c.Close()

	w := worker.New(c, taskQueue, worker.Options{})
	w.RegisterWorkflowWithOptions(Greet, workflow.RegisterOptions{Name: "Greet"})
	w.RegisterWorkflowWithOptions(OrderWorkflow, workflow.RegisterOptions{Name: "OrderWorkflow"})
	w.RegisterWorkflowWithOptions(RefundWorkflow, workflow.RegisterOptions{Name: "RefundWorkflow"})
	w.RegisterActivityWithOptions(ComposeGreeting, activity.RegisterOptions{Name: "ComposeGreeting"})
	w.RegisterActivityWithOptions(LookupPrice, activity.RegisterOptions{Name: "LookupPrice"})
	w.RegisterActivityWithOptions(ChargeCard, activity.RegisterOptions{Name: "ChargeCard"})
	w.RegisterActivityWithOptions(Refund, activity.RegisterOptions{Name: "Refund"})

	if err := w.Start(); err != nil {
		log.Fatalf("cannot start the worker: %v", err)
	}
	fmt.Printf("Go worker polling %s\n", taskQueue)
	<-worker.InterruptCh()
	w.Stop()
}
