// Long lists (1,000 runs, a 200-step timeline) are put in the page a slice per animation frame,
// so no single task holds the tab for the whole list (a task over 50 ms is what feels frozen;
// bench/inspector.ts measures the longest one). Slices already in the page are components that
// skip re-rendering while their items and their row function are unchanged, so a frame costs the
// rows it adds, not every row shown so far.
import { html, Component } from './html.js'

class Slice extends Component {
  shouldComponentUpdate ({ items, row }) {
    const was = this.props.items
    return row !== this.props.row || items.length !== was.length || items.some((item, i) => item !== was[i])
  }

  render ({ items, row }) { return items.map(row) }
}

export class Progressive extends Component {
  state = { shown: this.props.chunk }

  componentDidMount () { this.grow() }
  componentDidUpdate () { this.grow() }
  componentWillUnmount () { window.cancelAnimationFrame(this.frame) }

  grow () {
    if (this.frame || this.state.shown >= this.props.items.length) return
    this.frame = window.requestAnimationFrame(() => {
      this.frame = null
      this.setState(({ shown }) => ({ shown: shown + this.props.chunk }))
    })
  }

  /** `row(item)` renders one item (with its key); the items shown so far, `chunk` more per frame. */
  render ({ items, row, chunk }, { shown }) {
    const slices = []
    for (let from = 0; from < Math.min(shown, items.length); from += chunk) {
      slices.push(html`<${Slice} key=${from} items=${items.slice(from, from + chunk)} row=${row} />`)
    }
    return slices
  }
}
