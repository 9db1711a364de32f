// Forms for a run's signals, queries and updates, built from the schemas its catalog declares. They
// act on the run on screen, never on a newer run of its workflow id: a query goes to the pinned
// route; signals and updates have only the latest-run route, so they carry `If-Match` naming the
// run, and the API refuses (412) rather than reach another run (docs/inspector.md, "Handlers").
import { html, Component } from './html.js'
import { client } from './session.js'
import { Json, Problem } from './common.js'
import { check, pretty, sample } from './schema.js'

/** Sends a handler of `kind` to the run on screen: a query to its pinned route, a signal or an update with If-Match naming it. */
function send (kind, workflowId, runId, name, payload) {
  if (kind === 'query') return client().query(workflowId, name, payload, { runId })
  return client()[kind](workflowId, name, payload, { ifMatch: runId })
}

class HandlerForm extends Component {
  state = { text: this.props.handler.payloadSchema ? pretty(sample(this.props.handler.payloadSchema)) : '', result: undefined, error: null, busy: false }

  send = async (event) => {
    event.preventDefault()
    const { kind, handler, workflowId, runId } = this.props
    const { value, errors } = check(handler.payloadSchema, this.state.text)
    if (errors.length > 0) return
    this.setState({ busy: true, error: null, result: undefined })
    try {
      const answer = await send(kind, workflowId, runId, handler.name, value)
      this.setState({ busy: false, result: kind === 'signal' ? 'sent' : answer.result })
      this.props.onDone?.()
    } catch (error) {
      this.setState({ busy: false, error })
    }
  }

  render ({ kind, handler, disabled }, { text, result, error, busy }) {
    const checked = check(handler.payloadSchema, text)
    const id = `${kind}-${handler.name}`
    return html`<form class="handler" onSubmit=${this.send} data-handler=${id}>
      <h4><span class="kind">${kind}</span> <code>${handler.name}</code></h4>
      ${handler.description && html`<p class="muted">${handler.description}</p>`}
      ${handler.payloadSchema && html`<label for=${id}>Payload (JSON)</label>
        <textarea id=${id} rows="3" spellcheck="false" value=${text} onInput=${(e) => this.setState({ text: e.currentTarget.value })}></textarea>`}
      ${checked.errors.length > 0 && html`<ul class="invalid">${checked.errors.map((e) => html`<li><code>${e.path}</code> ${e.message}</li>`)}</ul>`}
      <button type="submit" disabled=${busy || disabled || checked.errors.length > 0}>${kind === 'query' ? 'Query' : kind === 'update' ? 'Update' : 'Signal'}</button>
      ${result !== undefined && html`<div class="handler-result"><span class="muted">Answer</span><${Json} value=${result} /></div>`}
      <${Problem} error=${error} />
    </form>`
  }
}

export function Handlers ({ workflow, workflowId, runId, running, onDone }) {
  if (!workflow) return null
  const all = [['signal', workflow.signals], ['query', workflow.queries], ['update', workflow.updates]]
  if (all.every(([, list]) => list.length === 0)) return null
  return html`<section class="handlers">
    <h3>Signals, queries and updates</h3>
    <p class="muted">Sent to this run, <code>${runId}</code>${running ? '' : ' (closed runs still answer queries)'}.</p>
    <div class="handler-grid">
      ${all.flatMap(([kind, list]) => list.map((handler) => html`<${HandlerForm} key=${`${kind}-${handler.name}`} kind=${kind} handler=${handler}
        workflowId=${workflowId} runId=${runId} disabled=${!running && kind !== 'query'} onDone=${onDone} />`))}
    </div>
  </section>`
}
