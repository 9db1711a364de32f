// Worker deployments (docs/deploys.md): every deployment with where its new runs go; one
// deployment's versions with their state, pollers and open runs, and the changes of where new runs
// go (make a version current, ramp one, stop the ramp, roll back), each sent with the ETag the page
// read (`If-Match`), so a change made meanwhile by someone else is refused (412) instead of undone.
import { html, Component } from './html.js'
import { client, credential, lacking } from './session.js'
import { Problem, time } from './common.js'

export const deploymentHref = (name) => `#/deployment/${encodeURIComponent(name)}`

/** The runs list filtered by a version (`GET /workflow/runs?version=<deploymentName>:<buildId>`), optionally by status. */
export const versionRunsHref = (deploymentName, buildId, status) =>
  `#/runs?${new URLSearchParams({ version: `${deploymentName}:${buildId}`, ...(status ? { status } : {}) })}`

const where = (version) => (version ? html`<code>${version.buildId}</code>` : html`<span class="muted">unversioned workers</span>`)

const rampText = (ramp) => (ramp ? html`<code>${ramp.version.buildId}</code> at ${ramp.percentage} %` : html`<span class="muted">none</span>`)

/** Why this key may not change deployments, from GET /me; null when it may (or when that is unknown: the API decides). */
function refusalOf (access) {
  const lacks = lacking(access, 'control')
  return lacks === null ? null : `${lacks}, which changes need`
}

/** Where new runs go, in words: after a change, what the page says it did. */
const routingText = (d) => `New runs go to ${d.current ? d.current.buildId : 'unversioned workers'}` +
  (d.ramping ? `, ${d.ramping.percentage} % of them to ${d.ramping.version.buildId}` : '') + '.'

/** A rollback's version: of the versions not current now, the one that most recently became current (as the API picks it). */
function rollbackTarget (d) {
  const before = d.versions.filter((v) => v.state !== 'current' && v.lastCurrentAt)
  before.sort((a, b) => Date.parse(b.lastCurrentAt) - Date.parse(a.lastCurrentAt))
  return before[0] ?? null
}

export class DeploymentsView extends Component {
  state = { deployments: null, error: null }

  async componentDidMount () {
    try {
      const deployments = await client().deployments()
      this.setState({ deployments: [...deployments].sort((a, b) => a.deploymentName.localeCompare(b.deploymentName)) })
    } catch (error) {
      this.setState({ error })
    }
  }

  render (_props, { deployments, error }) {
    return html`<section class="deployments">
      <h2>Deployments</h2>
      <p class="muted">Each worker deployment's versions and where its new runs go (docs/deploys.md).</p>
      <${Problem} error=${error} />
      ${deployments === null && !error && html`<p class="muted">Loading…</p>`}
      ${deployments?.length === 0 && html`<p class="muted">No worker deployment yet: one appears once a versioned worker polls.</p>`}
      ${deployments?.length > 0 && html`<table class="stack deployments-table" aria-label="Deployments">
        <thead><tr><th>Deployment</th><th>Current</th><th>Ramping</th><th>Latest</th><th>Created</th></tr></thead>
        <tbody>${deployments.map((d) => html`<tr key=${d.deploymentName} data-deployment=${d.deploymentName}>
          <td data-label="Deployment"><a href=${deploymentHref(d.deploymentName)}>${d.deploymentName}</a></td>
          <td data-label="Current">${where(d.current)}</td>
          <td data-label="Ramping">${rampText(d.ramping)}</td>
          <td data-label="Latest">${d.latest ? html`<code>${d.latest.buildId}</code>` : '—'}</td>
          <td data-label="Created">${time(d.createdAt)}</td>
        </tr>`)}</tbody>
      </table>`}
    </section>`
  }
}

const Pollers = ({ v }) => html`<span class=${`pollers ${v.pollers > 0 ? 'pollers-live' : 'pollers-none'}`} data-pollers=${v.pollers}>
  ${v.pollers > 0 ? `${v.pollers} live` : 'none'}</span>
  <span class="muted"> ${v.lastPollTime ? `last poll ${time(v.lastPollTime)}` : 'never seen polling'}</span>`

const VersionState = ({ v }) => html`<span class=${`state state-${v.state}`} data-state=${v.state}>${v.state === 'ramping' ? `ramping ${v.rampPercentage} %` : v.state}</span>`

export class DeploymentView extends Component {
  state = {
    deployment: null,
    etag: null,
    error: null,
    access: undefined,
    refusal: null,
    busy: false,
    result: null,
    conflict: false,
    confirm: null,
    actionError: null,
    percentages: {}
  }

  componentDidMount () {
    this.load()
    // Unknown (a key without `read`, an older API): the actions stay on and the API decides.
    credential().then((access) => this.setState({ access }))
  }

  componentWillUnmount () { this.closed = true }

  async load () {
    try {
      const { deployment, etag } = await client().readDeployment(this.props.deploymentName)
      if (!this.closed) this.setState({ deployment, etag, error: null })
    } catch (error) {
      if (!this.closed) this.setState({ error })
    }
  }

  /**
   * Sends one change with the ETag as read. 412: someone else changed the deployment since; it is
   * read again and nothing was changed. 409 for a version none of whose workers polls: the change can
   * be confirmed with allowNoPollers. 403: the key may not, said in the API's words.
   */
  async act (what, send, allowNoPollers = false) {
    this.setState({ busy: true, result: null, conflict: false, confirm: null, actionError: null })
    try {
      const after = await send({ ifMatch: this.state.etag ?? undefined, ...(allowNoPollers ? { allowNoPollers: true } : {}) })
      this.setState({ result: `${what}. ${routingText(after)}` })
      await this.load()
    } catch (error) {
      if (error.status === 412) {
        this.setState({ conflict: true })
        await this.load()
      } else if (error.status === 409 && /allowNoPollers/.test(error.message)) {
        this.setState({ confirm: { what, send }, actionError: error })
      } else if (error.status === 403) {
        this.setState({ refusal: error.message })
      } else {
        this.setState({ actionError: error })
      }
    } finally {
      if (!this.closed) this.setState({ busy: false })
    }
  }

  setCurrent = (buildId) => this.act(`Made ${buildId} current`, (o) => client().setCurrentVersion(this.props.deploymentName, buildId, o))

  ramp = (event, buildId) => {
    event.preventDefault()
    const percentage = Number(event.currentTarget.elements.percentage.value)
    this.act(`Ramped ${buildId} to ${percentage} %`, (o) => client().rampVersion(this.props.deploymentName, buildId, percentage, o))
  }

  stopRamp = () => this.act('Stopped the ramp', ({ ifMatch }) => client().stopRamp(this.props.deploymentName, { ifMatch }))

  rollback = (buildId) => this.act(`Rolled back to ${buildId}`, (o) => client().rollback(this.props.deploymentName, { ...o, buildId }))

  /** The actions' `disabled` and why: no key scope, a change in flight, or the key not known yet. */
  blocked () {
    const { access, refusal, busy } = this.state
    const reason = refusal ?? refusalOf(access)
    if (reason) return reason
    if (access === undefined) return 'Checking what this key may do…'
    return busy ? 'A change is being sent' : null
  }

  versionRow = (d, v, blocked) => {
    const name = d.deploymentName
    const percentage = this.state.percentages[v.version.buildId] ?? (v.rampPercentage === null ? '' : String(v.rampPercentage))
    return html`<tr key=${v.version.buildId} data-build-id=${v.version.buildId}>
      <td data-label="Build id"><code>${v.version.buildId}</code></td>
      <td data-label="State"><${VersionState} v=${v} /></td>
      <td data-label="Since">${time(v.since)}</td>
      <td data-label="Pollers"><${Pollers} v=${v} /></td>
      <td data-label="Open runs"><a class="open-runs" href=${versionRunsHref(name, v.version.buildId, 'running')}>${v.openRuns} open</a>
        <span class="muted"> · </span><a href=${versionRunsHref(name, v.version.buildId)}>all runs</a></td>
      <td data-label="Change" class="version-actions">
        ${v.state === 'current'
          ? html`<span class="muted">new runs go here</span>`
          : html`<button class="secondary" disabled=${blocked !== null} title=${blocked ?? 'Send every new run to this version'} onClick=${() => this.setCurrent(v.version.buildId)}>Make current</button>
            <form class="ramp-form" onSubmit=${(e) => this.ramp(e, v.version.buildId)}>
              <label>Ramp % <input type="number" name="percentage" min="0.01" max="100" step="any" required value=${percentage}
                disabled=${blocked !== null} onInput=${(e) => this.setState(({ percentages }) => ({ percentages: { ...percentages, [v.version.buildId]: e.currentTarget.value } }))} /></label>
              <button type="submit" class="secondary" disabled=${blocked !== null} title=${blocked ?? 'Send this share of new runs to this version'}>Ramp</button>
            </form>`}
      </td>
    </tr>`
  }

  render ({ deploymentName }, s) {
    const d = s.deployment
    if (d === null) return html`<section><h2>Deployment <span class="run-id">${deploymentName}</span></h2><${Problem} error=${s.error} />${s.error ? null : html`<p class="muted">Loading…</p>`}</section>`
    const blocked = this.blocked()
    const back = rollbackTarget(d)
    return html`<section class="deployment">
      <div class="run-head">
        <h2>Deployment <code>${d.deploymentName}</code></h2>
        <div class="controls"><button class="secondary" disabled=${s.busy} onClick=${() => { this.setState({ conflict: false, result: null }); this.load() }}>Read again</button></div>
      </div>
      <dl class="facts">
        <dt>New runs go to</dt><dd class="current">${where(d.current)}${d.currentSince ? html` <span class="muted">since ${time(d.currentSince)}</span>` : null}</dd>
        <dt>Ramp</dt><dd class="ramp">${rampText(d.ramping)}${d.ramping?.since ? html` <span class="muted">since ${time(d.ramping.since)}</span>` : null}
          ${d.ramping && html` <button class="secondary" disabled=${blocked !== null} title=${blocked ?? 'Every new run goes to the current version'} onClick=${this.stopRamp}>Stop ramp</button>`}</dd>
        <dt>Roll back</dt><dd class="rollback">${back
          ? html`<button class="secondary" disabled=${blocked !== null} title=${blocked ?? `Make ${back.version.buildId} current again`} onClick=${() => this.rollback(back.version.buildId)}>Roll back to ${back.version.buildId}</button>`
          : html`<span class="muted">no version was current before</span>`}</dd>
        <dt>Last changed by</dt><dd>${d.lastModifiedBy ?? '—'}</dd>
        <dt>Created</dt><dd>${time(d.createdAt)}</dd>
      </dl>
      ${blocked && (s.refusal ?? refusalOf(s.access)) && html`<p class="refusal-note" data-refusal="true">Changes are disabled: ${blocked}.</p>`}
      ${s.conflict && html`<div class="problem conflict" role="alert">Someone else changed this deployment since this page read it, so nothing was changed.
        It has been read again: check where new runs go now, and send the change again if it is still wanted.</div>`}
      ${s.result && html`<p class="change-result" role="status">${s.result}</p>`}
      <${Problem} error=${s.actionError} />
      ${s.confirm && html`<p class="confirm no-pollers">Send it anyway? New runs routed there wait until one of its workers polls.
        <button class="danger" onClick=${() => this.act(s.confirm.what, s.confirm.send, true)}>Send with allowNoPollers</button>
        <button class="secondary" onClick=${() => this.setState({ confirm: null, actionError: null })}>Cancel</button></p>`}
      <${Problem} error=${s.error} />
      <h3>Versions</h3>
      <table class="stack versions-table" aria-label="Versions">
        <thead><tr><th>Build id</th><th>State</th><th>Since</th><th>Pollers</th><th>Open runs</th><th>Change</th></tr></thead>
        <tbody>${d.versions.map((v) => this.versionRow(d, v, blocked))}</tbody>
      </table>
      ${d.versions.length === 0 && html`<p class="muted">No version yet.</p>`}
    </section>`
  }
}
