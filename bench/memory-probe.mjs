// Loaded with NODE_OPTIONS='--expose-gc --import bench/memory-probe.mjs' into a process the
// benchmark starts (the production API from the build): answers `memory` over the IPC channel with
// process.memoryUsage() after forced GCs. Plain JavaScript: the built API runs without tsx.
process.on('message', (message) => {
  if (message?.cmd !== 'memory') return
  // Several passes: the first frees what the second pass' finalizers release.
  for (let i = 0; i < 4; i++) globalThis.gc?.()
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
  process.send?.({ id: message.id, result: { rss, heapUsed, heapTotal, external, arrayBuffers } })
})
// The IPC channel must not keep a stopped API alive.
process.channel?.unref()
