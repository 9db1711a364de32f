/**
 * String formats for TypeBox's `Value.Check`. TypeBox knows no format by itself and rejects every
 * value of a schema with an unknown `format`, so the usual JSON Schema formats are registered once.
 * Regular expressions only: this module also runs inside the workflow sandbox.
 */
import { FormatRegistry } from '@sinclair/typebox'

const formats: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  time: /^\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?$/,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  ipv4: /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/
}

for (const [name, pattern] of Object.entries(formats)) {
  // A format the host application registered first is kept: it knows its own needs better.
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, (value) => pattern.test(value))
}
