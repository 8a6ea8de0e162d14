import { utf16Encoding } from './utf16-encoding.js';

export const utf16 = utf16Encoding('utf16', 'le', true);
