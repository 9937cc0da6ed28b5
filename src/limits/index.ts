export * from './budget.js';
export * from './settings.js';
export * from './json-text.js';
