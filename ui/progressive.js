// Long lists (1,000 runs, a 200-step timeline) are put in the page a slice per animation frame,
// so no single task holds the tab for the whole list (a task over 50 ms is what feels frozen;
// bench/inspector.ts measures the longest one). Slices already in the page are components that
// skip re-rendering while their items and their row function are unchanged, so a frame costs the
// rows it adds, not every row shown so far; rows out of view are not even laid out
// (content-visibility, ui/style.css).
//
// A slice is rendered in a task of its own just after a frame, not in the frame's animation
// callback: the next frame lays it out and paints it, and no task holds both a slice's JavaScript
// and its layout. Rendered inside the callback, they shared the frame's task, and the first frame
// after the list arrived laid out two slices (the one rendered with the view, then its follower)
// on top of the JavaScript: a Chromium trace of bench/inspector.ts showed that task as the longest.
import { html, Component } from './html.js'

// A message to ourselves is a task that runs after the current one (here: the frame) without
// setTimeout's clamping; one channel for every list on the page.
const channel = new MessageChannel()
const queue = []
channel.port1.onmessage = () => { for (const job of queue.splice(0)) job() }
function afterFrame (job) {
  return window.requestAnimationFrame(() => {
    queue.push(job)
    channel.port2.postMessage(null)
  })
}

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
  componentWillUnmount () {
    this.gone = true
    window.cancelAnimationFrame(this.frame)
  }

  grow () {
    if (this.waiting || this.state.shown >= this.props.items.length) return
    this.waiting = true
    this.frame = afterFrame(() => {
      this.waiting = false
      if (!this.gone) this.setState(({ shown }) => ({ shown: shown + this.props.chunk }))
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
