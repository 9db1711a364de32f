// Runs: the API's listing with its filters and cursor paging; the runs change feed
// (GET /workflow/runs/stream, same filters) adds and updates rows without a reload.
import { html, Component } from './html.js'
import { client } from './session.js'
import { live } from './live.js'
import { Problem, Status, Version, go, runHref, streamState, time } from './common.js'
import { Progressive } from './progressive.js'
// The statuses a run list filters by: core's list (core/src/run.ts), served as a module.
import { FILTER_STATUSES as STATUSES } from './vendor/core.mjs'

const FILTERS = ['workflowName', 'status', 'catalog', 'version', 'startedAfter', 'startedBefore']

export class RunsView extends Component {
  state = { runs: [], next: null, error: null, loading: true, live: 'connecting', feedError: null, changes: 0 }

  filters () {
    return Object.fromEntries(FILTERS.map((f) => [f, this.props.params[f]]).filter(([, v]) => v))
  }

  componentDidMount () {
    this.page(null)
    this.feed = live((options) => client().watchRuns({ ...this.filters(), ...options }), {
      onEvent: ({ event, data }) => { if (event === 'run') this.change(data.run) },
      // The feed's error is only while it reconnects (cleared once live) or after it gave up.
      onState: ({ state, error }) => this.setState({ live: state, feedError: error ?? null })
    })
  }

  componentWillUnmount () { this.feed?.stop() }

  async page (pageToken) {
    this.setState({ loading: true })
    try {
      const pageSize = this.props.params.pageSize ?? 100
      const page = await client().runsPage({ ...this.filters(), pageSize, pageToken: pageToken ?? undefined })
      this.setState((state) => {
        const known = new Set(state.runs.map((r) => r.runId))
        return { runs: [...state.runs, ...page.runs.filter((r) => !known.has(r.runId))], next: page.nextPageToken, loading: false, error: null }
      })
    } catch (error) {
      this.setState({ error, loading: false })
    }
  }

  /** A run that started or closed: replace its row, or put it on top. */
  change (run) {
    // An updater: several frames can arrive between two renders.
    this.setState(({ runs, changes }) => {
      const at = runs.findIndex((r) => r.runId === run.runId)
      return { runs: at === -1 ? [run, ...runs] : runs.map((r, i) => (i === at ? run : r)), changes: changes + 1 }
    })
  }

  // One function for the component's life: a slice of rows re-renders only when its runs change.
  row = (r) => html`<tr key=${r.runId} data-run-id=${r.runId} role="row">
    <td role="cell" data-label="Workflow id"><a href=${runHref(r.workflowId, r.runId)}>${r.workflowId}</a></td>
    <td role="cell" data-label="Workflow">${r.workflowName}</td>
    <td role="cell" data-label="Status"><${Status} status=${r.status} /></td>
    <td role="cell" data-label="Version"><${Version} version=${r.version} versioning=${r.versioning} /></td>
    <td role="cell" data-label="Started">${time(r.startTime)}</td>
    <td role="cell" data-label="Closed">${time(r.closeTime)}</td>
  </tr>`

  apply = (event) => {
    event.preventDefault()
    const form = event.currentTarget.elements
    const params = {}
    for (const name of FILTERS) {
      const value = form[name].value.trim()
      if (value) params[name] = name.startsWith('started') ? new Date(value).toISOString() : value
    }
    const search = new URLSearchParams(params).toString()
    go(`#/runs${search ? `?${search}` : ''}`)
  }

  render ({ params }, { runs, next, error, loading, live, feedError, changes }) {
    const local = (iso) => (iso ? new Date(Date.parse(iso) - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '')
    return html`<section class="runs">
      <h2>Runs${params.version ? html` on version <code class="version-filter">${params.version}</code>` : null}</h2>
      <form class="filters" onSubmit=${this.apply}>
        <label>Workflow <input name="workflowName" value=${params.workflowName ?? ''} /></label>
        <label>Status <select name="status" value=${params.status ?? ''}>
          <option value="">any</option>
          ${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
        </select></label>
        <label>Catalog <input name="catalog" value=${params.catalog ?? ''} /></label>
        <label>Version <input name="version" placeholder="deployment:buildId" value=${params.version ?? ''} /></label>
        <label>Started after <input type="datetime-local" name="startedAfter" value=${local(params.startedAfter)} /></label>
        <label>Started before <input type="datetime-local" name="startedBefore" value=${local(params.startedBefore)} /></label>
        <button type="submit">Filter</button>
      </form>
      <p class="muted live" data-live=${live} role="status">
        ${live === 'open' ? 'Live: new and closed runs appear here by themselves' : `Change feed: ${streamState(live, feedError)}`}${changes > 0 ? ` · ${changes} change(s) received` : ''}
      </p>
      <${Problem} error=${error ?? (live === 'failed' ? feedError : null)} />
      <table class="runs-table" role="table">
        <thead role="rowgroup"><tr role="row"><th role="columnheader">Workflow id</th><th role="columnheader">Workflow</th><th role="columnheader">Status</th><th role="columnheader">Version</th><th role="columnheader">Started</th><th role="columnheader">Closed</th></tr></thead>
        <tbody role="rowgroup">
          <${Progressive} items=${runs} chunk=${100} row=${this.row} />
        </tbody>
      </table>
      ${runs.length === 0 && !loading && html`<p class="muted">No runs match.</p>`}
      ${next && html`<button class="secondary" disabled=${loading} onClick=${() => this.page(next)}>Load more</button>`}
      ${loading && html`<p class="muted">Loading…</p>`}
    </section>`
  }
}
