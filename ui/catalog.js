// Catalog: a choice of every published catalog; every workflow of one with its description and
// schemas, and a form generated from its input schema (ui/form.js; filled from the schema's
// examples and defaults, with a JSON view) that starts a run and opens it.
import { html, Component } from './html.js'
import { client } from './session.js'
import { Json, Problem, go, runHref } from './common.js'
import { sample } from './schema.js'
import { SchemaEditor, fits, focusFirstInvalid } from './form.js'
import { evalsHref } from './evals.js'

const openCatalog = (id) => go(`#/catalog?catalog=${encodeURIComponent(id)}`)

/**
 * Every published catalog to choose from: GET /ready lists them with their workers (public, and
 * also in its 503 answer, which is about the default catalog only). The list comes from the
 * engine's visibility store, so a catalog published a moment ago can be missing: the text box
 * opens any id.
 */
class CatalogPicker extends Component {
  state = { catalogs: null }

  async componentDidMount () {
    let ready
    try {
      ready = await client().ready()
    } catch (error) {
      ready = error.body
    }
    const catalogs = Array.isArray(ready?.catalogs) ? ready.catalogs : []
    this.setState({ catalogs: [...catalogs].sort((a, b) => a.catalog.localeCompare(b.catalog)) })
  }

  open = (event) => {
    event.preventDefault()
    const { other, catalog } = event.currentTarget.elements
    const id = other.value.trim() || catalog.value
    if (id) openCatalog(id)
  }

  render ({ current }, { catalogs }) {
    const listed = catalogs ?? []
    const options = current && !listed.some((c) => c.catalog === current) ? [{ catalog: current, workers: null }, ...listed] : listed
    return html`<form class="inline catalog-pick" onSubmit=${this.open}>
      <label>Catalog
        <select name="catalog" value=${current ?? ''} disabled=${catalogs === null} onChange=${(e) => openCatalog(e.currentTarget.value)}>
          ${current === null && html`<option value="">choose…</option>`}
          ${options.map((c) => html`<option value=${c.catalog}>${c.catalog}${c.workers && !c.workers.polling ? ' (no worker)' : ''}</option>`)}
        </select>
      </label>
      <label>Another catalog <input name="other" placeholder="catalog id" /></label>
      <button type="submit" class="secondary">Open</button>
    </form>`
  }
}

export class CatalogView extends Component {
  state = { catalog: null, error: null, selected: null, value: undefined, submitted: false, workflowId: '', starting: false, startError: null }

  componentDidMount () { this.load() }

  async load () {
    const id = this.props.params.catalog
    try {
      const catalog = await client().catalog(id || undefined)
      this.setState({ catalog, error: null })
      const wanted = this.props.params.workflow
      const first = catalog.workflows.find((w) => w.name === wanted) ?? catalog.workflows[0]
      if (first) this.select(first)
      if (first && first.name === wanted) this.prefillFrom(this.props.params)
    } catch (error) {
      this.setState({ error })
    }
  }

  /** "Edit the input and run again" (ui/recovery.js): the editor starts from that run's input. */
  async prefillFrom ({ inputFrom, inputRun }) {
    if (!inputFrom) return
    try {
      const { input } = await client().input(inputFrom, { runId: inputRun || undefined })
      this.setState({ value: input ?? null, prefilledFrom: inputFrom })
    } catch (startError) {
      this.setState({ startError })
    }
  }

  select (workflow, tapped = false) {
    if (tapped) {
      // The choice is in the URL, so it can be linked and reloaded; replaced, not pushed: no new view.
      const params = new URLSearchParams({ ...(this.props.params.catalog ? { catalog: this.props.params.catalog } : {}), workflow: workflow.name })
      window.history.replaceState(null, '', `#/catalog?${params}`)
      document.title = `Catalog · ${workflow.name} · Flowport inspector`
    }
    this.setState({ selected: workflow.name, value: sample(workflow.inputSchema), submitted: false, startError: null }, () => {
      // On a phone the form is below the list: a tapped workflow's form comes into view.
      if (tapped) this.detail?.scrollIntoView({ block: 'start' })
    })
  }

  start = async (event) => {
    event.preventDefault()
    const workflow = this.current()
    const { value } = this.state
    if (!fits(workflow.inputSchema, value)) {
      this.setState({ submitted: true })
      focusFirstInvalid(event.currentTarget)
      return
    }
    this.setState({ starting: true, startError: null })
    try {
      const workflowId = this.state.workflowId.trim() || undefined
      const started = await client().start(workflow.name, value ?? null, { catalog: this.state.catalog.catalog, workflowId })
      go(runHref(started.workflowId, started.runId))
    } catch (startError) {
      this.setState({ starting: false, startError })
    }
  }

  current () {
    return this.state.catalog?.workflows.find((w) => w.name === this.state.selected) ?? null
  }

  render ({ params }, { catalog, error, value, submitted, workflowId, starting, startError, prefilledFrom }) {
    if (error) return html`<section class="catalog"><${CatalogPicker} current=${params.catalog ?? null} /><${Problem} error=${error} /></section>`
    if (!catalog) return html`<p class="muted">Reading the catalog…</p>`
    const workflow = this.current()
    return html`<section class="catalog">
      <div class="catalog-head">
        <h2>Catalog <code>${catalog.catalog}</code></h2>
        <${CatalogPicker} current=${catalog.catalog} />
        <p class="muted">${`Published ${new Date(catalog.publishedAt).toLocaleString()} · ${catalog.workers.polling ? `${catalog.workers.pollers} worker poller(s)` : 'no worker polls this catalog: runs will wait'}`}</p>
      </div>
      <div class="columns">
        <ul class="workflows" aria-label="Workflows">
          ${catalog.workflows.map((w) => html`<li>
            <button class=${w.name === workflow?.name ? 'workflow active' : 'workflow'} aria-current=${w.name === workflow?.name ? 'true' : undefined} onClick=${() => this.select(w, true)}>
              <strong>${w.name}</strong>${w.eval ? html` <span class="badge-eval" title="Has an eval">eval</span>` : ''}<span class="muted">${w.description}</span>
            </button>
          </li>`)}
        </ul>
        ${workflow && html`<div class="workflow-detail" ref=${(el) => { this.detail = el }}>
          <h3>${workflow.name}</h3>
          <p>${workflow.description}</p>
          <p class="workflow-links"><a href=${`#/runs?workflowName=${encodeURIComponent(workflow.name)}`}>Runs</a>
            ${workflow.eval && html` · <a href=${evalsHref(workflow.name)}>Eval runs</a>`}</p>
          ${workflow.aliases.length > 0 && html`<p class="muted">Also named ${workflow.aliases.join(', ')}</p>`}
          <form class="start" onSubmit=${this.start} noValidate>
            <h4>Input</h4>
            ${prefilledFrom && html`<p class="muted prefilled">The input of run ${prefilledFrom}: edit it, then start.</p>`}
            <${SchemaEditor} key=${workflow.name} schema=${workflow.inputSchema} value=${value} submitted=${submitted} prefix="input" label="Input"
              onChange=${(next) => this.setState({ value: next })} />
            <label>Workflow id (optional; a UUID when empty)
              <input name="workflowId" value=${workflowId} onInput=${(e) => this.setState({ workflowId: e.currentTarget.value })} />
            </label>
            <button type="submit" disabled=${starting}>Start run</button>
            <${Problem} error=${startError} />
          </form>
          <details><summary>Input schema</summary><${Json} value=${workflow.inputSchema} /></details>
          <details><summary>Output schema</summary><${Json} value=${workflow.outputSchema} /></details>
          ${['steps', 'evaluators', 'signals', 'queries', 'updates'].map((kind) => workflow[kind].length > 0 && html`<h4>${kind[0].toUpperCase() + kind.slice(1)}</h4>
            <ul>${workflow[kind].map((s) => html`<li><code>${s.name}</code> ${s.description ?? ''}</li>`)}</ul>`)}
          ${workflow.eval && html`<h4>Eval</h4><ul>${workflow.eval.evaluators.map((e) => html`<li><code>${e.name}</code> ${e.criticality}, read as ${e.interpret.type}</li>`)}</ul>`}
          <p><a href=${`#/runs?workflowName=${encodeURIComponent(workflow.name)}`}>Runs of ${workflow.name}</a>
            ${workflow.eval && html` · <a href=${evalsHref(workflow.name)}>Eval runs of ${workflow.name}</a>`}</p>
        </div>`}
      </div>
    </section>`
  }
}
