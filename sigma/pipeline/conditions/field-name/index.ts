import * as excludeFields from './exclude-fields.js';
import * as includeFields from './include-fields.js';
import * as processingItemApplied from './processing-item-applied.js';

export { excludeFields, includeFields, processingItemApplied };
