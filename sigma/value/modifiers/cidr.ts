import { ofKind, type ChainOfKind } from '../chain-value.js';
import { formatIpNetwork, hasHostBits, maskNetwork, parseIpNetwork } from '../ip-network.js';
import { modifierError, type ValueModifier } from '../modifier.js';
import { literalText } from '../sigma-string.js';

/**
 * `cidr` (§3.3.8): an IPv4/IPv6 network or a bare address (a host network). Host bits set are cleared
 * with a warning rather than rejected.
 */
export const cidr: ValueModifier<ChainOfKind<'string'>> = {
  kind: 'value',
  name: 'cidr',
  acceptsLabel: 'string',
  mustBeFirst: true,
  accepts: ofKind('string'),
  apply(v, ctx) {
    const text = v.source ?? literalText(v.parts) ?? '';
    const net = parseIpNetwork(text.trim());
    if (!net) throw modifierError('InvalidCidr', `modifier '${ctx.name}': '${text}' is not an IP network or address`, ctx.loc);
    if (!hasHostBits(net)) return { kind: 'cidr', network: formatIpNetwork(net) };
    const network = formatIpNetwork(maskNetwork(net));
    ctx.warn('CidrHostBits', `modifier '${ctx.name}': '${text}' has host bits set, using ${network}`);
    return { kind: 'cidr', network };
  },
};
