/**
 * `flowport keys create|list|remove`: edits the keys file (docs/access-control.md). `create`
 * prints the new key once, on stdout, and stores only its hash; the file is replaced atomically
 * (a running API re-reads it on the rename). YAML files keep their comments.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { Command } from 'commander'
import { parseDocument } from 'yaml'
import { generateKey, hashKey, parseKeysFile } from '../plugins/app/access/keys.js'
import { isScope, SCOPES } from '../schemas/access.js'
import type { KeyEntry, KeysFile } from '../schemas/keys-file.js'

const isYaml = (file: string) => /\.ya?ml$/i.test(file)

const list = (value: string, previous: string[] = []) => [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')]

function fileOf (options: { file?: string }): string {
  const file = options.file ?? process.env.SERVICE_API_KEYS_FILE
  if (!file) throw new Error('No keys file: pass --file <path> or set SERVICE_API_KEYS_FILE')
  return file
}

function read (file: string): KeysFile {
  return existsSync(file) ? parseKeysFile(readFileSync(file, 'utf8')) : { keys: [] }
}

/** Checks the result like the API will, then replaces the file by renaming (never half-written). */
function write (file: string, next: KeysFile): void {
  let text: string
  if (isYaml(file)) {
    const doc = parseDocument(existsSync(file) ? readFileSync(file, 'utf8') : '')
    doc.set('keys', doc.createNode(next.keys))
    text = doc.toString()
  } else {
    text = `${JSON.stringify(next, null, 2)}\n`
  }
  parseKeysFile(text)
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, text, { mode: 0o600 })
  renameSync(temporary, file)
}

/** A failure is one line on stderr and exit code 1, never a stack. */
const guarded = <A extends unknown[]>(action: (...args: A) => void) => (...args: A) => {
  try {
    action(...args)
  } catch (err) {
    console.error((err as Error).message)
    process.exitCode = 1
  }
}

interface CreateOptions { id: string, scopes: string[], catalog?: string[], workflow?: string[], expires?: string, rateLimit?: string, file?: string }

export function keysCommand (): Command {
  const keys = new Command('keys').description('create|list|remove API keys in the keys file (SERVICE_API_KEYS_FILE or --file)')

  keys.command('create')
    .description('add a key: prints it once on stdout and stores only its hash')
    .requiredOption('--id <id>', 'the key\'s name (logs, engine identity, 403s)')
    .requiredOption('--scopes <scopes>', `comma-separated: ${SCOPES.join(', ')}`, list)
    .option('--catalog <ids>', 'only these catalogs (comma-separated or repeated)', list)
    .option('--workflow <patterns>', 'only workflow names matching these patterns, `*` = any characters', list)
    .option('--expires <date-time>', 'refused after this instant (ISO 8601)')
    .option('--rate-limit <n>', 'requests per SERVICE_RATE_LIMIT_WINDOW_MS (0 = unlimited)')
    .option('--file <path>', 'the keys file (default SERVICE_API_KEYS_FILE)')
    .action(guarded((options: CreateOptions) => {
      const file = fileOf(options)
      const current = read(file)
      if (current.keys.some((k) => k.id === options.id)) throw new Error(`Key ${options.id} exists already: create the new key under another id, then remove the old one`)
      const bad = options.scopes.filter((s) => !isScope(s))
      if (bad.length > 0) throw new Error(`Unknown scope ${bad.join(', ')}: use ${SCOPES.join(', ')}`)
      const key = generateKey()
      const entry: KeyEntry = {
        id: options.id,
        hash: hashKey(key),
        scopes: options.scopes as KeyEntry['scopes'],
        ...(options.catalog ? { catalogs: options.catalog } : {}),
        ...(options.workflow ? { workflows: options.workflow } : {}),
        ...(options.expires ? { expiresAt: new Date(options.expires).toISOString() } : {}),
        ...(options.rateLimit !== undefined ? { rateLimit: Number(options.rateLimit) } : {})
      }
      write(file, { ...current, keys: [...current.keys, entry] })
      console.log(key)
      console.error(`Key ${options.id} added to ${file}; the key above is shown only now.`)
    }))

  keys.command('list')
    .description('the keys of the file: id, scopes, limits (never a key)')
    .option('--file <path>', 'the keys file (default SERVICE_API_KEYS_FILE)')
    .action(guarded((options: { file?: string }) => {
      for (const k of read(fileOf(options)).keys) {
        const limits = [k.catalogs && `catalogs ${k.catalogs.join(',')}`, k.workflows && `workflows ${k.workflows.join(',')}`,
          k.expiresAt && `expires ${k.expiresAt}`, k.rateLimit !== undefined && `rateLimit ${k.rateLimit}`].filter(Boolean)
        console.log([k.id, k.scopes.join(','), ...limits].join('\t'))
      }
    }))

  keys.command('remove')
    .description('remove a key (a running API stops accepting it as soon as it re-reads the file)')
    .requiredOption('--id <id>', 'the key to remove')
    .option('--file <path>', 'the keys file (default SERVICE_API_KEYS_FILE)')
    .action(guarded((options: { id: string, file?: string }) => {
      const file = fileOf(options)
      const current = read(file)
      if (!current.keys.some((k) => k.id === options.id)) throw new Error(`No key ${options.id} in ${file}`)
      write(file, { ...current, keys: current.keys.filter((k) => k.id !== options.id) })
      console.error(`Key ${options.id} removed from ${file}.`)
    }))
  return keys
}
