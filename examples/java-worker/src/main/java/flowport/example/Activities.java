package flowport.example;

import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInterface;
import io.temporal.failure.ApplicationFailure;

@ActivityInterface
public interface Activities {
  String composeGreeting(String name);

  /** Run as a local activity: the engine records only the Java SDK's LocalActivity marker. */
  int lookupPrice(String item);

  int chargeCard(int amount);

  void refund(String orderId);

  final class Impl implements Activities {
    @Override
    public String composeGreeting(String name) {
      return "Hello, " + name + "!";
    }

    @Override
    public int lookupPrice(String item) {
      return 100 * item.length();
    }

    /** Fails its first attempt with a plain Java exception: its failure type is the class name. */
    @Override
    public int chargeCard(int amount) {
      int attempt = Activity.getExecutionContext().getInfo().getAttempt();
      if (attempt < 2) throw new IllegalStateException("card network busy (attempt " + attempt + ")");
      return amount;
    }

    /** Retryable the first time, then refused for good: ApplicationFailure with a type of its own. */
    @Override
    public void refund(String orderId) {
      int attempt = Activity.getExecutionContext().getInfo().getAttempt();
      if (attempt < 2) throw ApplicationFailure.newFailure("refund service busy (attempt " + attempt + ")", "RefundServiceBusy");
      throw ApplicationFailure.newNonRetryableFailure("order " + orderId + " is past its refund window", "RefundWindowClosed");
    }
  }
}
