/**
 * deploy/docker-compose.yml without a Docker engine: it is a valid Compose file (the Compose
 * Specification's schema, test/fixtures/compose-spec), and it runs what the cluster tests run —
 * the same schema commands, the same `flowport api` / `flowport worker` commands, the same
 * Temporal version and dynamic configuration. The Kubernetes example runs the same commands too.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { parse, parseAllDocuments } from 'yaml'
import { ROLE_COMMANDS, flowportNodeArgs } from '../cli/cluster/topology.js'
import { CLUSTER_DYNAMIC_CONFIG, SCHEMA_COMMANDS } from '../cli/cluster/temporal-server.js'
import { TEMPORAL_SERVER_VERSION } from '../cli/cluster/server-binary.js'
import { VERSITYGW_VERSION } from '../cli/object-store-binary.js'
import { STORE_BUCKET, storeServerArgs } from '../cli/object-store.js'

const compose = parse(readFileSync('deploy/docker-compose.yml', 'utf8'), { merge: true })
const services = compose.services as Record<string, Record<string, any>>

t.test('deploy/docker-compose.yml is a valid Compose file', async (t) => {
  const schema = JSON.parse(readFileSync('test/fixtures/compose-spec/compose-spec.json', 'utf8'))
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  const validate = ajv.compile(schema)
  t.ok(validate(compose), JSON.stringify(validate.errors, null, 2))
  t.same(Object.keys(services).sort(), ['api', 'deliveries', 'postgresql', 'proxy', 'redis', 's3', 's3-bucket', 'temporal', 'temporal-namespace', 'temporal-schema', 'temporal-ui', 'worker'])
  t.equal(services.api.deploy.replicas, 2, 'two API replicas')
  t.equal(services.worker.deploy.replicas, 2, 'two workers')
  t.match(readFileSync('deploy/nginx.conf', 'utf8'), /resolver 127\.0\.0\.11 valid=10s[\s\S]*set \$flowport_api http:\/\/api:3001;[\s\S]*proxy_pass \$flowport_api;[\s\S]*proxy_buffering off;/,
    'the proxy spreads over the replicas, looked up while it runs, and streams SSE unbuffered (test/nginx-config.test.ts runs nginx -t on it)')
})

t.test('the compose services run the commands the cluster tests run', async (t) => {
  t.same(services.api.command, ['node', 'dist/cli/flowport.js', ...ROLE_COMMANDS.api], 'API: flowport api')
  t.same(services.worker.command, ['node', 'dist/cli/flowport.js', ...ROLE_COMMANDS.worker], 'worker: flowport worker')
  t.same(services.deliveries.command, ['node', 'dist/cli/flowport.js', ...ROLE_COMMANDS.deliveries], 'delivery worker: flowport deliveries')
  t.same(services.deliveries.healthcheck.test, services.worker.healthcheck.test, 'probed on its /ready as a worker is')
  t.equal(services.deliveries.environment.SERVICE_WORKER_HEALTH_PORT, services.worker.environment.SERVICE_WORKER_HEALTH_PORT)
  t.match(flowportNodeArgs.at(-1), /cli[/\\]flowport\.ts$/, 'the cluster runs the source of the same entry')
  for (const name of ['api', 'worker', 'deliveries']) t.same(services[name].build, { context: '..', dockerfile: 'Dockerfile' }, `${name} from the project's Dockerfile`)

  const script = services['temporal-schema'].command.at(-1) as string
  t.same(script.split(' && '), SCHEMA_COMMANDS.map((args) => `temporal-sql-tool ${args.join(' ')}`), 'the same schema commands, in the same order')
  t.equal(services['temporal-schema'].environment.SQL_PLUGIN, 'postgres12')

  for (const name of ['temporal', 'temporal-schema', 'temporal-namespace']) {
    t.match(services[name].image, new RegExp(`^temporalio/(server|admin-tools):${TEMPORAL_SERVER_VERSION.replaceAll('.', '\\.')}$`), `${name}: Temporal ${TEMPORAL_SERVER_VERSION}, as the cluster builds`)
  }
  const dynamic = parse(readFileSync('deploy/temporal/dynamicconfig.yaml', 'utf8')) as Record<string, Array<{ value: unknown }>>
  t.same(Object.fromEntries(Object.entries(dynamic).map(([key, [{ value }]]) => [key, value])), CLUSTER_DYNAMIC_CONFIG, 'the same dynamic configuration')
})

/** The store's start: its two data folders, then versitygw with the arguments `npm run cluster` runs. */
const STORE_SCRIPT = 'mkdir -p /data/meta /data/buckets && exec versitygw "$@"'

t.test('compose: one object store, its bucket created first, used by every API replica and worker for traces and payloads', async (t) => {
  const s3 = services.s3
  t.equal(s3.image, `versity/versitygw:v${VERSITYGW_VERSION}`, 'the versitygw release the cluster builds')
  // `$$` is Compose's escape of a literal `$`.
  t.same(s3.entrypoint, ['sh', '-ec', STORE_SCRIPT.replace('$@', () => '$$@'), 'versitygw'])
  t.same(s3.command, storeServerArgs(':7070', '/data'), 'the arguments npm run cluster runs')
  t.same(s3.volumes, ['s3:/data'], 'objects on a named volume')
  // Compose interpolation: the access key defaults, the secret must be set.
  t.match(s3.environment, { ROOT_ACCESS_KEY: /^\$\{FLOWPORT_S3_ACCESS_KEY:-flowport\}$/, ROOT_SECRET_KEY: /^\$\{FLOWPORT_S3_SECRET_KEY:\?/ }, 'keys from the environment, the secret required')
  t.same(services['s3-bucket'].command, ['node', 'dist/cli/flowport.js', 'bucket'], 'a one-shot flowport bucket')
  t.same(services['s3-bucket'].depends_on, { s3: { condition: 'service_healthy' } }, 'once the store answers')
  t.notOk('restart' in services['s3-bucket'], 'not restarted once done')
  // The delivery worker reads and writes payloads through the same claim-check codec.
  for (const name of ['api', 'worker', 'deliveries', 's3-bucket']) {
    t.match(services[name].environment, {
      SERVICE_TRACE_S3_BUCKET: STORE_BUCKET,
      SERVICE_CLOUD_ENDPOINT: /^\$\{FLOWPORT_S3_ENDPOINT:-http:\/\/s3:7070\}$/,
      SERVICE_CLOUD_ACCESS_KEY_ID: s3.environment.ROOT_ACCESS_KEY,
      SERVICE_CLOUD_SECRET_ACCESS_KEY: s3.environment.ROOT_SECRET_KEY
    }, `${name}: the store's bucket, address and keys`)
    t.notOk('SERVICE_TRACE_DIR' in services[name].environment, `${name}: no shared trace volume`)
  }
  for (const name of ['api', 'worker', 'deliveries']) t.same(services[name].depends_on['s3-bucket'], { condition: 'service_completed_successfully' }, `${name} starts once the bucket exists`)

  // Presigned URLs go to clients, outside the Compose network: the API signs them for the port the store publishes.
  const publicEndpoint = /^\$\{FLOWPORT_S3_PUBLIC_ENDPOINT:-(http:\/\/localhost:(\d+))\}$/.exec(services.api.environment.SERVICE_CLOUD_PUBLIC_ENDPOINT ?? '')
  t.ok(publicEndpoint, 'the API names a public endpoint of the store, from FLOWPORT_S3_PUBLIC_ENDPOINT')
  t.ok(s3.ports.includes(`${publicEndpoint?.[2]}:7070`), 'whose default is the port the store publishes on the host')
  for (const name of ['worker', 'deliveries', 's3-bucket']) t.notOk('SERVICE_CLOUD_PUBLIC_ENDPOINT' in services[name].environment, `${name}: presigns nothing`)
})

t.test('the Kubernetes example: two API replicas, two workers and two delivery workers with the same commands', async (t) => {
  const docs = parseAllDocuments(readFileSync('deploy/kubernetes/flowport.yaml', 'utf8')).map((d) => d.toJS() as Record<string, any>)
  // The image's own API command carries a V8 flag; compose and Kubernetes run `flowport api` and pass it through NODE_OPTIONS.
  const imageFlag = /CMD \["node", "(--max-semi-space-size=\d+)", "dist\/server\.js"\]/.exec(readFileSync('Dockerfile', 'utf8'))?.[1]
  t.ok(imageFlag, 'the Dockerfile\'s API command sets --max-semi-space-size')
  // The `flowport` command (npm's bin) sets it in its shebang: `flowport api` starts as the image's API does.
  t.equal(readFileSync('bin/flowport.js', 'utf8').split('\n')[0], `#!/usr/bin/env -S node ${imageFlag}`, 'bin/flowport.js: the image\'s V8 flag')
  const api = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'flowport-api')!
  const env = api.spec.template.spec.containers[0].env as Array<{ name: string, value: string }>
  t.equal(env.find((e) => e.name === 'NODE_OPTIONS')?.value, imageFlag, 'Kubernetes API: the image\'s V8 flag')
  t.equal(services.api.environment.NODE_OPTIONS, imageFlag, 'compose API: the image\'s V8 flag')
  t.same(docs.map((d) => `${d.kind}/${d.metadata.name}`), ['Deployment/flowport-api', 'Service/flowport-api', 'Deployment/flowport-worker', 'Deployment/flowport-deliveries', 'Deployment/flowport-redis', 'Service/flowport-redis',
    'PersistentVolumeClaim/flowport-s3', 'Deployment/flowport-s3', 'Service/flowport-s3'])
  for (const [name, role] of [['flowport-api', 'api'], ['flowport-worker', 'worker'], ['flowport-deliveries', 'deliveries']] as const) {
    const deployment = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === name)!
    t.equal(deployment.spec.replicas, 2, `${name}: two replicas`)
    t.same(deployment.spec.template.spec.containers[0].command, ['node', 'dist/cli/flowport.js', ...ROLE_COMMANDS[role]], `${name}: flowport ${role}`)
    t.same(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels, `${name}: the selector matches its pods`)
  }
})

t.test('shared state: every API replica gets the same run-token secret, the one Redis and the keys file', async (t) => {
  const api = services.api.environment as Record<string, string>
  t.match(api.SERVICE_RUN_TOKEN_SECRETS, /^\$\{SERVICE_RUN_TOKEN_SECRETS:\?.+\}$/, 'compose: one secret for all replicas, required')
  t.equal(api.SERVICE_RATE_LIMIT_REDIS_URL, 'redis://redis:6379', 'compose: the redis service')
  t.match(services.redis.image, /^redis:\d+\.\d+\.\d+-alpine$/, 'compose: Redis pinned')
  t.same(services.api.depends_on.redis, { condition: 'service_healthy' })
  t.match(services.proxy.image, /^nginx:\d+\.\d+\.\d+-alpine$/, 'compose: nginx pinned')

  const docs = parseAllDocuments(readFileSync('deploy/kubernetes/flowport.yaml', 'utf8')).map((d) => d.toJS() as Record<string, any>)
  const pod = docs.find((d) => d.metadata.name === 'flowport-api')!.spec.template.spec
  const container = pod.containers[0]
  const env = Object.fromEntries((container.env as Array<{ name: string, value: string }>).map((e) => [e.name, e.value]))
  t.ok(container.envFrom.some((f: any) => f.secretRef?.name === 'flowport'), 'Kubernetes: the token and the run-token secret from one Secret')
  const redis = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'flowport-redis')!
  t.equal(env.SERVICE_RATE_LIMIT_REDIS_URL, `redis://${redis.metadata.name}:${redis.spec.ports[0].port}`, 'Kubernetes: the Redis Service')
  const mount = container.volumeMounts.find((m: { name: string }) => m.name === 'keys')
  t.equal(mount.subPath, undefined, 'the keys Secret is mounted as a directory (a subPath mount is never updated)')
  t.equal(env.SERVICE_API_KEYS_FILE, `${mount.mountPath}/keys.json`, 'the keys file is the mounted Secret\'s')
  t.same(pod.volumes.find((v: { name: string }) => v.name === 'keys').secret, { secretName: 'flowport-keys' })
})

t.test('Kubernetes: one object store, its bucket created by an init container, its keys from a Secret', async (t) => {
  const docs = parseAllDocuments(readFileSync('deploy/kubernetes/flowport.yaml', 'utf8')).map((d) => d.toJS() as Record<string, any>)
  const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name)!
  const store = find('Deployment', 'flowport-s3').spec.template.spec
  const [s3] = store.containers
  t.equal(s3.image, `versity/versitygw:v${VERSITYGW_VERSION}`)
  t.same(s3.command, ['sh', '-ec', STORE_SCRIPT, 'versitygw'])
  t.same(s3.args, storeServerArgs(':7070', '/data'), 'the arguments npm run cluster runs')
  t.same(s3.env.map((e: any) => [e.name, e.valueFrom.secretKeyRef]), [
    ['ROOT_ACCESS_KEY', { name: 'flowport-store', key: 'SERVICE_CLOUD_ACCESS_KEY_ID' }],
    ['ROOT_SECRET_KEY', { name: 'flowport-store', key: 'SERVICE_CLOUD_SECRET_ACCESS_KEY' }]
  ], 'its keys from the Secret the pods read')
  t.same(store.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'flowport-s3' } }], 'objects on a persistent volume')
  t.same(find('Service', 'flowport-s3').spec.ports, [{ name: 's3', port: 7070, targetPort: 's3' }])
  t.notOk(docs.some((d) => d.kind === 'Secret'), 'no Secret with placeholder values: applying the file again keeps the real ones')

  for (const name of ['flowport-api', 'flowport-worker', 'flowport-deliveries']) {
    const pod = find('Deployment', name).spec.template.spec
    const [init] = pod.initContainers
    t.same(init.command, ['node', 'dist/cli/flowport.js', 'bucket'], `${name}: flowport bucket before it starts`)
    t.equal(init.image, pod.containers[0].image, `${name}: from the same image`)
    for (const container of [init, pod.containers[0]]) {
      const env = Object.fromEntries(container.env.map((e: any) => [e.name, e.value]))
      t.match(env, { SERVICE_TRACE_S3_BUCKET: STORE_BUCKET, SERVICE_CLOUD_ENDPOINT: 'http://flowport-s3:7070' }, `${name}/${container.name}: the store's bucket and address`)
      t.notOk('SERVICE_TRACE_DIR' in env, `${name}/${container.name}: no shared trace volume`)
      t.ok(container.envFrom.some((f: any) => f.secretRef?.name === 'flowport-store'), `${name}/${container.name}: the keys from the Secret`)
    }
  }
  const apiEnv = Object.fromEntries(find('Deployment', 'flowport-api').spec.template.spec.containers[0].env.map((e: any) => [e.name, e.value]))
  t.match(apiEnv.SERVICE_CLOUD_PUBLIC_ENDPOINT, /^https:\/\/\S+$/, 'the API signs presigned URLs for an address outside the cluster')
  t.not(apiEnv.SERVICE_CLOUD_PUBLIC_ENDPOINT, apiEnv.SERVICE_CLOUD_ENDPOINT)
})

/** docs/cluster.md's "Kubernetes" section. */
function kubernetesSection (): string {
  const doc = readFileSync('docs/cluster.md', 'utf8')
  return doc.slice(doc.indexOf('## Kubernetes'), doc.indexOf('\n## ', doc.indexOf('## Kubernetes') + 1))
}

/** The shell block of docs/cluster.md's "Kubernetes" section, its continued lines joined. */
function kubernetesWalkthrough (): string[] {
  const block = /```sh\n([\s\S]*?)```/.exec(kubernetesSection())![1]!
  return block.replace(/\\\n\s*/g, ' ').split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line !== '' && !line.startsWith('#'))
}

t.test('Kubernetes: the walkthrough in docs/cluster.md creates everything the file reads, in order, and counts it right', async (t) => {
  const commands = kubernetesWalkthrough()
  const docs = parseAllDocuments(readFileSync('deploy/kubernetes/flowport.yaml', 'utf8')).map((d) => d.toJS() as Record<string, any>)
  const applyAt = commands.findIndex((c) => c.startsWith('kubectl apply'))
  const apply = commands[applyAt]!
  const namespace = /-n (\S+)/.exec(apply)?.[1]
  t.equal(apply, `kubectl apply -n ${namespace} -f deploy/kubernetes/flowport.yaml`, 'the file is applied to one namespace')
  const created = commands.findIndex((c) => c === `kubectl create namespace ${namespace}`)
  t.ok(created >= 0 && created < applyAt, 'which the walkthrough creates first')

  // Every Secret (and key of one) a pod reads, from envFrom, env valueFrom and volumes.
  const needed = new Map<string, Set<string>>()
  const need = (name: string, key?: string) => { if (!needed.has(name)) needed.set(name, new Set()); if (key) needed.get(name)!.add(key) }
  for (const d of docs.filter((d) => d.kind === 'Deployment')) {
    const pod = d.spec.template.spec
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      for (const from of c.envFrom ?? []) if (from.secretRef) need(from.secretRef.name)
      for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) need(e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key)
    }
    for (const v of pod.volumes ?? []) if (v.secret) need(v.secret.secretName)
  }
  const secrets = new Map<string, { at: number, keys: Set<string>, command: string }>()
  commands.forEach((c, at) => {
    const m = /^kubectl create secret generic (\S+) (.*)$/.exec(c)
    if (!m) return
    const keys = new Set([...m[2]!.matchAll(/--from-literal=([A-Z0-9_]+)=/g)].map((k) => k[1]!))
    for (const f of m[2]!.matchAll(/--from-file=(\S+)/g)) keys.add(f[1]!)
    secrets.set(m[1]!, { at, keys, command: c })
  })
  t.ok(needed.size >= 3, 'the file reads Secrets')
  for (const [name, keys] of needed) {
    const secret = secrets.get(name)
    t.ok(secret, `Secret ${name} is created by the walkthrough`)
    if (!secret) continue
    t.ok(secret.at > created && secret.at < applyAt, `${name}: after the namespace, before the apply`)
    t.match(secret.command, `-n ${namespace} `, `${name}: in that namespace`)
    for (const key of keys) t.ok(secret.keys.has(key), `${name} has the key ${key}`)
  }
  for (const name of ['flowport', 'flowport-store']) t.ok(secrets.get(name)!.keys.size >= 2, `${name}: its settings as literals`)
  t.ok(secrets.get('flowport-keys')!.keys.has('keys.json'), 'the keys file under the name the pods read')

  const images = new Set(docs.filter((d) => d.kind === 'Deployment').flatMap((d) => d.spec.template.spec.containers.map((c: any) => c.image as string)))
  const built = /^docker build -t (\S+) \.$/.exec(commands.find((c) => c.startsWith('docker build')) ?? '')?.[1]
  t.ok(built !== undefined && images.has(built), `the image the walkthrough builds (${built}) is the one the file runs`)
  t.ok(commands.includes(`docker push ${built}`), 'and pushes it')
  const api = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'flowport-api')!
  const publicEndpoint = api.spec.template.spec.containers[0].env.find((e: any) => e.name === 'SERVICE_CLOUD_PUBLIC_ENDPOINT')?.value as string
  t.match(kubernetesSection(), new RegExp(`in place of\\s+(#\\s+)?${publicEndpoint.replaceAll('.', '\\.')} \\(SERVICE_CLOUD_PUBLIC_ENDPOINT\\)`),
    'the walkthrough says to write the store\'s public address in place of the file\'s')

  const count = (kind: string) => docs.filter((d) => d.kind === kind).length
  const said = readFileSync('docs/cluster.md', 'utf8')
  t.match(said, `# 4. Flowport: ${count('Deployment')} Deployments (api, worker, deliveries, redis, s3), ${count('Service')} Services and ${count('PersistentVolumeClaim')} PersistentVolumeClaim.`,
    'the objects are counted right')
})

t.test('the image build context leaves the Compose secrets file out', async (t) => {
  const ignored = readFileSync('.dockerignore', 'utf8').split('\n').map((l) => l.trim())
  t.ok(ignored.includes('deploy/flowport.env'), 'deploy/flowport.env never enters the build context')
  t.ok(ignored.includes('**/*.env'), 'nor any other .env file')
})
