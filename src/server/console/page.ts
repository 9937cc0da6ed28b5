/** The console's one HTML page: the shell its modules (src/console) fill in. No inline script or style (CSP). */
export const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>flowmark console</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="console.css">
<script type="module" src="main.js"></script>
</head>
<body>
<noscript>The flowmark console needs JavaScript.</noscript>
<div id="app" class="app" aria-live="polite"></div>
</body>
</html>
`;
