// The trace drawn as a timeline: one row per step, evaluator or child call, every attempt a bar on
// the run's time axis (failed attempts in their own colour, their errors written below the row),
// children expandable into their own timeline, nested. Bars are positioned through the style
// object (CSSOM), which the page's CSP allows; no style attribute is ever parsed.
import { html, Component } from './html.js'
import { client } from './session.js'
import { Problem, Status, clock, duration, runHref } from './common.js'
import { Progressive } from './progressive.js'

const ms = (iso) => (iso ? Date.parse(iso) : null)

function span (trace) {
  const start = ms(trace.workflow.startTime) ?? Date.now()
  let end = ms(trace.workflow.closeTime)
  if (end === null) {
    end = start
    for (const node of trace.nodes) {
      for (const a of node.attempts) end = Math.max(end, ms(a.endTime) ?? Date.now())
      end = Math.max(end, ms(node.endTime) ?? ms(node.startTime) ?? end)
    }
  }
  return { start, width: Math.max(1, end - start) }
}

function Bar ({ from, to, axis, status, title }) {
  const left = ((from - axis.start) / axis.width) * 100
  const width = Math.max(0.3, (((to ?? Date.now()) - from) / axis.width) * 100)
  return html`<span class=${`bar bar-${status}`} title=${title} style=${{ left: `${Math.max(0, Math.min(100, left))}%`, width: `${Math.min(100, width)}%` }}></span>`
}

class ChildTimeline extends Component {
  state = { log: null, error: null }
  async componentDidMount () {
    const { workflowId, runId } = this.props.child
    try {
      this.setState({ log: await client().trace(workflowId, { runId }) })
    } catch (error) {
      this.setState({ error })
    }
  }

  render (_props, { log, error }) {
    if (error) return html`<${Problem} error=${error} />`
    if (!log) return html`<p class="muted">Reading the child's trace…</p>`
    return html`<${Timeline} trace=${log.trace} nested=${true} />`
  }
}

function Row ({ node, axis, open, toggle }) {
  const failed = node.attempts.filter((a) => a.status === 'failed')
  const bars = node.kind === 'child' || node.attempts.length === 0
    ? (ms(node.startTime) !== null ? [{ from: ms(node.startTime), to: ms(node.endTime), status: node.status, title: `${node.name}: ${node.status}` }] : [])
    : node.attempts.map((a) => ({
      from: ms(a.startTime) ?? ms(node.scheduledTime),
      to: ms(a.endTime),
      status: a.status,
      title: `attempt ${a.attempt}: ${a.status}${a.error ? ` — ${a.error.name}: ${a.error.message}` : ''} (${duration(a.startTime, a.endTime)})`
    })).filter((b) => b.from !== null)
  return html`<li class=${`row row-${node.kind}${node.phase === 'cleanup' ? ' row-cleanup' : ''}`} data-node=${node.name}>
    <div class="row-label">
      <span class="kind">${node.phase === 'cleanup' ? 'cleanup ' : ''}${node.kind}</span>
      <strong>${node.name}</strong>
      <${Status} status=${node.status} />
      ${node.attempts.length > 1 && html`<span class="attempts">${node.attempts.length} attempts</span>`}
      ${node.evaluation && html`<span class="score">score ${node.evaluation.score}</span>`}
      ${node.child?.runId && html`<a href=${runHref(node.child.workflowId, node.child.runId)}>open</a>
        <button class="link" onClick=${() => toggle(node.id)}>${open ? 'collapse' : 'expand'}</button>`}
    </div>
    <div class="row-track">${bars.map((b) => html`<${Bar} ...${b} axis=${axis} />`)}</div>
    ${failed.length > 0 && html`<ol class="attempt-errors">
      ${node.attempts.map((a) => a.error && html`<li class="attempt-error" data-attempt=${a.attempt}>attempt ${a.attempt} ${a.status}: <code>${a.error.name}</code> ${a.error.message}</li>`)}
    </ol>`}
    ${node.kind !== 'child' && node.attempts.length > 0 && html`<ol class="attempt-list" aria-label=${`${node.name} attempts`}>
      ${node.attempts.map((a) => html`<li class=${`attempt attempt-${a.status}`} data-attempt=${a.attempt}>#${a.attempt} ${a.status} ${duration(a.startTime, a.endTime)}</li>`)}
    </ol>`}
    ${open && node.child?.runId && html`<div class="nested"><${ChildTimeline} child=${node.child} /></div>`}
  </li>`
}

const MARK_STATUS = { fired: 'completed', received: 'completed', answered: 'completed', accepted: 'running', sleeping: 'running', rejected: 'failed' }

/** A timer, signal, update or query on the run's time axis: a bar while it lasted, a tick when it was a moment. */
function MarkRow ({ mark, axis }) {
  const { note } = mark
  const from = ms(note.time)
  const status = MARK_STATUS[note.status] ?? note.status
  const label = note.kind === 'timer'
    ? (note.status === 'sleeping' ? `sleeping until ${clock(note.until)}` : `slept ${duration(note.time, note.end)}`)
    : `${note.name} ${note.status}`
  return html`<li class=${`row row-mark row-${note.kind}`} data-mark=${note.kind} data-name=${note.name} data-status=${note.status}>
    <div class="row-label"><span class="kind">${note.kind}</span> <strong>${label}</strong> <span class="muted">${clock(note.time)}</span></div>
    <div class="row-track">${from !== null && html`<${Bar} from=${from} to=${note.end ? ms(note.end) : note.status === 'sleeping' || note.status === 'accepted' ? null : from}
      axis=${axis} status=${status} title=${`${note.kind} ${note.name}: ${note.status}`} />`}</div>
  </li>`
}

export class Timeline extends Component {
  state = { open: {} }

  toggle = (id) => this.setState(({ open }) => ({ open: { ...open, [id]: !open[id] } }))

  /** One row function per trace and set of expanded rows: while it is the same, the rows already
   * shown are not rendered again (ui/progressive.js), so the run view's other updates (its status,
   * input, stream state) do not render every row of a long timeline again. */
  rows (trace, open) {
    if (this.memo?.trace !== trace || this.memo.open !== open) {
      const axis = span(trace)
      const row = (node) => html`<${Row} key=${node.id} node=${node} axis=${axis} open=${open[node.id] === true} toggle=${this.toggle} />`
      this.memo = { trace, open, axis, row }
    }
    return this.memo
  }

  render ({ trace, marks = [] }, { open }) {
    const { axis, row } = this.rows(trace, open)
    if (trace.nodes.length === 0 && marks.length === 0) return html`<p class="muted">No steps yet.</p>`
    const end = new Date(axis.start + axis.width).toISOString()
    return html`<ol class="timeline" aria-label="Timeline">
      <li class="row axis"><span class="row-label muted">${trace.nodes.length} ${trace.nodes.length === 1 ? 'call' : 'calls'}</span>
        <span class="axis-scale muted"><span>0</span><span>${duration(new Date(axis.start).toISOString(), end)}</span></span></li>
      <${Progressive} items=${trace.nodes} chunk=${50} row=${row} />
      ${marks.map((mark) => html`<${MarkRow} key=${mark.key} mark=${mark} axis=${axis} />`)}
    </ol>`
  }
}
