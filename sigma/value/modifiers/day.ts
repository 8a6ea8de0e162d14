import { timePart } from './time-part.js';

export const day = timePart('day');
