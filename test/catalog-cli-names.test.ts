/**
 * `flowport catalog` is two commands under one word (docs/any-worker.md): the client's (a catalog's
 * workflows, `catalog <workflow>`) and the catalog files' (`catalog publish|show|remove`, on the
 * engine). The help says both, and errors name which one ran and how to reach the other. No API
 * nor engine is needed: nothing here gets that far.
 */
import t from 'tap'
import { flowport } from './helpers/flowport-cli.js'

t.test('the top-level help names the catalog-file subcommands', async (t) => {
  const { code, stdout } = await flowport(['--help'])
  t.equal(code, 0)
  t.match(stdout, /catalog \[options\] \[workflow\]\s+list the workflows of a catalog, or show one .*catalog publish\|show\|remove: catalog\s+files/)
})

t.test('a subcommand given alone is named with the commands it belongs to', async (t) => {
  const { code, stderr } = await flowport(['show'])
  t.equal(code, 2)
  t.match(stderr, /^Unknown command: show \(a subcommand: flowport schedule show, flowport catalog show\)/)
  const publish = await flowport(['publish'])
  t.match(publish.stderr, /^Unknown command: publish \(a subcommand: flowport catalog publish\)/)
})

t.test('catalog show without an id says it is the catalog-file command, and how to show a workflow named show', async (t) => {
  const { code, stderr } = await flowport(['catalog', 'show'])
  t.equal(code, 2)
  t.match(stderr, /missing required argument 'catalogId'/)
  t.match(stderr, /flowport catalog show is the catalog-file command, on the engine; to show a workflow named show through the API: flowport catalog --catalog <id> show/)
})

t.test('catalog help is the help of both, not a workflow named help', async (t) => {
  const { code, stdout } = await flowport(['catalog', 'help'], { env: { FLOWPORT_URL: 'http://127.0.0.1:9' } })
  t.equal(code, 0)
  t.match(stdout, /Usage: flowport catalog \[options\] \[workflow\]/)
  t.match(stdout, /flowport catalog publish <file> \[--check\]/)
})
