import { regexFlag } from './regex-flag.js';

/** Also registered as `ignorecase`. */
export const i = regexFlag('i', 'i');
