import type { Subnet } from '../../domain/aws.ts';

/**
 * What a failed call's Go error says about where the network path broke. The strings are Go's own
 * (net.DNSError, net.OpError, net/http's `proxyconnect`), which Karpenter wraps unchanged:
 * - `dial tcp: lookup sts.us-east-1.amazonaws.com: i/o timeout`: the name never resolved, so no
 *   connection was even tried: DNS, not routing (Karpenter's troubleshooting guide, "Failed
 *   Resolving STS Credentials with I/O Timeout");
 * - `lookup … on 172.20.0.10:53: no such host` / `server misbehaving`: a resolver answered, with
 *   NXDOMAIN or SERVFAIL;
 * - `dial tcp 10.188.214.212:443: i/o timeout`: the name resolved to a private (VPC) address, the
 *   one an interface endpoint's private DNS gives: the endpoint exists and something filters it;
 * - `dial tcp 52.95.84.35:443: i/o timeout`: a public address: no endpoint answered for the name and
 *   the subnets have no route out;
 * - `proxyconnect tcp: dial tcp …`: the address is the proxy's, which says nothing of AWS's.
 * See docs/findings.md, KARPENTER_CONTROLLER_UNHEALTHY.
 */
export type NetworkFailure =
  | { kind: 'dns'; host: string; answer: DnsAnswer }
  | { kind: 'private-address'; address: string; subnet: Subnet | undefined }
  | { kind: 'public-address'; address: string }
  | { kind: 'unknown' };

/** `none`: the lookup timed out or was refused; `nxdomain`: `no such host`; `servfail`: `server misbehaving`. */
export type DnsAnswer = 'none' | 'nxdomain' | 'servfail';

const LOOKUP = /\blookup ([A-Za-z0-9.-]+?)(?: on \S+?)?: ([^"\n]*)/;
const PROXY = /\bproxyconnect tcp\b/;
const DIAL_ADDRESS = /\bdial tcp (\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}):\d+: /;

export function networkFailure(text: string, subnets: readonly Subnet[]): NetworkFailure {
  // A proxy's own address and lookups are the proxy's: nothing here tells which path to AWS failed.
  if (PROXY.test(text)) return { kind: 'unknown' };
  const lookup = LOOKUP.exec(text);
  if (lookup) {
    const [, host = '', rest = ''] = lookup;
    const answer: DnsAnswer = /no such host/.test(rest) ? 'nxdomain' : /server misbehaving/.test(rest) ? 'servfail' : 'none';
    return { kind: 'dns', host: host.replace(/\.$/, ''), answer };
  }
  const address = DIAL_ADDRESS.exec(text)?.[1];
  if (!address) return { kind: 'unknown' };
  const subnet = subnets.find((s) => s.cidrBlock !== undefined && inCidr(address, s.cidrBlock));
  if (subnet || isPrivateIpv4(address)) return { kind: 'private-address', address, subnet };
  return { kind: 'public-address', address };
}

/**
 * The ranges a VPC takes its IPv4 CIDRs from besides publicly routable ones: RFC 1918, and
 * 100.64.0.0/10 and 198.19.0.0/16, which AWS also allows (often as the secondary, pod CIDR).
 */
const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '198.19.0.0/16'];

function isPrivateIpv4(address: string): boolean {
  return PRIVATE_RANGES.some((range) => inCidr(address, range));
}

function ipv4(address: string): number | undefined {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + p, 0);
}

function inCidr(address: string, cidr: string): boolean {
  const [base = '', bitsText = ''] = cidr.split('/');
  const [a, b, bits] = [ipv4(address), ipv4(base), Number(bitsText)];
  if (a === undefined || b === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const size = 2 ** (32 - bits);
  return Math.floor(a / size) === Math.floor(b / size);
}
