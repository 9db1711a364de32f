/**
 * Keys files for the access-control tests: written to a temporary directory, as `flowport keys
 * create` would, with the keys themselves handed back to the test.
 */
import { mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { generateKey, hashKey } from '../../plugins/app/access/keys.js'
import type { KeyEntry, KeysFile } from '../../schemas/keys-file.js'

export type KeySpec = Omit<KeyEntry, 'hash'>

export interface KeysFixture {
  file: string
  /** The keys by id, as a client holds them. */
  keys: Record<string, string>
  /** Replaces the file (atomically, as editors and the CLI do) with these keys (and `extra` fields); new ids get new keys. */
  write: (specs: KeySpec[], extra?: Omit<KeysFile, 'keys'>) => void
  /** Writes raw text (an invalid file). */
  writeRaw: (text: string) => void
}

export function keysFile (t: Test, specs: KeySpec[], name = 'keys.json'): KeysFixture {
  const dir = mkdtempSync(join(tmpdir(), 'flowport-keys-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const file = join(dir, name)
  const keys: Record<string, string> = {}
  const writeRaw = (text: string) => {
    const temporary = `${file}.tmp`
    writeFileSync(temporary, text)
    renameSync(temporary, file)
  }
  const write = (next: KeySpec[], extra: Omit<KeysFile, 'keys'> = {}) => {
    const entries = next.map((spec) => {
      keys[spec.id] ??= generateKey()
      return { ...spec, hash: hashKey(keys[spec.id]!) }
    })
    writeRaw(JSON.stringify({ keys: entries, ...extra }, null, 2))
  }
  write(specs)
  return { file, keys, write, writeRaw }
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
