// A form generated from a JSON Schema (the catalog's input and payload schemas): strings, numbers,
// integers, booleans, enums, arrays, nested objects, required fields, defaults and examples, local
// `$ref`s; a part the form cannot express (a union, "any value") is edited as JSON in place. The
// JSON view of the whole value is one click away and edits the same value: each view shows what
// the other wrote. Errors are the validator's (ui/schema.js), in words, next to their field
// (aria-invalid, aria-describedby); a field shows its error once it was left or the form was sent,
// so a form never opens in error.
import { html, Component } from './html.js'
import { check, nullableBranch, pretty, resolve, sample, typeOf, validate } from './schema.js'

const idOf = (prefix, path) => `${prefix}${path.replace(/[^A-Za-z0-9_-]/g, '_')}`
const child = (path, key) => `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`
const show = (value) => (typeof value === 'string' ? value : JSON.stringify(value))

/** A value's errors grouped by the field they are about. */
function byPath (errors) {
  const map = new Map()
  for (const e of errors) map.set(e.path, [...(map.get(e.path) ?? []), e.message])
  return map
}

/** The field's label, its hint and its error, tied to the control by id. */
function Frame ({ ctx, path, label, required, hint, children, control }) {
  const id = idOf(ctx.prefix, path)
  const errors = ctx.shown(path) ? ctx.errors.get(path) : undefined
  const described = [hint && `${id}-hint`, errors && `${id}-error`].filter(Boolean).join(' ') || undefined
  return html`<div class=${`field${errors ? ' field-invalid' : ''}`} data-path=${path}>
    <label for=${id}>${label}${required ? html` <span class="required">(required)</span>` : ''}</label>
    ${control({ id, described, invalid: errors ? 'true' : undefined })}
    ${hint && html`<p class="hint" id=${`${id}-hint`}>${hint}</p>`}
    ${errors && html`<p class="field-error" id=${`${id}-error`}>${label} ${errors.join('; ')}</p>`}
    ${children}
  </div>`
}

function hintOf (schema) {
  const parts = [schema.description]
  if (schema.format) parts.push(`format: ${schema.format}`)
  return parts.filter(Boolean).join(' · ') || undefined
}

/** A part edited as JSON (what the form cannot express): its own text, parsed on every keystroke. */
class JsonField extends Component {
  state = { text: this.props.value === undefined ? '' : pretty(this.props.value), bad: null }
  componentDidUpdate (prev) {
    if (prev.value !== this.props.value && this.props.value !== this.sent) this.setState({ text: this.props.value === undefined ? '' : pretty(this.props.value), bad: null })
  }

  input = (e) => {
    const text = e.currentTarget.value
    const parsed = check(null, text)
    this.setState({ text, bad: parsed.notJson ? parsed.errors[0].message : null })
    if (!parsed.notJson) {
      this.sent = parsed.value
      this.props.onChange(parsed.value)
    }
  }

  render ({ ctx, path, label, required, schema }, { text, bad }) {
    return html`<${Frame} ctx=${ctx} path=${path} label=${label} required=${required} hint=${hintOf(schema) ?? 'any JSON value'}
      control=${({ id, described, invalid }) => html`<textarea id=${id} class="json-field" rows="3" spellcheck="false" value=${text}
        aria-invalid=${bad ? 'true' : invalid} aria-describedby=${described} aria-required=${required ? 'true' : undefined}
        onInput=${this.input} onBlur=${() => ctx.touch(path)}></textarea>`}>
      ${bad && html`<p class="field-error">${label} ${bad}</p>`}
    </${Frame}>`
  }
}

function Field ({ ctx, schema, path, label, value, onChange, required, inArray }) {
  schema = resolve(schema, ctx.root) ?? {}
  const nullable = nullableBranch(schema)
  if (nullable) schema = { ...resolve(nullable, ctx.root), description: schema.description ?? nullable.description }
  const type = typeOf(schema)
  const common = { ctx, path, label, required }
  const blur = () => ctx.touch(path)
  const choices = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : null
  if (choices) {
    const at = choices.findIndex((c) => show(c) === show(value))
    return html`<${Frame} ...${common} hint=${schema.description} control=${({ id, described, invalid }) => html`<select id=${id} aria-invalid=${invalid} aria-describedby=${described}
      aria-required=${required ? 'true' : undefined} value=${at === -1 ? '' : String(at)} onBlur=${blur}
      onChange=${(e) => { ctx.touch(path); onChange(e.currentTarget.value === '' ? undefined : choices[Number(e.currentTarget.value)]) }}>
        ${(at === -1 || !required) && html`<option value="">choose…</option>`}
        ${choices.map((c, i) => html`<option value=${String(i)}>${show(c)}</option>`)}
      </select>`} />`
  }
  if (type === 'boolean') {
    return html`<${Frame} ...${common} hint=${schema.description} control=${({ id, described, invalid }) => html`<input type="checkbox" id=${id} checked=${value === true}
      aria-invalid=${invalid} aria-describedby=${described} onChange=${(e) => { ctx.touch(path); onChange(e.currentTarget.checked) }} />`} />`
  }
  if (type === 'string' || type === 'number' || type === 'integer') {
    const numeric = type !== 'string'
    const inputType = numeric ? 'number' : schema.format === 'email' ? 'email' : schema.format === 'uri' ? 'url' : 'text'
    const placeholder = schema.format === 'date-time' ? '2026-01-31T12:00:00Z' : schema.format === 'date' ? '2026-01-31' : undefined
    const input = (e) => {
      const raw = e.currentTarget.value
      if (numeric) onChange(raw === '' ? undefined : Number(raw))
      else onChange(raw === '' && !inArray ? undefined : raw)
    }
    return html`<${Frame} ...${common} hint=${hintOf(schema)} control=${({ id, described, invalid }) => html`<input type=${inputType} id=${id}
      step=${type === 'integer' ? '1' : numeric ? 'any' : undefined} placeholder=${placeholder}
      value=${value === undefined || value === null ? '' : String(value)} aria-invalid=${invalid} aria-describedby=${described}
      aria-required=${required ? 'true' : undefined} onInput=${input} onBlur=${blur} />`} />`
  }
  if (type === 'object' && schema.properties) {
    const current = value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {}
    const need = new Set(schema.required ?? [])
    const set = (key, v) => {
      const next = { ...current }
      if (v === undefined) delete next[key]
      else next[key] = v
      onChange(next)
    }
    const errors = ctx.shown(path) ? ctx.errors.get(path) : undefined
    return html`<fieldset class="object" data-path=${path}>
      ${label && html`<legend>${label}${required ? html` <span class="required">(required)</span>` : ''}</legend>`}
      ${schema.description && path !== '' && html`<p class="hint">${schema.description}</p>`}
      ${Object.entries(schema.properties).map(([key, property]) => html`<${Field} key=${key} ctx=${ctx} schema=${property} path=${child(path, key)}
        label=${resolve(property, ctx.root)?.title ?? key} value=${current[key]} required=${need.has(key)} onChange=${(v) => set(key, v)} />`)}
      ${errors && html`<p class="field-error">${errors.join('; ')}</p>`}
    </fieldset>`
  }
  if (type === 'array' && schema.items && !Array.isArray(schema.items)) {
    const items = Array.isArray(value) ? value : []
    const itemSchema = resolve(schema.items, ctx.root)
    const fresh = () => sample(itemSchema, ctx.root) ?? (typeOf(itemSchema) === 'string' ? '' : typeOf(itemSchema) === 'boolean' ? false : undefined)
    const errors = ctx.shown(path) ? ctx.errors.get(path) : undefined
    return html`<fieldset class="array" data-path=${path}>
      <legend>${label}${required ? html` <span class="required">(required)</span>` : ''}</legend>
      ${schema.description && html`<p class="hint">${schema.description}</p>`}
      <ol class="items">${items.map((item, i) => html`<li key=${i}>
        <${Field} ctx=${ctx} schema=${itemSchema} path=${child(path, i)} label=${`${label} ${i + 1}`} value=${item} required=${true} inArray=${true}
          onChange=${(v) => onChange(items.map((x, j) => (j === i ? (v === undefined ? null : v) : x)))} />
        <button type="button" class="secondary small" onClick=${() => onChange(items.filter((_, j) => j !== i))}>Remove ${label} ${i + 1}</button>
      </li>`)}</ol>
      <button type="button" class="secondary small" onClick=${() => { ctx.touch(path); onChange([...items, fresh() ?? null]) }}>Add to ${label}</button>
      ${errors && html`<p class="field-error">${label} ${errors.join('; ')}</p>`}
    </fieldset>`
  }
  return html`<${JsonField} ...${common} schema=${schema} value=${value} onChange=${onChange} />`
}

/**
 * A value edited through a form generated from `schema`, or as JSON: one value, two views.
 * Controlled: `value` and `onChange`; `submitted` shows every error (after a send was refused).
 */
export class SchemaEditor extends Component {
  state = { mode: 'form', text: '', notJson: null, touched: new Set() }

  componentDidUpdate (prev) {
    if (prev.value !== this.props.value && this.props.value !== this.sent && this.state.mode === 'json') {
      this.setState({ text: this.props.value === undefined ? '' : pretty(this.props.value), notJson: null })
    }
  }

  change = (value) => {
    this.sent = value
    this.props.onChange(value)
  }

  touch = (path) => { if (!this.state.touched.has(path)) this.setState(({ touched }) => ({ touched: new Set([...touched, path]) })) }

  mode (mode) {
    if (mode === this.state.mode) return
    if (mode === 'json') this.setState({ mode, text: this.props.value === undefined ? '' : pretty(this.props.value), notJson: null })
    else if (!this.state.notJson) this.setState({ mode })
  }

  typed = (e) => {
    const text = e.currentTarget.value
    const parsed = check(null, text)
    this.setState({ text, notJson: parsed.notJson ? parsed.errors[0].message : null })
    if (!parsed.notJson) this.change(parsed.value)
  }

  render ({ schema, value, submitted, prefix, label }, { mode, text, notJson, touched }) {
    const errors = byPath(validate(schema, value))
    const ctx = { root: schema, prefix, errors, touch: this.touch, shown: (path) => submitted || touched.has(path) }
    const jsonId = `${prefix}json`
    const all = [...errors.entries()]
    return html`<div class="schema-editor" data-mode=${mode}>
      <div class="view-switch" role="group" aria-label=${`${label}: edit as`}>
        <button type="button" class="secondary small" aria-pressed=${mode === 'form' ? 'true' : 'false'} disabled=${notJson !== null} onClick=${() => this.mode('form')}>Form</button>
        <button type="button" class="secondary small" aria-pressed=${mode === 'json' ? 'true' : 'false'} onClick=${() => this.mode('json')}>JSON</button>
      </div>
      ${mode === 'form'
        ? html`<${Field} ctx=${ctx} schema=${schema} path="" label=${typeOf(resolve(schema, schema)) === 'object' ? '' : label} value=${value} required=${true} onChange=${this.change} />`
        : html`<label for=${jsonId}>${label} (JSON)</label>
          <textarea id=${jsonId} class="json-view" rows="8" spellcheck="false" value=${text} onInput=${this.typed}
            aria-invalid=${notJson || (submitted && all.length > 0) ? 'true' : undefined} aria-describedby=${notJson || (submitted && all.length > 0) ? `${jsonId}-error` : undefined}></textarea>
          ${(notJson || (submitted && all.length > 0)) && html`<ul class="invalid" id=${`${jsonId}-error`}>
            ${notJson ? html`<li>${notJson}</li>` : all.map(([path, messages]) => html`<li><code>${path || '/'}</code> ${messages.join('; ')}</li>`)}
          </ul>`}`}
    </div>`
  }
}

/** Whether `value` may be sent as `schema`'s; with the editor's JSON text unparsed, never. */
export const fits = (schema, value) => validate(schema, value).length === 0

/** After a refused send: the first field in error takes the focus. */
export function focusFirstInvalid (form) {
  window.requestAnimationFrame(() => form?.querySelector('[aria-invalid="true"]')?.focus())
}
