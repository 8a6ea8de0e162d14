import { compare } from './compare.js';

export const gte = compare('gte');
