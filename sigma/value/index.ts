export { buildDetectionItem, type BuiltItem } from './build-detection-item.js';
export { hasWildcards, literalParts, literalText, normaliseParts, parseSigmaString, printSigmaString } from './sigma-string.js';
export { parsePlaceholders } from './placeholders.js';
export {   WINDASH_CHARS } from './windash.js';
export { base64OffsetFragments, encodeBase64 } from './base64.js';
export { formatIpAddress, formatIpNetwork, networkContains, parseIpAddress, parseIpNetwork, type IpNetwork } from './ip-network.js';
export { isModifierName, lookupModifier, MODIFIER_NAMES, MODIFIERS } from './registry.js';
