import { openEnds } from './open-ends.js';

export const contains = openEnds('contains', true, true);
