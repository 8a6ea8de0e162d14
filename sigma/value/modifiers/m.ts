import { regexFlag } from './regex-flag.js';

/** Also registered as `multiline`. */
export const m = regexFlag('m', 'm');
