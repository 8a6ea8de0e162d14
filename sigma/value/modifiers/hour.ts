import { timePart } from './time-part.js';

export const hour = timePart('hour');
