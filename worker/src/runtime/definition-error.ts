/** A problem in the workflows, steps or packages the worker loads; it stops the worker at start. */
export class DefinitionError extends Error {
  override name = 'DefinitionError'
}
