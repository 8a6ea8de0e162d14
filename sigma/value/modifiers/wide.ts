import { utf16Encoding } from './utf16-encoding.js';

/** Also registered as `utf16le`, its spec name. */
export const wide = utf16Encoding('wide', 'le', false);
