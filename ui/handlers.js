// Forms for a run's signals, queries and updates, built from the schemas its catalog declares. They
// act on the run on screen, never on a newer run of its workflow id: a query goes to the pinned
// route; signals and updates have only the latest-run route, so they carry `If-Match` naming the
// run, and the API refuses (412) rather than reach another run (docs/inspector.md, "Handlers").
import { html, Component } from './html.js'
import { client } from './session.js'
import { Json, Problem, time } from './common.js'
import { sample } from './schema.js'
import { SchemaEditor, fits, focusFirstInvalid } from './form.js'

/** Sends a handler of `kind` to the run on screen: a query to its pinned route, a signal or an update with If-Match naming it. */
function send (kind, workflowId, runId, name, payload) {
  if (kind === 'query') return client().query(workflowId, name, payload, { runId })
  return client()[kind](workflowId, name, payload, { ifMatch: runId })
}

class HandlerForm extends Component {
  state = { value: this.props.handler.payloadSchema ? sample(this.props.handler.payloadSchema) : undefined, submitted: false, result: undefined, askedAt: null, askedAtEvents: 0, error: null, busy: false }

  send = async (event) => {
    event.preventDefault()
    const { kind, handler, workflowId, runId, events } = this.props
    const { value } = this.state
    if (handler.payloadSchema && !fits(handler.payloadSchema, value)) {
      this.setState({ submitted: true })
      focusFirstInvalid(event.currentTarget)
      return
    }
    this.setState({ busy: true, error: null, result: undefined, submitted: false })
    const asked = new Date().toISOString()
    try {
      const answer = await send(kind, workflowId, runId, handler.name, value)
      this.setState({ busy: false, result: kind === 'signal' ? 'sent' : answer.result, askedAt: asked, askedAtEvents: events })
      this.props.onDone?.({ kind, name: handler.name, time: asked, outcome: kind === 'query' ? 'answered' : kind === 'update' ? 'completed' : 'sent' })
    } catch (error) {
      this.setState({ busy: false, error })
      // A validator's refusal never reaches the run's history: the page keeps it for the timeline.
      if (kind === 'update' && error.name === 'UpdateRejectedError') this.props.onDone?.({ kind, name: handler.name, time: asked, outcome: 'rejected', error: error.message })
    }
  }

  render ({ kind, handler, disabled, events }, { value, submitted, result, askedAt, askedAtEvents, error, busy }) {
    const id = `${kind}-${handler.name}`
    // A query's answer is the run's state when asked: once the run has moved on, it may no longer be.
    const stale = kind === 'query' && askedAt && events > askedAtEvents
    return html`<form class="handler" onSubmit=${this.send} data-handler=${id} noValidate>
      <h4><span class="kind">${kind}</span> <code>${handler.name}</code></h4>
      ${handler.description && html`<p class="muted">${handler.description}</p>`}
      ${handler.payloadSchema && html`<${SchemaEditor} schema=${handler.payloadSchema} value=${value} submitted=${submitted} prefix=${`${id}-`} label="Payload"
        onChange=${(next) => this.setState({ value: next })} />`}
      <button type="submit" disabled=${busy || disabled}>${kind === 'query' ? 'Query' : kind === 'update' ? 'Update' : 'Signal'}</button>
      ${result !== undefined && html`<div class=${`handler-result${stale ? ' stale' : ''}`} data-stale=${stale ? 'true' : 'false'}>
        <span class="muted">${kind === 'query' ? `Answer as of ${time(askedAt)}` : `Answer (${time(askedAt)})`}${stale ? ' · the run has moved on since: ask again for the current state' : ''}</span>
        <${Json} value=${result} /></div>`}
      <${Problem} error=${error} />
    </form>`
  }
}

export function Handlers ({ workflow, workflowId, runId, running, events, onDone }) {
  if (!workflow) return null
  const all = [['signal', workflow.signals], ['query', workflow.queries], ['update', workflow.updates]]
  if (all.every(([, list]) => list.length === 0)) return null
  return html`<section class="handlers">
    <h3>Signals, queries and updates</h3>
    <p class="muted">Sent to this run, <code>${runId}</code>${running ? '' : ' (closed runs still answer queries)'}.</p>
    <div class="handler-grid">
      ${all.flatMap(([kind, list]) => list.map((handler) => html`<${HandlerForm} key=${`${kind}-${handler.name}`} kind=${kind} handler=${handler}
        workflowId=${workflowId} runId=${runId} disabled=${!running && kind !== 'query'} events=${events} onDone=${onDone} />`))}
    </div>
  </section>`
}
