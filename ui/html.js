// Preact + htm, as the ES modules their packages ship (served at /ui/vendor/ by plugins/external/ui.ts).
// htm builds Preact elements from tagged templates; Preact sets every interpolated value as a text
// node or a property, never as HTML, which is what keeps workflow data inert (docs/inspector.md).
import { h, render, Component } from './vendor/preact.mjs'
import htm from './vendor/htm.mjs'

export const html = htm.bind(h)
export { render, Component }
