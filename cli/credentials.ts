/**
 * `flowport credentials init | show | get | set | unset | edit`: the encrypted credentials file of
 * an environment (docs/credentials.md). The key comes from SERVICE_CREDENTIALS_KEY_<ENV>; only
 * `init` creates one. Values never reach the terminal unless asked (`get`, `show --reveal`).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import {
  credentialAt, credentialsLocation, CredentialsError, generateKey, maskedText, parseCredentials, parseKey, pathSegments,
  readCredentials, readKey, writeCredentials, type CredentialsLocation
} from '@flowport/core/credentials'

export const credentialsUsage = `Usage: flowport credentials <command> [--env ENV] [--file PATH]
  init                 create the file, encrypted with a new key (printed once; refuses to overwrite)
  show [--reveal]      print the document, values masked unless --reveal
  get <path>           print the value at a dotted path
  set <path> [value]   set a value (a string; read from stdin when omitted)
  unset <path>         remove a value
  edit                 open the decrypted document in $EDITOR and encrypt it again on save
  --env ENV            environment (default: NODE_ENV, else development); key in SERVICE_CREDENTIALS_KEY_<ENV>
  --file PATH          the encrypted file (default: SERVICE_CREDENTIALS_FILE, else config/credentials/<env>.yml.enc)`

const TEMPLATE = (environment: string) => `# Flowport credentials of environment ${environment}: a YAML mapping, addressed by dotted paths.
# A worker setting \`SOME_API_KEY=credential:example.api_key\` gets the value of example.api_key;
# a step reads it with credentials.require('example.api_key'). Quote values that must stay text.

example:
  api_key: ""
`

class UsageError extends Error {}

function init (location: CredentialsLocation): void {
  if (existsSync(location.file)) throw new CredentialsError(`${location.file} already exists; refusing to overwrite it (edit it with \`flowport credentials edit\`)`)
  const given = process.env[location.keyVariable]
  const key = given ? parseKey(given, location.keyVariable) : undefined
  const hex = key === undefined ? generateKey() : undefined
  writeCredentials(location, key ?? parseKey(hex!, location.keyVariable), TEMPLATE(location.environment))
  if (hex === undefined) {
    console.log(`Created ${location.file}, encrypted with the key in ${location.keyVariable}.`)
    return
  }
  console.log(`Created ${location.file}, encrypted with a new key.
The key is shown only here and saved nowhere: without it the file cannot be read. Keep it in your
secret manager and set it in the environment of the worker and of this command (never commit it):

${location.keyVariable}=${hex}`)
}

function readStdin (): string {
  return readFileSync(0, 'utf8').replace(/\r?\n$/, '')
}

/** Opens the plaintext in $EDITOR (a private temp file, removed afterwards); true when it changed. */
function edit (location: CredentialsLocation, key: Buffer): boolean {
  const editor = process.env.VISUAL || process.env.EDITOR
  if (!editor) throw new CredentialsError('Set EDITOR (e.g. EDITOR=nano, or EDITOR="code --wait") to edit the credentials')
  const before = readCredentials(location, process.env, key).toString()
  const dir = mkdtempSync(join(tmpdir(), 'flowport-credentials-'))
  const file = join(dir, `${location.environment}.yml`)
  try {
    writeFileSync(file, before, { mode: 0o600 })
    // Through the shell, so that EDITOR may carry arguments ("code --wait").
    const result = spawnSync(`${editor} "${file}"`, { shell: true, stdio: 'inherit' })
    if (result.status !== 0) throw new CredentialsError(`The editor exited with ${result.status ?? result.signal ?? 'an error'}; nothing was changed`)
    const after = readFileSync(file, 'utf8')
    if (after === before) return false
    try {
      parseCredentials(after, 'The edited document')
    } catch (err) {
      throw new CredentialsError(`${(err as Error).message}; nothing was changed`)
    }
    writeCredentials(location, key, after)
    return true
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function run (args: string[]): void {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { env: { type: 'string' }, file: { type: 'string' }, reveal: { type: 'boolean', default: false } }
  })
  const [command, path, ...rest] = positionals
  const location = credentialsLocation(process.env, { environment: values.env, file: values.file })
  const arity: Record<string, [number, number]> = { init: [0, 0], show: [0, 0], edit: [0, 0], get: [1, 1], unset: [1, 1], set: [1, 2] }
  const count = positionals.length - 1
  if (command === undefined || arity[command] === undefined) throw new UsageError(command === undefined ? 'Missing command' : `Unknown command: credentials ${command}`)
  if (count < arity[command][0] || count > arity[command][1]) throw new UsageError(`Wrong number of arguments for credentials ${command}`)
  if (values.reveal && command !== 'show') throw new UsageError('--reveal goes with show')
  if (command === 'init') return init(location)

  const doc = readCredentials(location, process.env)
  const key = readKey(location, process.env)
  switch (command) {
    case 'show':
      process.stdout.write(values.reveal ? doc.toString() : maskedText(doc))
      return
    case 'get': {
      const value = credentialAt(doc.toJS(), path!)
      if (value === undefined) throw new CredentialsError(`No value at ${path!} in ${location.file}`)
      console.log(value)
      return
    }
    case 'set':
      doc.setIn(pathSegments(path!), rest[0] ?? readStdin())
      writeCredentials(location, key, doc.toString())
      console.log(`Set ${path!} in ${location.file}`)
      return
    case 'unset':
      if (!doc.hasIn(pathSegments(path!))) throw new CredentialsError(`No value at ${path!} in ${location.file}`)
      doc.deleteIn(pathSegments(path!))
      writeCredentials(location, key, doc.toString())
      console.log(`Removed ${path!} from ${location.file}`)
      return
    case 'edit':
      console.log(edit(location, key) ? `Saved ${location.file}` : 'No changes')
  }
}

/** Runs the subcommand; returns the exit code (1: a credentials error, 2: a usage error). */
export function credentialsCommand (args: string[]): number {
  try {
    run(args)
    return 0
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true) {
      console.error(`${(err as Error).message}\n${credentialsUsage}`)
      return 2
    }
    console.error(err instanceof CredentialsError ? `${err.name}: ${err.message}` : `Error: ${(err as Error).message}`)
    return 1
  }
}
