import { openEnds } from './open-ends.js';

export const startswith = openEnds('startswith', false, true);
