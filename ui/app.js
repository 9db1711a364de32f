// The inspector's shell: the key prompt, the navigation, and a view per location hash
// (#/catalog, #/runs?…, #/run/{workflowId}/{runId}, #/evals/{workflowName}, #/eval/{evalId},
// #/deployments, #/deployment/{name}). Everything it shows comes from the public
// API; docs/inspector.md describes the page.
import { html, render, Component } from './html.js'
import { onUnauthorized, token } from './session.js'
import { CatalogView } from './catalog.js'
import { RunsView } from './runs.js'
import { RunView } from './run.js'
import { EvalsView, EvalView } from './evals.js'
import { DeploymentsView, DeploymentView } from './deployments.js'

function parseRoute (hash) {
  const [path, search = ''] = hash.replace(/^#/, '').split('?')
  const parts = path.split('/').filter(Boolean).map((p) => decodeURIComponent(p))
  const params = Object.fromEntries(new URLSearchParams(search))
  if (parts[0] === 'run' && parts[1]) return { view: 'run', workflowId: parts[1], runId: parts[2] ?? null, params }
  if (parts[0] === 'runs') return { view: 'runs', params }
  if (parts[0] === 'evals' && parts[1]) return { view: 'evals', workflowName: parts[1], params }
  if (parts[0] === 'eval' && parts[1]) return { view: 'eval', evalId: parts[1], params }
  if (parts[0] === 'deployments') return { view: 'deployments', params }
  if (parts[0] === 'deployment' && parts[1]) return { view: 'deployment', deploymentName: parts[1], params }
  return { view: 'catalog', params }
}

class TokenForm extends Component {
  state = { value: '' }
  save = (event) => {
    event.preventDefault()
    this.props.onSave(this.state.value.trim())
  }

  render ({ reason, onCancel }, { value }) {
    return html`<form class="token" onSubmit=${this.save}>
      <p>${reason ? html`The API refused the request: <strong class="refusal">${reason}</strong>` : 'Send requests with an API key.'}</p>
      <label>API key or run token
        <input type="password" name="token" autocomplete="off" autofocus value=${value} ref=${(input) => input?.focus()}
          onInput=${(e) => this.setState({ value: e.currentTarget.value })} />
      </label>
      <button type="submit">Use this key</button>
      ${onCancel && html`<button type="button" class="secondary" onClick=${onCancel}>Cancel</button>`}
      <p class="muted">Kept in this tab only (sessionStorage), sent as <code>Authorization: Bearer</code>.
        A key comes from whoever runs this API: <code>flowport keys create</code> adds one to its keys file,
        or <code>SERVICE_API_AUTH_TOKEN</code> is its single key.</p>
    </form>`
  }
}

/** The tab's title names the view, so that tabs, history and bookmarks tell views apart. */
function titleOf ({ view, workflowId, workflowName, evalId, params }) {
  const titles = {
    run: () => `Run ${workflowId}`,
    runs: () => 'Runs',
    evals: () => `Evals of ${workflowName}`,
    eval: () => `Eval ${evalId}`,
    catalog: () => `Catalog${params.workflow ? ` · ${params.workflow}` : ''}`
  }
  return `${(titles[view] ?? titles.catalog)()} · Flowport inspector`
}

class App extends Component {
  state = { route: parseRoute(window.location.hash), refusal: null, asking: false, generation: 0, settings: null }

  componentDidMount () {
    document.title = titleOf(this.state.route)
    window.addEventListener('hashchange', () => this.setState({ route: parseRoute(window.location.hash) }, this.focusView))
    onUnauthorized((refusal) => this.setState({ refusal, asking: true }))
    // The page's own settings (plugins/external/ui.ts), not an API call.
    fetch('/ui/settings.json').then((res) => (res.ok ? res.json() : null)).then((settings) => this.setState({ settings }), () => {})
  }

  // From the URL, which a view may have replaced without a new route (the catalog's chosen workflow).
  componentDidUpdate () { document.title = titleOf(parseRoute(window.location.hash)) }

  /** After a link or an action opened another view, the focus goes to it (not left on a control that is gone), so a screen reader reads it. */
  focusView = () => window.requestAnimationFrame(() => { if (!this.state.asking) document.querySelector('main')?.focus({ preventScroll: false }) })

  useToken = (value) => {
    token.set(value)
    // Remount the view: it reads again with the new key.
    this.setState(({ generation }) => ({ refusal: null, asking: false, generation: generation + 1 }))
  }

  forget = () => {
    token.set(null)
    this.setState(({ generation }) => ({ generation: generation + 1, asking: false, refusal: null }))
  }

  render (_props, { route, refusal, asking, generation, settings }) {
    const key = `${generation}:${route.view}:${route.workflowId ?? route.workflowName ?? route.evalId ?? route.deploymentName ?? ''}:${route.runId ?? ''}`
    const hasToken = token.get() !== null
    let view
    if (route.view === 'run') view = html`<${RunView} key=${key} workflowId=${route.workflowId} runId=${route.runId} settings=${settings} />`
    else if (route.view === 'evals') view = html`<${EvalsView} key=${key} workflowName=${route.workflowName} />`
    else if (route.view === 'eval') view = html`<${EvalView} key=${key} evalId=${route.evalId} />`
    else if (route.view === 'deployments') view = html`<${DeploymentsView} key=${key} />`
    else if (route.view === 'deployment') view = html`<${DeploymentView} key=${key} deploymentName=${route.deploymentName} />`
    else if (route.view === 'runs') view = html`<${RunsView} key=${`${generation}:runs:${JSON.stringify(route.params)}`} params=${route.params} />`
    // Another catalog is another view: it reads its catalog when it mounts.
    else view = html`<${CatalogView} key=${`${key}:${route.params.catalog ?? ''}:${route.params.workflow ?? ''}:${route.params.inputFrom ?? ''}`} params=${route.params} settings=${settings} />`
    return html`
      <header>
        <h1><a href="#/catalog">Flowport inspector</a></h1>
        <nav>
          <a href="#/catalog" class=${route.view === 'catalog' ? 'active' : ''} aria-current=${route.view === 'catalog' ? 'page' : undefined}>Catalog</a>
          <a href="#/runs" class=${route.view === 'runs' ? 'active' : ''} aria-current=${route.view === 'runs' ? 'page' : undefined}>Runs</a>
          <a href="#/deployments" class=${route.view === 'deployments' || route.view === 'deployment' ? 'active' : ''} aria-current=${route.view === 'deployments' || route.view === 'deployment' ? 'page' : undefined}>Deployments</a>
        </nav>
        <div class="who">
          ${hasToken ? html`<span class="muted">key set</span> <button class="link" onClick=${this.forget}>Forget key</button>` : null}
          <button class="link" onClick=${() => this.setState({ asking: true })}>${hasToken ? 'Change key' : 'Use a key'}</button>
        </div>
      </header>
      ${asking && html`<${TokenForm} reason=${refusal} onSave=${this.useToken} onCancel=${refusal ? null : () => this.setState({ asking: false })} />`}
      <main tabindex="-1" aria-label=${titleOf(route).replace(/ · Flowport inspector$/, '')}>${view}</main>`
  }
}

const root = document.getElementById('app')
// The "Loading…" placeholder is static markup: Preact renders next to what it did not make.
root.textContent = ''
render(html`<${App} />`, root)
