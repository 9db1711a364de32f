/**
 * `flowport credentials` end to end, as a user runs it: init (refuses to overwrite), set through
 * argv and stdin, get, show masked and revealed, unset, edit through a scripted $EDITOR, --env
 * and --file, and the errors of a wrong key and a modified file. Writes leave no temp file and
 * each one encrypts with a fresh nonce.
 */
import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { credentialsCli, printedKey } from './helpers/credentials-cli.js'

const SECRET = 'sk-live-0123456789abcdef'

/** A scripted editor: a Node program run as `$EDITOR <file>` that records the path and rewrites the file. */
function editor (dir: string, name: string, body: string): string {
  const script = join(dir, `${name}.mjs`)
  writeFileSync(script, `import { readFileSync, writeFileSync } from 'node:fs'
const file = process.argv[2]
writeFileSync(${JSON.stringify(join(dir, `${name}.path`))}, file)
const text = readFileSync(file, 'utf8')
${body}
`)
  return `"${process.execPath}" "${script}"`
}

t.test('init, set, get, show, unset and edit on one environment', async (t) => {
  const dir = t.testdir({})
  const file = join(dir, 'config/credentials/development.yml.enc')
  const cli = (args: string[], env: Record<string, string> = {}, stdin?: string) =>
    credentialsCli(args, { cwd: dir, env: { NODE_ENV: '', SERVICE_CREDENTIALS_FILE: '', SERVICE_CREDENTIALS_KEY_DEVELOPMENT: '', ...env }, stdin })

  const init = await cli(['init'])
  t.equal(init.code, 0, init.stderr)
  t.match(init.stdout, `Created ${file}, encrypted with a new key.`)
  t.match(init.stdout, /secret manager/, 'says how to store the key')
  const key = printedKey(init.stdout, 'SERVICE_CREDENTIALS_KEY_DEVELOPMENT')
  t.equal(statSync(file).mode & 0o777, 0o600, 'the file is readable by its owner only')
  t.notOk(readFileSync(file, 'utf8').includes(key), 'the key is not in the file')

  const before = readFileSync(file, 'utf8')
  const again = await cli(['init'])
  t.equal(again.code, 1)
  t.equal(again.stderr, `CredentialsError: ${file} already exists; refusing to overwrite it (edit it with \`flowport credentials edit\`)\n`)
  t.equal(readFileSync(file, 'utf8'), before, 'the existing file is untouched')

  const withKey = { SERVICE_CREDENTIALS_KEY_DEVELOPMENT: key }
  t.equal((await cli(['set', 'service.api_key', SECRET], withKey)).code, 0)
  const first = readFileSync(file, 'utf8')
  t.equal((await cli(['set', 'service.region'], withKey, 'eu-west-1\n')).code, 0, 'a value from stdin')
  t.equal((await cli(['set', 'service.region', 'eu-west-1'], withKey)).code, 0)
  const third = readFileSync(file, 'utf8')
  t.notOk(first.includes(SECRET) || third.includes(SECRET), 'values are encrypted')
  t.not(first.split('\n')[1], third.split('\n')[1], 'each write encrypts anew')

  const got = await cli(['get', 'service.api_key'], withKey)
  t.same([got.code, got.stdout], [0, `${SECRET}\n`])
  t.same(await cli(['get', 'service.region'], withKey), { code: 0, stdout: 'eu-west-1\n', stderr: '' })

  const shown = await cli(['show'], withKey)
  t.equal(shown.code, 0)
  t.notOk(shown.stdout.includes(SECRET) || shown.stdout.includes('eu-west-1'), 'show masks every value')
  t.match(shown.stdout, /service:\n {2}api_key: "\*{8}"\n {2}region: "\*{8}"/)
  t.match(shown.stdout, /api_key: ""/, "the template's empty value stays visible")
  const revealed = await cli(['show', '--reveal'], withKey)
  t.match(revealed.stdout, `api_key: ${SECRET}`)

  t.equal((await cli(['unset', 'service.region'], withKey)).code, 0)
  const gone = await cli(['get', 'service.region'], withKey)
  t.same([gone.code, gone.stderr], [1, `CredentialsError: No value at service.region in ${file}\n`])
  t.equal((await cli(['unset', 'service.region'], withKey)).code, 1, 'unset of a missing path says so')

  const edited = await cli(['edit'], { ...withKey, VISUAL: '', EDITOR: editor(dir, 'append', "writeFileSync(file, text + 'webhook:\\n  secret: whsec-edited\\n')") })
  t.same([edited.code, edited.stdout], [0, `Saved ${file}\n`], edited.stderr)
  t.equal((await cli(['get', 'webhook.secret'], withKey)).stdout, 'whsec-edited\n')
  t.equal((await cli(['get', 'service.api_key'], withKey)).stdout, `${SECRET}\n`, 'the rest is kept')
  t.notOk(existsSync(readFileSync(join(dir, 'append.path'), 'utf8')), 'the decrypted copy the editor saw is removed')

  const saved = readFileSync(file, 'utf8')
  const broken = await cli(['edit'], { ...withKey, VISUAL: '', EDITOR: editor(dir, 'broken', "writeFileSync(file, text + 'oops: [unclosed\\n')") })
  t.equal(broken.code, 1)
  t.match(broken.stderr, /^CredentialsError: The edited document is not valid YAML at line \d+, column \d+ \(\w+\); nothing was changed\n$/)
  t.notOk(broken.stderr.includes(SECRET), 'the error quotes no content')
  t.equal(readFileSync(file, 'utf8'), saved, 'an invalid edit leaves the file as it was')
  const untouched = await cli(['edit'], { ...withKey, VISUAL: '', EDITOR: editor(dir, 'noop', '') })
  t.same([untouched.code, untouched.stdout], [0, 'No changes\n'])
  const failing = await cli(['edit'], { ...withKey, VISUAL: '', EDITOR: editor(dir, 'fails', 'process.exit(3)') })
  t.same([failing.code, failing.stderr], [1, 'CredentialsError: The editor exited with 3; nothing was changed\n'])

  t.same(readdirSync(join(dir, 'config/credentials')), ['development.yml.enc'], 'no temp file is left behind')
})

t.test('--env and --file pick the file and the key variable; a wrong key and a modified file are told apart', async (t) => {
  const dir = t.testdir({})
  const cli = (args: string[], env: Record<string, string> = {}) =>
    credentialsCli(args, { cwd: dir, env: { NODE_ENV: 'development', SERVICE_CREDENTIALS_FILE: '', SERVICE_CREDENTIALS_KEY_STAGING: '', ...env } })
  const init = await cli(['init', '--env', 'staging'])
  const file = join(dir, 'config/credentials/staging.yml.enc')
  t.match(init.stdout, `Created ${file}`)
  const key = printedKey(init.stdout, 'SERVICE_CREDENTIALS_KEY_STAGING')
  t.equal((await cli(['set', 'a.b', SECRET, '--env', 'staging'], { SERVICE_CREDENTIALS_KEY_STAGING: key })).code, 0)

  const noKey = await cli(['get', 'a.b', '--env', 'staging'])
  t.same([noKey.code, noKey.stderr], [1, `MissingCredentialError: SERVICE_CREDENTIALS_KEY_STAGING is not set (it holds the key of ${file})\n`])
  const wrongKey = await cli(['get', 'a.b', '--env', 'staging'], { SERVICE_CREDENTIALS_KEY_STAGING: 'ab'.repeat(32) })
  t.same([wrongKey.code, wrongKey.stderr], [1, `WrongCredentialsKeyError: SERVICE_CREDENTIALS_KEY_STAGING does not open ${file}: the file was encrypted with another key\n`])

  const copy = join(dir, 'copy.yml.enc')
  const [header, body] = readFileSync(file, 'utf8').split('\n')
  const bytes = Buffer.from(body, 'base64')
  bytes[bytes.length - 1] ^= 0x80
  writeFileSync(copy, `${header}\n${bytes.toString('base64')}\n`)
  const modified = await cli(['get', 'a.b', '--file', copy, '--env', 'staging'], { SERVICE_CREDENTIALS_KEY_STAGING: key })
  t.same([modified.code, modified.stderr], [1, `TamperedCredentialsError: ${copy} is not a credentials file or was modified since it was written (it failed its integrity check); restore it from version control\n`])
  for (const run of [noKey, wrongKey, modified]) t.notOk(run.stdout.includes(SECRET) || run.stderr.includes(SECRET) || run.stderr.includes(key), 'no secret or key printed')

  const given = await cli(['init', '--env', 'staging', '--file', join(dir, 'second.yml.enc')], { SERVICE_CREDENTIALS_KEY_STAGING: key })
  t.same([given.code, given.stdout], [0, `Created ${join(dir, 'second.yml.enc')}, encrypted with the key in SERVICE_CREDENTIALS_KEY_STAGING.\n`], 'init uses a key already set and does not print it')

  const none = await cli(['show', '--env', 'qa.eu'])
  t.same([none.code, none.stderr], [1, `MissingCredentialError: no credentials file at ${join(dir, 'config/credentials/qa_eu.yml.enc')} (environment qa.eu; SERVICE_CREDENTIALS_FILE overrides the location)\n`],
    'any environment name maps to a file and a variable; a missing file is named before a missing key')

  const usage = await cli(['rotate'])
  t.equal(usage.code, 2)
  t.match(usage.stderr, /^Unknown command: credentials rotate\nUsage: flowport credentials <command>/)
})
