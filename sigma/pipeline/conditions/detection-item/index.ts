import * as containsWildcard from './contains-wildcard.js';
import * as isNull from './is-null.js';
import * as matchString from './match-string.js';
import * as matchValue from './match-value.js';
import * as processingItemApplied from './processing-item-applied.js';

export { containsWildcard, isNull, matchString, matchValue, processingItemApplied };
