// Evals (README "Testing and evals"): a workflow's eval runs (#/evals/{workflowName}, GET /evals)
// with a button that starts one (POST /evals), and one eval run's report (#/eval/{evalId},
// GET /evals/{evalId}) as a table of cases and evaluators, each case linked to its run.
import { html, Component } from './html.js'
import { client } from './session.js'
import { Problem, Status, go, runHref, time } from './common.js'

/** How often an eval run that is still going is read again. */
const POLL_MS = 1000

export const evalsHref = (workflowName) => `#/evals/${encodeURIComponent(workflowName)}`
export const evalHref = (evalId) => `#/eval/${encodeURIComponent(evalId)}`

const Verdict = ({ verdict }) => verdict === null
  ? html`<span class="muted">—</span>`
  : html`<span class=${`verdict verdict-${verdict}`} data-verdict=${verdict}>${verdict}</span>`

/** Numbers to three decimals (the report keeps them whole). */
const valueText = (value) => value === null ? '—' : typeof value === 'number' ? String(Number(value.toFixed(3))) : String(value)

const totalsText = (totals) => totals === null ? '' : `${totals.pass} pass, ${totals.partial} partial, ${totals.fail} fail of ${totals.cases}`

export class EvalsView extends Component {
  state = { evals: [], error: null, loading: true, cached: false, starting: false, startError: null }

  componentDidMount () { this.load() }

  async load () {
    try {
      const { evals } = await client().evals(this.props.workflowName, { pageSize: 50 })
      this.setState({ evals, loading: false, error: null })
    } catch (error) {
      this.setState({ error, loading: false })
    }
  }

  start = async () => {
    this.setState({ starting: true, startError: null })
    try {
      const { evalId } = await client().startEval({ workflowName: this.props.workflowName, cached: this.state.cached })
      go(evalHref(evalId))
    } catch (startError) {
      this.setState({ starting: false, startError })
    }
  }

  render ({ workflowName }, { evals, error, loading, cached, starting, startError }) {
    return html`<section>
      <h2>Eval runs of ${workflowName}</h2>
      <form class="inline" onSubmit=${(e) => { e.preventDefault(); this.start() }}>
        <label><input type="checkbox" checked=${cached} onChange=${(e) => this.setState({ cached: e.currentTarget.checked })} /> cached outputs</label>
        <button type="submit" disabled=${starting}>Run eval</button>
      </form>
      <${Problem} error=${startError} />
      <${Problem} error=${error} />
      ${loading
        ? html`<p class="muted">Loading…</p>`
        : evals.length === 0
          ? html`<p class="muted">No eval runs yet.</p>`
          : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Eval runs, scrolls sideways"><table class="evals-table" aria-label="Eval runs">
              <thead><tr><th>eval run</th><th>status</th><th>verdict</th><th>cases</th><th>cached</th><th>started</th></tr></thead>
              <tbody>${evals.map((e) => html`<tr key=${e.evalId}>
                <td><a href=${evalHref(e.evalId)}>${e.evalId}</a></td>
                <td><${Status} status=${e.status} /></td>
                <td><${Verdict} verdict=${e.verdict} /></td>
                <td>${totalsText(e.totals)}</td>
                <td>${e.cached === null ? '—' : e.cached ? 'yes' : 'no'}</td>
                <td>${time(e.startTime)}</td>
              </tr>`)}</tbody>
            </table></div>`}
    </section>`
  }
}

export class EvalView extends Component {
  state = { run: null, error: null }

  componentDidMount () { this.read() }

  componentWillUnmount () { clearTimeout(this.timer) }

  async read () {
    try {
      const run = await client().evalRun(this.props.evalId)
      this.setState({ run, error: null })
      if (run.status === 'running' || run.status === 'paused') this.timer = setTimeout(() => this.read(), POLL_MS)
    } catch (error) {
      this.setState({ error })
    }
  }

  render ({ evalId }, { run, error }) {
    if (run === null) return html`<section><h2>Eval run <span class="run-id">${evalId}</span></h2><${Problem} error=${error} />${error ? null : html`<p class="muted">Loading…</p>`}</section>`
    const report = run.report
    return html`<section>
      <div class="run-head">
        <h2>Eval of <a href=${evalsHref(run.workflowName)}>${run.workflowName}</a> <span class="run-id">${evalId}</span></h2>
      </div>
      <dl class="facts">
        <dt>Status</dt><dd><${Status} status=${run.status} /></dd>
        <dt>Verdict</dt><dd><${Verdict} verdict=${run.verdict} /> ${totalsText(run.totals)}</dd>
        <dt>Outputs</dt><dd>${run.cached === null ? '—' : run.cached ? 'cached (from the datasets)' : 'fresh runs'}</dd>
        <dt>Started</dt><dd>${time(run.startTime)}</dd>
        <dt>Its run</dt><dd><a href=${runHref(run.evalId, run.runId)}>steps, history and trace</a></dd>
        ${report?.previous && html`<dt>Compared with</dt><dd class="comparison">
          <a href=${evalHref(report.previous.workflowId)}>the previous eval run</a>:
          better ${report.previous.better.join(', ') || 'none'}; worse ${report.previous.worse.join(', ') || 'none'}</dd>`}
      </dl>
      <${Problem} error=${error} />
      ${run.error && html`<div class="problem" role="alert">The eval run failed: ${run.error}</div>`}
      ${report === null
        ? (run.error ? null : html`<p class="muted">Running the cases…</p>`)
        : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Verdicts, scrolls sideways"><table class="eval-report" aria-label="Verdicts">
            <thead><tr><th>case</th><th>verdict</th><th>evaluator</th><th>criticality</th><th>value</th><th>verdict</th><th>reasoning</th></tr></thead>
            <tbody>${report.cases.flatMap((c) => {
              const head = (span) => [
                html`<td rowspan=${span}>${c.run ? html`<a href=${runHref(c.run.workflowId, c.run.runId)}>${c.name}</a>` : c.name}</td>`,
                html`<td rowspan=${span}><${Verdict} verdict=${c.verdict} /></td>`
              ]
              if (c.results.length === 0) return [html`<tr data-case=${c.name}>${head(1)}<td colspan="5" class="error-text">run failed: ${c.error}</td></tr>`]
              return c.results.map((r, i) => html`<tr data-case=${c.name}>
                ${i === 0 ? head(c.results.length) : null}
                <td><code>${r.evaluator}</code></td>
                <td>${r.criticality}</td>
                <td>${valueText(r.value)}</td>
                <td><${Verdict} verdict=${r.verdict} /></td>
                <td>${r.reasoning ?? ''}</td>
              </tr>`)
            })}</tbody>
          </table></div>`}
    </section>`
  }
}
