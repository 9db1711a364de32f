package flowport.example;

import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;

/**
 * Prices an order (a local activity), waits for the `approve` signal while its discount can be
 * changed (an update with a validator) and read (a query), then charges the card (an activity
 * whose first attempt fails, so the run shows a retry).
 */
@WorkflowInterface
public interface OrderWorkflow {
  record Order(String item, int quantity) {}

  record Approval(String by) {}

  record State(boolean approved, int discount) {}

  record Receipt(String item, int quantity, int discount, int charged, String approvedBy) {}

  @WorkflowMethod
  Receipt order(Order order);

  @SignalMethod
  void approve(Approval approval);

  @QueryMethod
  State state();

  @UpdateMethod
  int setDiscount(int percent);

  @UpdateValidatorMethod(updateName = "setDiscount")
  void validateDiscount(int percent);

  final class Impl implements OrderWorkflow {
    private final Activities local = Workflow.newLocalActivityStub(Activities.class,
        LocalActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build());
    private final Activities activities = Workflow.newActivityStub(Activities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(10))
            .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofMillis(100)).setBackoffCoefficient(1).setMaximumAttempts(5).build())
            .build());
    private Approval approval;
    private int discount;

    @Override
    public Receipt order(Order order) {
      int unitPrice = local.lookupPrice(order.item());
      Workflow.await(() -> approval != null);
      int charged = activities.chargeCard(unitPrice * order.quantity() * (100 - discount) / 100);
      return new Receipt(order.item(), order.quantity(), discount, charged, approval.by());
    }

    @Override
    public void approve(Approval approval) {
      this.approval = approval;
    }

    @Override
    public State state() {
      return new State(approval != null, discount);
    }

    @Override
    public int setDiscount(int percent) {
      discount = percent;
      return discount;
    }

    /** Runs before the update is written to the history: a rejection leaves no trace in the run. */
    @Override
    public void validateDiscount(int percent) {
      if (percent > 50) throw new IllegalArgumentException("a discount over 50% needs a manager");
    }
  }
}
