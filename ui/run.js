// One run: status, ids and links, input, output or error, the live step list (the run's SSE
// history stream, resumed after a dropped connection), the trace's timeline, handler forms, stop /
// terminate with a reason, and fix and retry (ui/recovery.js).
import { html, Component } from './html.js'
import { client, credential, lacking } from './session.js'
import { live } from './live.js'
import { foldSteps, isTerminalStatus } from './vendor/core.mjs'
import { Timeline } from './timeline.js'
import { Handlers } from './handlers.js'
import { Recovery } from './recovery.js'
import { emptyMessages, foldMessages } from './messages.js'
import { Json, Problem, Status, Version, clock, duration, go, runHref, streamState, time } from './common.js'

/** The live step list's reading of history (core/src/steps.ts): activity and child calls, no local step markers. */
const NO_LOCAL_STEPS = { localStep: () => null }

/** `workersPolling` in words: null when the API could not tell (the engine did not answer). */
const pollingText = (polling) => (polling === true ? 'yes' : polling === false ? 'no: the run waits until a worker polls its catalog' : 'unknown')

/** What a row of the steps list says of a timer, a signal, an update or a query, in words. */
function noteText (note) {
  if (note.kind === 'timer') {
    if (note.status === 'sleeping') return note.until ? `sleeping until ${clock(note.until)}` : 'sleeping'
    return note.status === 'canceled' ? `timer canceled after ${duration(note.time, note.end)}` : `slept ${duration(note.time, note.end)}`
  }
  if (note.kind === 'signal') return `signal ${note.name} received`
  if (note.kind === 'query') return `query ${note.name} answered (asked from this page)`
  if (note.status === 'rejected') return `update ${note.name} rejected: ${note.error}`
  return `update ${note.name} ${note.status}${note.error ? `: ${note.error}` : ''}`
}

/**
 * Steps, child runs and messages in the order they happened (by time, then by event): steps and
 * children numbered as called, each with its duration and attempts.
 */
function entriesOf (steps, messages, sent) {
  const ended = (id) => (id ? messages.times.get(id) ?? null : null)
  const numbered = steps.map((step, i) => {
    // From when it was called to its end: retries and the wait for a worker included.
    const [from, to] = [step.time, ended(step.endId)]
    return { key: step.id, kind: step.kind, index: i + 1, step, time: step.time, order: Number(step.id), from, to }
  })
  const notes = [...messages.notes.values()].map((note) => ({ key: note.id, kind: note.kind, note, time: note.time, order: Number(note.id) }))
  const own = sent.filter((m) => m.kind === 'query' || m.outcome === 'rejected')
    .map((m) => ({ key: m.id, kind: m.kind, note: { ...m, status: m.outcome, end: m.time }, time: m.time, order: Infinity }))
  return [...numbered, ...notes, ...own].sort((a, b) => (Date.parse(a.time) - Date.parse(b.time)) || (a.order - b.order))
}

function Entry ({ entry }) {
  if (entry.note) {
    const { note } = entry
    return html`<li class=${`step note note-${note.kind}`} data-note=${note.kind} data-name=${note.name} data-status=${note.status}>
      <span class="kind">${note.kind}</span> ${noteText(note)} <span class="muted when">${clock(note.time)}</span>
    </li>`
  }
  const { step, index, from, to } = entry
  const attempts = step.attempt ?? (step.status === 'scheduled' ? 0 : 1)
  return html`<li class=${`step step-${step.status}`} data-step=${step.name} data-index=${index}>
    <span class="index muted">#${index}</span> <span class="kind">${step.cleanup ? 'cleanup ' : ''}${step.kind}</span> <strong>${step.name}</strong> <${Status} status=${step.status} />
    ${to ? html` <span class="took">${duration(from, to)}</span>` : ''}
    ${attempts > 0 ? html` <span class=${attempts > 1 ? 'attempts' : 'attempts muted'}>${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}</span>` : ''}
    ${step.child?.runId && html` <a href=${runHref(step.child.workflowId, step.child.runId)}>${step.child.workflowId}</a>`}
    ${step.error && html` <span class="error-text">${step.error}</span>`}
  </li>`
}

export class RunView extends Component {
  state = {
    status: null,
    input: undefined,
    result: null,
    trace: null,
    traceError: null,
    workflow: null,
    error: null,
    steps: new Map(),
    cancelRequested: false,
    messages: emptyMessages(),
    sent: [],
    events: 0,
    live: 'connecting',
    reconnects: 0,
    streamError: null,
    confirm: null,
    reason: '',
    credential: null,
    controlError: null,
    controlAnswer: null
  }

  componentDidMount () {
    this.load()
    credential().then((cred) => this.setState({ credential: cred }))
  }

  componentWillUnmount () {
    this.closed = true
    this.stream?.stop()
    clearTimeout(this.traceTimer)
  }

  async load () {
    const { workflowId } = this.props
    try {
      const status = await client().status(workflowId, { runId: this.props.runId ?? undefined })
      if (this.closed) return
      this.runId = status.runId
      this.setState({ status })
      this.followHistory()
      this.refreshTrace()
      client().input(workflowId, { runId: this.runId }).then((r) => this.setState({ input: r.input }), () => {})
      if (isTerminalStatus(status.status)) this.readResult()
      client().catalog(status.catalog).then((catalog) => {
        // A declared workflow's runs carry its Temporal type (docs/any-worker.md).
        const workflow = catalog.workflows.find((w) => w.name === status.workflowName || w.aliases.includes(status.workflowName) || w.workflowType === status.workflowName)
        this.setState({ workflow: workflow ?? null })
      }, () => {})
    } catch (error) {
      this.setState({ error })
    }
  }

  followHistory () {
    this.stream = live((options) => client().follow(this.props.workflowId, { runId: this.runId, ...options }), {
      onEvent: ({ event, data }) => {
        if (event === 'history') {
          // An updater: batches can arrive faster than renders, and this.state lags behind until the next one.
          // Local steps stay out of the live list (they show on the timeline, from the trace).
          this.setState((state) => ({ ...foldSteps(state, data, NO_LOCAL_STEPS), messages: foldMessages(state.messages, data), events: state.events + data.length }))
          this.scheduleTrace()
        } else if (event === 'done') {
          this.finished()
        }
      },
      // The error is why the stream is reconnecting (cleared once live again) or why it gave up.
      onState: ({ state, reconnects, error }) => this.setState({ live: state, reconnects, streamError: error ?? null })
    })
  }

  async finished () {
    try {
      const status = await client().status(this.props.workflowId, { runId: this.runId })
      this.setState({ status })
    } catch { /* the status shown stays */ }
    await this.readResult()
    clearTimeout(this.traceTimer)
    this.traceTimer = null
    await this.refreshTrace()
  }

  async readResult () {
    try {
      this.setState({ result: await client().result(this.props.workflowId, { runId: this.runId }) })
    } catch (error) {
      if (error.status !== 424) this.setState({ error })
    }
  }

  /** At most one trace read a second while events arrive. */
  scheduleTrace () {
    if (this.traceTimer) return
    this.traceTimer = setTimeout(() => { this.traceTimer = null; this.refreshTrace() }, 1000)
  }

  /**
   * One trace read at a time: a read asked for while one is out is made once it is back, a second
   * later (the trace of a long-retrying open run can take seconds to assemble; reads must not pile up).
   */
  async refreshTrace () {
    if (this.traceReading) {
      this.traceAgain = true
      return
    }
    this.traceReading = true
    try {
      const log = await client().trace(this.props.workflowId, { runId: this.runId })
      if (!this.closed) this.setState({ trace: log, traceError: null })
    } catch (traceError) {
      if (!this.closed) this.setState({ traceError })
    } finally {
      this.traceReading = false
    }
    if (this.traceAgain && !this.closed) {
      this.traceAgain = false
      this.scheduleTrace()
    }
  }

  /** `stop` or `terminate` this run, with the reason typed (a terminate without one says where it came from). */
  async control (kind) {
    this.setState({ confirm: null, controlError: null })
    const reason = this.state.reason || (kind === 'terminate' ? 'Terminated from the inspector' : undefined)
    try {
      this.setState({ controlAnswer: await client()[kind](this.props.workflowId, { runId: this.runId, reason }) })
    } catch (controlError) {
      this.setState({ controlError })
    }
  }

  render ({ workflowId, settings }, s) {
    if (s.error && !s.status) return html`<${Problem} error=${s.error} />`
    if (!s.status) return html`<p class="muted">Reading the run…</p>`
    const { status, result, trace } = s
    // Open, not only running: a paused run can still be stopped, terminated and signalled.
    const running = !isTerminalStatus(status.status)
    const w = trace?.trace.workflow
    const children = trace ? trace.trace.nodes.filter((n) => n.kind === 'child' && n.child) : []
    const seg = encodeURIComponent
    const temporal = settings?.temporalUiUrl
      ? `${settings.temporalUiUrl.replace(/\/$/, '')}/namespaces/${seg(settings.namespace)}/workflows/${seg(workflowId)}/${seg(status.runId)}/history`
      : null
    const steps = [...s.steps.values()]
    const entries = entriesOf(steps, s.messages, s.sent)
    const marks = entries.filter((e) => e.kind !== 'step' && e.kind !== 'child')
    // The trace-log is re-read as the run moves; it carries the status's attention as of then.
    const attention = trace ? trace.attention : status.attention
    const noControl = lacking(s.credential, 'control')
    return html`<section class="run">
      <div class="run-head">
        <h2><code>${status.workflowName}</code> <span class="run-id">${workflowId}</span> <${Status} status=${status.status} /></h2>
        <div class="controls">
          ${running && !s.confirm && html`<button class="secondary" disabled=${noControl} title=${noControl ?? 'Cancels the run; its cleanup runs'} onClick=${() => this.setState({ confirm: 'stop' })}>Stop (with cleanup)…</button>`}
          ${running && !s.confirm && html`<button class="danger" disabled=${noControl} title=${noControl ?? 'Ends the run at once, without cleanup'} onClick=${() => this.setState({ confirm: 'terminate' })}>Terminate…</button>`}
          ${running && s.confirm && html`<span class="confirm">${s.confirm === 'stop' ? 'Stop the run? Its cleanup runs.' : 'Terminate at once, without cleanup?'}
            <label>Reason <input name="controlReason" value=${s.reason} maxlength="1000" onInput=${(e) => this.setState({ reason: e.currentTarget.value })} /></label>
            <button class="danger" onClick=${() => this.control(s.confirm)}>${`Yes, ${s.confirm}`}</button>
            <button class="secondary" onClick=${() => this.setState({ confirm: null })}>No</button></span>`}
        </div>
        ${running && noControl && html`<p class="muted why-disabled">${noControl}: stopping and terminating need it.</p>`}
      </div>
      ${attention && html`<div class="attention" role="alert" data-attention=${attention.kind}>
        ${attention.kind === 'versionNotPolled'
          ? html`<strong>Stuck: no worker of its version polls</strong>: ${attention.message}.`
          : html`<strong>Stuck: its workflow task keeps failing</strong> (attempt ${attention.attempts}): ${attention.message}.
            The run does not move until its workflow code is fixed or the run is reset.`}
      </div>`}
      <${Recovery} workflowId=${workflowId} status=${status} steps=${steps} input=${s.input} credential=${s.credential} attention=${attention} />
      <${Problem} error=${s.controlError} />
      ${s.controlAnswer && html`<p class="muted control-answer">Asked: ${s.controlAnswer.outcome ?? s.controlAnswer.status}</p>`}
      <dl class="facts">
        <dt>Workflow id</dt><dd><code>${workflowId}</code></dd>
        <dt>Run id</dt><dd><code>${status.runId}</code></dd>
        <dt>Catalog</dt><dd><a href=${`#/catalog?catalog=${encodeURIComponent(status.catalog)}&workflow=${encodeURIComponent(status.workflowName)}`}>${status.catalog}</a></dd>
        <dt>Version</dt><dd class="run-version"><${Version} version=${status.version} versioning=${status.versioning} /></dd>
        <dt>Started</dt><dd>${time(status.startTime)}${status.startedBy ? ` by key ${status.startedBy}` : ''}</dd>
        <dt>Closed</dt><dd>${time(status.closeTime)}${status.closeTime ? ` (after ${duration(status.startTime, status.closeTime)})` : ''}</dd>
        ${!status.closeTime && html`<dt>Workers polling</dt><dd class="workers-polling" data-polling=${String(status.workersPolling)}>${pollingText(status.workersPolling)}</dd>`}
        ${status.resetFrom && html`<dt>Reset from</dt><dd class="reset-from"><a href=${runHref(workflowId, status.resetFrom.runId)}>run ${status.resetFrom.runId}</a> at event ${status.resetFrom.eventId}${status.resetFrom.step ? `, step ${status.resetFrom.step}` : ''}</dd>`}
        ${status.resetTo && html`<dt>Reset to</dt><dd class="reset-to"><a href=${runHref(workflowId, status.resetTo)}>run ${status.resetTo}</a></dd>`}
        ${status.parentWorkflowId && html`<dt>Parent</dt><dd><a href=${runHref(status.parentWorkflowId, w?.parent?.runId)}>${status.parentWorkflowId}</a></dd>`}
        ${w?.previousRunId && html`<dt>Continues</dt><dd><a href=${runHref(workflowId, w.previousRunId)}>previous run</a></dd>`}
        ${w?.nextRunId && html`<dt>Continued by</dt><dd><a href=${runHref(workflowId, w.nextRunId)}>next run</a></dd>`}
        ${children.length > 0 && html`<dt>Children</dt><dd>${children.map((c) => html`<a class="child" href=${runHref(c.child.workflowId, c.child.runId)}>${c.child.workflowName} ${c.child.workflowId}</a> `)}</dd>`}
        ${temporal && html`<dt>Temporal UI</dt><dd><a href=${temporal} target="_blank" rel="noopener noreferrer">open this run</a></dd>`}
      </dl>
      <div class="columns two">
        <div><h3>Input</h3><${Json} value=${s.input} label="Input" /></div>
        <div class="outcome">
          ${result?.error && status.status === 'canceled'
            ? html`<h3>Stopped</h3><p class="stopped">Stopped on request; its cleanup ran.</p>
              <details><summary>Details</summary><${Json} value=${result.errorDetails} label="Error details" /></details>`
            : result?.error
            ? html`<h3>Error</h3><p class="error-text">${result.error}</p><${Json} value=${result.errorDetails} label="Error details" />`
            : html`<h3>Output</h3>${result ? html`<${Json} value=${result.output} label="Output" />` : html`<p class="muted">${running ? 'Running…' : '—'}</p>`}`}
        </div>
      </div>
      <section class="steps">
        <h3>Steps and messages</h3>
        <p class="muted live" data-live=${s.live} data-reconnects=${s.reconnects} role="status">
          ${s.live === 'open' ? 'Following live' : s.live === 'ended' ? 'History complete' : `Stream: ${streamState(s.live, s.streamError)}`}${` · ${s.events} events`}${s.reconnects > 0 ? ` · reconnected ${s.reconnects}×, resumed where it left off` : ''}
        </p>
        <${Problem} error=${s.live === 'failed' ? s.streamError : null} />
        <ol class="step-list" aria-label="Steps and messages">
          ${entries.map((entry) => html`<${Entry} key=${entry.key} entry=${entry} />`)}
        </ol>
        ${entries.length === 0 && html`<p class="muted">No step scheduled and no message received yet.</p>`}
      </section>
      <section class="trace">
        <h3>Timeline</h3>
        ${trace?.partial && html`<p class="muted">So far: the run is open.</p>`}
        ${trace?.source === 'history' && html`<p class="muted" data-trace-source="history">Built from the run's history: its worker does not run Flowport's trace writer, so a retried step's earlier attempts show only their number and last failure.</p>`}
        ${s.traceError && html`<${Problem} error=${s.traceError} />`}
        ${trace && html`<${Timeline} trace=${trace.trace} marks=${marks} />`}
      </section>
      <${Handlers} workflow=${s.workflow} workflowId=${workflowId} runId=${status.runId} running=${running} events=${s.events}
        onDone=${(item) => { this.setState(({ sent }) => ({ sent: [...sent, { ...item, id: `sent-${sent.length}` }] })); this.scheduleTrace() }} />
      <p><a href=${`#/runs?workflowName=${encodeURIComponent(status.workflowName)}&catalog=${encodeURIComponent(status.catalog)}`}>Other runs of ${status.workflowName}</a> ·
        <button class="link" onClick=${() => go(`#/catalog?workflow=${encodeURIComponent(status.workflowName)}`)}>Start another</button></p>
    </section>`
  }
}
