package main

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

func ComposeGreeting(_ context.Context, name string) (string, error) {
	return fmt.Sprintf("Hello, %s!", name), nil
}

// LookupPrice runs as a local activity: the engine records only the Go SDK's LocalActivity marker.
func LookupPrice(_ context.Context, item string) (int, error) {
	return 100 * len(item), nil
}

// ChargeCard fails its first attempt with a retryable error of its own type.
func ChargeCard(ctx context.Context, amount int) (int, error) {
	if attempt := activity.GetInfo(ctx).Attempt; attempt < 2 {
		return 0, temporal.NewApplicationError(fmt.Sprintf("card network busy (attempt %d)", attempt), "CardNetworkBusy")
	}
	return amount, nil
}

func Refund(_ context.Context, orderID string) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("order %s is past its refund window", orderID), "RefundWindowClosed", nil)
}
