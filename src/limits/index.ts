export * from './budget.js';
export * from './settings.js';
