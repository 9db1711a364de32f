// Long lists (1,000 runs, a 200-step timeline) are put in the page a slice per animation frame,
// so no single task holds the tab for the whole list (bench/inspector.ts measures it).
import { Component } from './html.js'

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

  /** `view(items)` renders the items shown so far. */
  render ({ items, view }, { shown }) {
    return view(items.length > shown ? items.slice(0, shown) : items)
  }
}
