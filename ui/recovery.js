// "Fix and retry" on a run's page: reset from a step (with what happens to the steps before it),
// run again with the same input or with an edited one, each answer linking the new run. Shown for
// a run that did not complete and for a stuck one; a key without the scope sees why it cannot.
import { html, Component } from './html.js'
import { client, lacking } from './session.js'
import { Problem, runHref } from './common.js'

/** Statuses worth a retry: the run ended without its output, or was stopped. */
const UNFINISHED = new Set(['failed', 'timed_out', 'terminated', 'canceled'])

/** Where a reset can start from, newest choices last: the failed step, each step the run called, the start. */
function resetChoices (steps, status) {
  const names = [...new Set(steps.filter((s) => s.kind === 'step').map((s) => s.name))]
  const failed = status === 'failed' || steps.some((s) => s.status === 'failed' || s.status === 'timed_out')
  return [
    ...(failed ? [{ value: 'failedStep', label: 'the step that failed' }] : []),
    ...names.map((name) => ({ value: `step:${name}`, label: `step ${name}` })),
    { value: 'start', label: 'the start' }
  ]
}

const fromOf = (value) => (value.startsWith('step:') ? { step: value.slice(5) } : value)

function consequence (value, open) {
  const after = open ? 'This run is terminated and links the new one.' : 'This run stays as it is and links the new one.'
  if (value === 'start') return `A new run with the same workflow id and input runs everything again, with the code the workers run now. ${after}`
  const step = value === 'failedStep' ? 'the step that failed' : `step ${value.slice(5)}`
  return `A new run takes over just before ${step}: the steps before it keep their results and do not run again; ${step} and everything ` +
    `after it run again, with the code the workers run now. ${after}`
}

export class Recovery extends Component {
  state = { from: null, reason: '', confirming: false, busy: false, error: null, answer: null }

  reset = async () => {
    const { workflowId, status } = this.props
    this.setState({ confirming: false, busy: true, error: null })
    try {
      const res = await client().reset(workflowId, { runId: status.runId, from: fromOf(this.chosen()), reason: this.state.reason || 'Reset from the inspector' })
      this.setState({ busy: false, answer: { what: 'Reset: the new run', workflowId: res.workflowId, runId: res.runId } })
    } catch (error) {
      this.setState({ busy: false, error })
    }
  }

  runAgain = async () => {
    const { status, input } = this.props
    this.setState({ busy: true, error: null })
    try {
      const res = await client().start(status.workflowName, input ?? null, { catalog: status.catalog })
      this.setState({ busy: false, answer: { what: 'Started again with the same input', workflowId: res.workflowId, runId: res.runId } })
    } catch (error) {
      this.setState({ busy: false, error })
    }
  }

  chosen () {
    const choices = resetChoices(this.props.steps, this.props.status.status)
    return choices.some((c) => c.value === this.state.from) ? this.state.from : choices[0].value
  }

  render ({ workflowId, status, steps, input, credential, attention }, s) {
    const open = status.closeTime == null
    if (!attention && !(UNFINISHED.has(status.status) && !open)) return null
    const choices = resetChoices(steps, status.status)
    const from = this.chosen()
    const noControl = lacking(credential, 'control')
    const noRun = lacking(credential, 'run')
    const edit = `#/catalog?catalog=${encodeURIComponent(status.catalog)}&workflow=${encodeURIComponent(status.workflowName)}` +
      `&inputFrom=${encodeURIComponent(workflowId)}&inputRun=${encodeURIComponent(status.runId)}`
    return html`<section class="recovery" aria-label="Fix and retry">
      <h3>Fix and retry</h3>
      ${attention?.remedy && html`<p class="remedy">${attention.remedy}</p>`}
      <div class="recovery-reset">
        <label>Reset from <select name="resetFrom" value=${from} disabled=${noControl || s.busy}
          onChange=${(e) => this.setState({ from: e.currentTarget.value, confirming: false })}>
          ${choices.map((c) => html`<option value=${c.value}>${c.label}</option>`)}
        </select></label>
        <label>Reason <input name="reason" value=${s.reason} maxlength="1000" disabled=${noControl || s.busy}
          onInput=${(e) => this.setState({ reason: e.currentTarget.value })} /></label>
        ${!s.confirming && html`<button class="secondary" disabled=${noControl || s.busy} onClick=${() => this.setState({ confirming: true })}>Reset…</button>`}
        ${s.confirming && html`<p class="confirm consequence">${consequence(from, open)}
          <button class="danger" onClick=${this.reset}>Yes, reset</button>
          <button class="secondary" onClick=${() => this.setState({ confirming: false })}>No</button></p>`}
        ${noControl && html`<p class="muted why-disabled">${noControl}: reset needs it.</p>`}
      </div>
      <div class="recovery-again">
        <button class="secondary" disabled=${noRun || s.busy || input === undefined} onClick=${this.runAgain}>Run again with the same input</button>
        ${noRun ? html`<span class="muted why-disabled">${noRun}: starting a run needs it.</span>` : html`<a href=${edit}>Edit the input and run again</a>`}
      </div>
      <${Problem} error=${s.error} />
      ${s.answer && html`<p class="recovery-answer" role="status">${s.answer.what}:
        <a class="new-run" href=${runHref(s.answer.workflowId, s.answer.runId)}>${s.answer.workflowId} / ${s.answer.runId}</a></p>`}
    </section>`
  }
}
