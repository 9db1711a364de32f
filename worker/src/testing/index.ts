/**
 * `@flowport/worker/testing`: workflow tests with mocked steps on a real Temporal test environment
 * (time skipping where the test server binary is given). Steps and evaluators need no helper: call
 * them as functions (`await greet({ name })`).
 */
export { createWorkflowTester, runWorkflowTest, type MockOf, type MocksOf, type MockStep, type WorkflowTester, type WorkflowTesterOptions, type WorkflowTestOptions, type WorkflowTestResult } from './workflow-tester.js'
export type { StepCall } from './step-calls.js'
export type { EnvironmentOptions } from './environment.js'
export { checkDefinitions, type DefinitionsCheckOptions, type DefinitionsSummary } from './definitions.js'
