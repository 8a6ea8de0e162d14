import { compare } from './compare.js';

export const lt = compare('lt');
