import { timePart } from './time-part.js';

export const week = timePart('week');
