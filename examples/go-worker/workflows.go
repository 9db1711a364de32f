package main

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

type GreetInput struct {
	Name string `json:"name"`
}

type Greeting struct {
	Greeting string `json:"greeting"`
}

// Greet says hello through one activity.
func Greet(ctx workflow.Context, input GreetInput) (Greeting, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var greeting string
	err := workflow.ExecuteActivity(ctx, "ComposeGreeting", input.Name).Get(ctx, &greeting)
	return Greeting{Greeting: greeting}, err
}

type Order struct {
	Item     string `json:"item"`
	Quantity int    `json:"quantity"`
}

type Approval struct {
	By string `json:"by"`
}

type Receipt struct {
	Item       string `json:"item"`
	Quantity   int    `json:"quantity"`
	Charged    int    `json:"charged"`
	ApprovedBy string `json:"approvedBy"`
}

// OrderWorkflow prices an order (a local activity), waits for the `approve` signal, then charges
// the card (an activity whose first attempt fails, so the run shows a retry).
func OrderWorkflow(ctx workflow.Context, order Order) (Receipt, error) {
	local := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var unitPrice int
	if err := workflow.ExecuteLocalActivity(local, LookupPrice, order.Item).Get(ctx, &unitPrice); err != nil {
		return Receipt{}, err
	}

	var approval Approval
	workflow.GetSignalChannel(ctx, "approve").Receive(ctx, &approval)

	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, BackoffCoefficient: 1, MaximumAttempts: 5},
	})
	var charged int
	if err := workflow.ExecuteActivity(ctx, "ChargeCard", unitPrice*order.Quantity).Get(ctx, &charged); err != nil {
		return Receipt{}, err
	}
	return Receipt{Item: order.Item, Quantity: order.Quantity, Charged: charged, ApprovedBy: approval.By}, nil
}

type RefundInput struct {
	OrderID string `json:"orderId"`
}

// RefundWorkflow fails: its activity refuses with a non-retryable application error of its own type.
func RefundWorkflow(ctx workflow.Context, input RefundInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	return workflow.ExecuteActivity(ctx, "Refund", input.OrderID).Get(ctx, nil)
}
