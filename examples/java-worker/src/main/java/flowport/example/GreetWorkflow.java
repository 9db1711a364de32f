package flowport.example;

import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;

/** Says hello through one activity. */
@WorkflowInterface
public interface GreetWorkflow {
  record Input(String name) {}

  record Greeting(String greeting) {}

  @WorkflowMethod
  Greeting greet(Input input);

  final class Impl implements GreetWorkflow {
    private final Activities activities = Workflow.newActivityStub(Activities.class,
        ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build());

    @Override
    public Greeting greet(Input input) {
      return new Greeting(activities.composeGreeting(input.name()));
    }
  }
}
