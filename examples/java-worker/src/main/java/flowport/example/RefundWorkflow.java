package flowport.example;

import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;

/** Fails: its activity is busy once (retryable), then refuses for good (non-retryable). */
@WorkflowInterface
public interface RefundWorkflow {
  record Input(String orderId) {}

  @WorkflowMethod
  void refund(Input input);

  final class Impl implements RefundWorkflow {
    private final Activities activities = Workflow.newActivityStub(Activities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(10))
            .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofMillis(100)).setBackoffCoefficient(1).setMaximumAttempts(5).build())
            .build());

    @Override
    public void refund(Input input) {
      activities.refund(input.orderId());
    }
  }
}
