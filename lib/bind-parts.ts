/**
 * A concept's service made of its parts: plain functions whose first argument is what the service
 * was built from (plugins/README.md). Each part comes back with that argument given, typed as it
 * is declared, so the service has no second list of signatures to keep in step.
 */
type Part<D> = (deps: D, ...args: any[]) => unknown
type Bound<D, P> = { [K in keyof P]: P[K] extends (deps: D, ...args: infer A) => infer R ? (...args: A) => R : never }

export function bindParts<D, P extends Record<string, Part<D>>> (deps: D, parts: P): Bound<D, P> {
  return Object.fromEntries(Object.entries(parts).map(([name, part]) => [name, part.bind(undefined, deps)])) as Bound<D, P>
}
