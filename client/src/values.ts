/** Small conversions of request values shared by the client's methods. */

export function iso (value: string | Date | undefined): string | undefined {
  return value instanceof Date ? value.toISOString() : value
}

/** The object without its undefined properties (the API refuses unknown shapes, not absent ones). */
export function defined<T extends Record<string, unknown>> (object: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(object).filter((e) => e[1] !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> }
}
