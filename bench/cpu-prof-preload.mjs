/**
 * Loaded into the API and the worker by bench/cpu-per-run.ts (NODE_OPTIONS=--import, as
 * `--cpu-prof` is not allowed there) when BENCH_CPU_PROFILE is set: the first SIGUSR2 starts a CPU
 * profile of the main thread, the second writes it to $BENCH_CPU_PROFILE_DIR/<pid>.cpuprofile, so
 * that the profile covers the measured runs only.
 */
import { Session } from 'node:inspector'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

const dir = process.env.BENCH_CPU_PROFILE_DIR
if (dir) {
  const session = new Session()
  session.connect()
  let profiling = false
  process.on('SIGUSR2', () => {
    if (!profiling) {
      profiling = true
      session.post('Profiler.enable', () => {
        session.post('Profiler.setSamplingInterval', { interval: 200 }, () => { session.post('Profiler.start') })
      })
      return
    }
    profiling = false
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile))
    })
  })
}
