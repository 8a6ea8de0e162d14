import { timePart } from './time-part.js';

export const month = timePart('month');
