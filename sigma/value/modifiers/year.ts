import { timePart } from './time-part.js';

export const year = timePart('year');
