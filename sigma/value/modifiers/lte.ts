import { compare } from './compare.js';

export const lte = compare('lte');
