import { utf16Encoding } from './utf16-encoding.js';

export const utf16be = utf16Encoding('utf16be', 'be', false);
