/**
 * Which webhook destinations are refused: loopback (unless allowed, as in development), link-local
 * and the cloud metadata endpoints (unless allowed). The API checks the URL's host before it starts
 * anything; the delivering worker checks every address the host resolves to, right before it
 * connects to it (a name can resolve elsewhere later).
 */
import { isIP } from 'node:net'

export interface AddressPolicy {
  allowLoopback: boolean
  /** Link-local addresses, which include the cloud metadata endpoints. */
  allowLinkLocal: boolean
}

/** Metadata services outside the link-local ranges, and the names they go by. */
const METADATA_ADDRESSES = new Set(['100.100.100.200', 'fd00:ec2::254'])
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.azure.internal', 'instance-data', 'instance-data.ec2.internal'])

function ipv4Kind (ip: string): 'loopback' | 'link-local' | 'metadata' | 'other' {
  if (METADATA_ADDRESSES.has(ip)) return 'metadata'
  const [a, b] = ip.split('.').map(Number)
  if (a === 127 || a === 0) return 'loopback'
  if (a === 169 && b === 254) return 'link-local'
  return 'other'
}

function ipv6Kind (ip: string): 'loopback' | 'link-local' | 'metadata' | 'other' {
  const lower = ip.toLowerCase()
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  if (mapped) return ipv4Kind(mapped[1])
  // The WHATWG URL parser writes an IPv4-mapped address in hex: [::ffff:7f00:1].
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower)
  if (hex) {
    const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)]
    return ipv4Kind(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`)
  }
  if (lower === '::1' || lower === '::') return 'loopback'
  if (METADATA_ADDRESSES.has(lower)) return 'metadata'
  if (/^fe[89ab][0-9a-f]?:/.test(lower)) return 'link-local'
  return 'other'
}

/** Why a host name or IP address is refused under `policy`, or undefined when it is allowed. */
export function refusalOf (host: string, policy: AddressPolicy): string | undefined {
  const bare = host.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  const version = isIP(bare)
  const kind = version === 4
    ? ipv4Kind(bare)
    : version === 6
      ? ipv6Kind(bare)
      : bare === 'localhost' || bare.endsWith('.localhost')
        ? 'loopback'
        : METADATA_NAMES.has(bare) ? 'metadata' : 'other'
  if (kind === 'loopback' && !policy.allowLoopback) return `${host} is a loopback address (allowed only with SERVICE_WEBHOOK_ALLOW_LOOPBACK=true)`
  if ((kind === 'link-local' || kind === 'metadata') && !policy.allowLinkLocal) {
    return `${host} is a link-local or cloud metadata address (allowed only with SERVICE_WEBHOOK_ALLOW_LINK_LOCAL=true)`
  }
  return undefined
}
