// Long lists (1,000 runs, a 200-step timeline) are put in the page a slice per animation frame,
// each slice sized so that its frame's work stays within a time budget: no single task holds the
// tab (a task over 50 ms is what feels frozen; bench/inspector.ts measures the longest one).
// Slices already in the page are components that skip re-rendering while their items and their
// row function are unchanged, so a frame costs the rows it adds, not every row shown so far.
import { html, Component } from './html.js'

// Work per frame: well under the 50 ms of a long task, leaving the rest of the frame to paint.
const BUDGET_MS = 10
const MIN_SLICE = 10
const MAX_SLICE = 1000

class Slice extends Component {
  shouldComponentUpdate ({ items, row }) {
    const was = this.props.items
    return row !== this.props.row || items.length !== was.length || items.some((item, i) => item !== was[i])
  }

  render ({ items, row }) { return items.map(row) }
}

export class Progressive extends Component {
  // `ends[i]`: the index after slice i's last item. The first slice (`first` items) renders with
  // the view itself; the next ones are sized from the measured cost of the previous one.
  state = { ends: [this.props.first] }

  componentDidMount () { this.grow() }
  componentWillUnmount () { window.cancelAnimationFrame(this.frame) }

  componentDidUpdate () {
    if (this.sliceStart !== undefined) {
      // Asking for a box lays the page out now instead of at the end of the frame (the
      // same work, done once either way), so the time measured includes layout, which is the part
      // that grows with the length of the list.
      document.body.getBoundingClientRect()
      const ms = Math.max(0.1, performance.now() - this.sliceStart)
      this.perItem = ms / this.sliceItems
      this.sliceStart = undefined
    }
    this.grow()
  }

  next () {
    if (this.perItem === undefined) return this.props.first
    return Math.max(MIN_SLICE, Math.min(MAX_SLICE, Math.floor(BUDGET_MS / this.perItem)))
  }

  grow () {
    const shown = this.state.ends[this.state.ends.length - 1]
    if (this.frame || shown >= this.props.items.length) return
    this.frame = window.requestAnimationFrame(() => {
      this.frame = null
      const size = this.next()
      this.sliceStart = performance.now()
      this.sliceItems = Math.max(1, Math.min(size, this.props.items.length - shown))
      this.setState(({ ends }) => ({ ends: [...ends, ends[ends.length - 1] + size] }))
    })
  }

  /** `row(item)` renders one item (with its key); the items shown so far, slice by slice. */
  render ({ items, row }, { ends }) {
    return ends.map((end, i) => {
      const from = i === 0 ? 0 : ends[i - 1]
      return from < items.length ? html`<${Slice} key=${i} items=${items.slice(from, end)} row=${row} />` : null
    })
  }
}
