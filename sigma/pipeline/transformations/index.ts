export { transformations } from './registry.js';
