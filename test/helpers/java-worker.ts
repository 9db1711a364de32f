/**
 * The example Java worker (examples/java-worker: Temporal's Java SDK from Maven Central, nothing of
 * Flowport's) for the end-to-end tests of declared catalogs: built with `mvn package` from the
 * example's own files and its pinned pom.xml into a runnable jar (the SDK's jars in lib/ beside
 * it) in .flowport/ (gitignored), in a folder named by the hash of those files, so a second run
 * finds it at once and an edit builds anew; then run with `java -jar` on a task queue of the
 * test's own, its catalog file published under that id. Java or Maven missing fails the test; it
 * never skips it. scripts/test.ts builds it before the tests start, like the Go worker (./go-worker.ts).
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { promisify } from 'node:util'
import type { Test } from 'tap'
import { startForeignWorker, type ForeignWorker } from './foreign-worker.js'

export const JAVA_WORKER_DIR = resolve('examples/java-worker')

const run = promisify(execFile)

/** The files the jar is built from (pom.xml and everything under src/): their hash names the build. */
const sources = () => ['pom.xml', ...readdirSync(join(JAVA_WORKER_DIR, 'src'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile()).map((e) => relative(JAVA_WORKER_DIR, join(e.parentPath, e.name)))].sort()

export function javaWorkerPath (): string {
  const hash = createHash('sha256')
  for (const file of sources()) hash.update(file).update('\0').update(readFileSync(join(JAVA_WORKER_DIR, file))).update('\0')
  return resolve('.flowport', `java-worker-${hash.digest('hex').slice(0, 12)}`, 'java-worker.jar')
}

/**
 * The worker's jar, built first when missing (the SDK and Maven's plugins come from Maven Central
 * into ~/.m2 on a cold machine). Maven builds into a folder of its own beside the jar's (pom.xml's
 * worker.buildDir), renamed into place when the build is done, so an interrupted build is never
 * used; of two concurrent builds, the second finds the first's in place and drops its own.
 */
export async function javaWorkerJar (log: (message: string) => void = () => {}): Promise<{ path: string, source: 'cache' | 'built', buildMs: number }> {
  const path = javaWorkerPath()
  if (existsSync(path)) return { path, source: 'cache', buildMs: 0 }
  const buildDir = `${dirname(path)}.partial-${process.pid}`
  log(`building the Java worker into ${path} (first time only)`)
  const began = Date.now()
  try {
    await run('mvn', ['-B', '-q', '-Dstyle.color=never', `-Dworker.buildDir=${buildDir}`, 'package'], { cwd: JAVA_WORKER_DIR, timeout: 1_800_000, maxBuffer: 16 * 1024 * 1024 })
  } catch (err) {
    rmSync(buildDir, { recursive: true, force: true })
    const { stdout, stderr } = err as { stdout?: string, stderr?: string }
    // Maven's first errors say what failed (a compile error, an artifact it could not resolve); its last lines are boilerplate.
    const lines = `${stdout ?? ''}${stderr ?? ''}`.split('\n')
    const help = lines.findIndex((l) => l.includes('-> [Help'))
    const errors = lines.slice(0, help < 0 ? undefined : help).filter((l) => l.startsWith('[ERROR] ')).slice(0, 8)
    throw new Error(`Could not build the Java worker (mvn package in ${JAVA_WORKER_DIR}; needs Maven and a JDK 17 on PATH): ${errors.join('\n') || (err as Error).message}`)
  }
  try {
    renameSync(buildDir, dirname(path))
  } catch (err) {
    if (!existsSync(path)) throw err
    rmSync(buildDir, { recursive: true, force: true })
  }
  const buildMs = Date.now() - began
  log(`built the Java worker in ${Math.round(buildMs / 1000)} s`)
  return { path, source: 'built', buildMs }
}

export type JavaWorker = ForeignWorker

/** Starts the Java worker on `taskQueue` and publishes the example's catalog file under that id (./foreign-worker.ts). */
export async function startJavaWorker (t: Test, taskQueue: string): Promise<JavaWorker> {
  const { path, source, buildMs } = await javaWorkerJar((m) => { t.comment(m) })
  t.comment(`java worker jar: ${source}${source === 'built' ? ` in ${buildMs} ms` : ''}`)
  // A small heap and the serial collector: the machine's two cores are shared with the API and the engine.
  return await startForeignWorker(t, taskQueue, { language: 'Java', command: 'java', args: ['-Xmx256m', '-XX:+UseSerialGC', '-jar', path], dir: JAVA_WORKER_DIR, taskQueueVariable: 'JAVA_WORKER_TASK_QUEUE' })
}
