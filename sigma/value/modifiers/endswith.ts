import { openEnds } from './open-ends.js';

export const endswith = openEnds('endswith', true, false);
