import { timePart } from './time-part.js';

export const minute = timePart('minute');
