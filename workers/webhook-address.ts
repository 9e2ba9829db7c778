// WEBHOOK_ALLOWED_HOST_LIST, read as Gitea reads [webhook] ALLOWED_HOST_LIST (modules/hostmatcher):
// comma-separated `external` (public addresses), `private` (RFC 1918 and unique-local), `loopback`,
// `*` (anything), CIDRs, and host-name globs. An address is allowed when the URL's host name matches
// a glob or the address actually connected to matches the rest; the check runs on the resolved
// address, so a name that resolves to a refused address (DNS rebinding) is refused too.
import { BlockList, isIP } from 'node:net';

const RESERVED = [
  '100.64.0.0/10', '168.63.129.16/32', '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24',
  '100::/64', '64:ff9b::/96', '64:ff9b:1::/48', '2001::/32', '2001:10::/28', '2001:20::/28', '2001:db8::/32', '2002::/16',
];
// Not global unicast in Go's sense (net.IP.IsGlobalUnicast), plus 0.0.0.0/8, which reaches this host on Linux.
const NOT_GLOBAL = ['0.0.0.0/8', '127.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '255.255.255.255/32', '::/128', '::1/128', 'fe80::/10', 'ff00::/8'];
const PRIVATE = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];
const LOOPBACK = ['127.0.0.0/8', '::1/128'];

function blockList(cidrs: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net, bits] = cidr.split('/');
    list.addSubnet(net!, Number(bits), isIP(net!) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

const reserved = blockList(RESERVED);
const notGlobal = blockList(NOT_GLOBAL);
const privateNets = blockList(PRIVATE);
const loopback = blockList(LOOPBACK);

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is its IPv4 address, as Go reads it. */
export function normalizeAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Go's path.Match on a lower-cased host name: `*` any run, `?` one character, `[...]` classes. */
function globMatches(pattern: string, name: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\' && i + 1 < pattern.length) re += `\\${pattern[++i]}`;
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) return false;
      re += `[${pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
      i = end;
    } else re += c.replace(/[.+^$(){}|/-]/g, '\\$&');
  }
  try {
    return new RegExp(`^${re}$`).test(name);
  } catch {
    return false;
  }
}

export class HostAllowList {
  private constructor(
    readonly setting: string,
    private readonly builtins: Set<string>,
    private readonly patterns: string[],
    private readonly nets: BlockList,
  ) {}

  static parse(setting: string): HostAllowList {
    const builtins = new Set<string>();
    const patterns: string[] = [];
    const nets = new BlockList();
    const entries = setting.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    // Gitea: an empty setting is `external`.
    for (const entry of entries.length ? entries : ['external']) {
      const [net, bits, extra] = entry.split('/');
      const family = isIP(net ?? '');
      if (family && bits !== undefined && extra === undefined && /^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32)) {
        nets.addSubnet(net!, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
      } else if (entry === 'external' || entry === 'private' || entry === 'loopback') {
        builtins.add(entry);
      } else {
        patterns.push(entry);
      }
    }
    return new HostAllowList(setting, builtins, patterns, nets);
  }

  private matchesAddress(raw: string): boolean {
    if (this.patterns.includes('*')) return true;
    const { address, family } = normalizeAddress(raw);
    const global = !notGlobal.check(address, family) && !reserved.check(address, family);
    const isPrivate = privateNets.check(address, family);
    if (this.builtins.has('external') && global && !isPrivate) return true;
    if (this.builtins.has('private') && global && isPrivate) return true;
    if (this.builtins.has('loopback') && loopback.check(address, family)) return true;
    return this.nets.check(address, family);
  }

  /** Gitea's MatchHostOrIP: the URL's host name by glob, or the address connected to. */
  allows(hostName: string, address: string): boolean {
    const host = hostName.toLowerCase().replace(/^\[|\]$/g, '');
    return this.patterns.some((p) => globMatches(p, host)) || this.patterns.some((p) => globMatches(p, normalizeAddress(address).address))
      || this.matchesAddress(address);
  }
}
