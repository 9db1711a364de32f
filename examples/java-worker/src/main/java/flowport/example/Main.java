// A Temporal worker in Java, as a team already runs one: it knows nothing of Flowport. Flowport
// fronts it once its catalog is published (docs/any-worker.md):
//
//   mvn -q package && java -jar target/java-worker.jar &    # TEMPORAL_ADDRESS, JAVA_WORKER_TASK_QUEUE
//   flowport catalog publish catalog.yaml
package flowport.example;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.util.concurrent.TimeUnit;

public final class Main {
  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? fallback : value;
  }

  public static void main(String[] args) {
    String taskQueue = env("JAVA_WORKER_TASK_QUEUE", "java-orders");
    WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(env("TEMPORAL_ADDRESS", "localhost:7233")).build());
    WorkflowClient client = WorkflowClient.newInstance(service,
        WorkflowClientOptions.newBuilder().setNamespace(env("TEMPORAL_NAMESPACE", "default")).build());
    WorkerFactory factory = WorkerFactory.newInstance(client);

    // Workflow types are the interfaces' simple names, activity types the methods' names
    // capitalized (ChargeCard): the names catalog.yaml declares.
    Worker worker = factory.newWorker(taskQueue);
    worker.registerWorkflowImplementationTypes(GreetWorkflow.Impl.class, OrderWorkflow.Impl.class, RefundWorkflow.Impl.class);
    worker.registerActivitiesImplementations(new Activities.Impl());

    // SIGTERM: finish what runs, then exit.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      factory.shutdown();
      factory.awaitTermination(10, TimeUnit.SECONDS);
      service.shutdown();
    }));
    factory.start();
    System.out.println("Java worker polling " + taskQueue);
  }
}
