import { compare } from './compare.js';

export const gt = compare('gt');
