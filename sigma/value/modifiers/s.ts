import { regexFlag } from './regex-flag.js';

/** Also registered as `dotall`. */
export const s = regexFlag('s', 's');
