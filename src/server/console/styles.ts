/** The console's stylesheet (served as /console/console.css). */
export const CONSOLE_STYLES = '';
