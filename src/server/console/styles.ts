/** The console's stylesheet (served as /console/console.css; a module so the build carries it). */
export const CONSOLE_STYLES = `
:root {
  --bg: #f6f7f9; --panel: #fff; --text: #1d2430; --muted: #5b6472; --line: #d5d9e0;
  --accent: #1f5fbf; --accent-text: #fff; --error: #b3261e; --error-bg: #fdecea; --ok: #1e6b3a;
  --code-bg: #fbfbfd; --mark: #fff1c2;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
  color-scheme: light;
}
* { box-sizing: border-box; }
html, body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #7aa7f0; outline-offset: 1px; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.25rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.skip { position: absolute; left: -999px; top: 0; background: var(--panel); padding: .5rem; }
.skip:focus { left: .5rem; z-index: 10; }

header.top { display: flex; align-items: center; gap: 1rem; padding: .5rem 1rem; background: #14233d; color: #fff; }
header.top .brand { font-weight: 700; letter-spacing: .02em; }
header.top nav ul { display: flex; gap: 0; list-style: none; margin: 0; padding: 0; flex-wrap: wrap; }
header.top nav a { color: #dbe6ff; text-decoration: none; padding: .3rem .4rem; border-radius: 4px; display: inline-block; font-size: .84rem; white-space: nowrap; }
header.top nav a:hover { background: #22365b; }
header.top nav a[aria-current="page"] { background: #fff; color: #14233d; font-weight: 600; }
header.top .who { margin-left: auto; font-size: .8rem; max-width: 10rem; text-align: right; }
/* A phone: the navigation is one row that scrolls sideways under the brand and the user. */
@media (max-width: 700px) {
  header.top { flex-wrap: wrap; gap: .4rem 1rem; }
  header.top nav { order: 3; flex-basis: 100%; overflow-x: auto; }
  header.top nav ul { flex-wrap: nowrap; }
  /* a table wider than the screen scrolls in its own box, not the page */
  table { display: block; overflow-x: auto; }
  main { padding: 1rem .75rem; }
}
header.top .who .link { color: #dbe6ff; }
main { padding: 1.25rem; max-width: 1500px; margin: 0 auto; }
main:focus { outline: none; }
main.center { display: grid; place-items: center; min-height: 100vh; }
main.loading { visibility: hidden; }
.loading-note { position: absolute; left: 0; right: 0; max-width: 1500px; margin: 1.25rem auto 0; padding: 0 1.25rem; }

form.login { background: var(--panel); padding: 2rem; border: 1px solid var(--line); border-radius: 8px; width: min(24rem, 92vw); }
form.login button { width: 100%; margin-top: .5rem; }

.field { display: flex; flex-direction: column; gap: .2rem; margin: 0 0 .6rem; }
.field label { font-weight: 600; font-size: .9rem; }
.field.checkbox { flex-direction: row; align-items: center; align-self: end; }
.field.checkbox label { font-weight: 400; }
.hint { color: var(--muted); font-size: .8rem; }
input, select, textarea, button { font: inherit; color: inherit; }
input:not([type="checkbox"]), select, textarea { padding: .35rem .5rem; border: 1px solid #aab1bd; border-radius: 4px; background: #fff; }
textarea.json { font-family: var(--mono); font-size: .85rem; width: 100%; }
button { padding: .35rem .8rem; border: 1px solid #8f98a6; border-radius: 4px; background: #fff; cursor: pointer; }
button:hover { background: #eef1f6; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); }
button.primary:hover { background: #184c99; }
button:disabled { opacity: .55; cursor: default; }
button.link { border: none; background: none; padding: 0; color: var(--accent); text-decoration: underline; cursor: pointer; }
button.link.danger { color: var(--error); }
.row, form.inline { display: flex; flex-wrap: wrap; gap: .75rem; align-items: end; }
form.inline { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; margin: 0 0 1rem; }
form.inline .field, .row .field { margin: 0; }
.row { margin: 0 0 .6rem; }

.message { margin: .4rem 0; min-height: 1.2em; }
.message.ok { color: var(--ok); }
.message.error, .eval-error { color: var(--error); }
.eval-error:not(:empty) { background: var(--error-bg); border: 1px solid #f0b8b3; border-radius: 4px; padding: .5rem .75rem; margin: .4rem 0; }
.error-message { white-space: pre-wrap; }
.error-position { border: none; background: none; padding: 0; color: var(--error); font-weight: 700; text-decoration: underline; cursor: pointer; }

table { border-collapse: collapse; width: 100%; background: var(--panel); border: 1px solid var(--line); margin: 0 0 1rem; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef1f6; font-size: .85rem; }
td.empty { color: var(--muted); font-style: italic; }
.detail { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .25rem 1rem 1rem; margin-top: 1rem; }
.detail:empty { display: none; }
.sub { margin-top: 1rem; }
.meta { color: var(--muted); font-size: .9rem; }
.page-info { color: var(--muted); align-self: center; }
pre.output, pre.document { font-family: var(--mono); font-size: .85rem; background: var(--code-bg); border: 1px solid var(--line); border-radius: 4px; padding: .6rem; margin: .3rem 0; overflow: auto; white-space: pre-wrap; }
pre.output { min-height: 8rem; }
pre.output.small { min-height: 0; max-height: 16rem; }
.level-severe { color: var(--error); font-weight: 700; }
.level-warning { color: #8a5300; font-weight: 700; }
ul.logs { font-family: var(--mono); font-size: .85rem; padding-left: 1.2rem; }
.history { margin-top: 1rem; }
pre.diff { font-family: var(--mono); font-size: .85rem; background: var(--code-bg); border: 1px solid var(--line); border-radius: 4px; padding: .6rem; overflow: auto; white-space: pre-wrap; }
pre.diff .diff-removed { background: #fde2e2; color: #8a1010; }
pre.diff .diff-added { background: #dff5e1; color: #0f5c1a; }

.playground { display: grid; grid-template-columns: minmax(0, 1.2fr) minmax(0, 1fr); gap: 1rem; align-items: start; }
.playground .pane { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; min-width: 0; }
.playground .pane-title { display: block; font-weight: 700; font-size: 1rem; margin: 0 0 .4rem; }
.playground .reference { grid-column: 1 / -1; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; display: grid; grid-template-columns: minmax(12rem, 20rem) minmax(0, 1fr); gap: .25rem 1rem; }
.playground .reference h2, .playground .reference > .field { grid-column: 1 / -1; margin-top: 0; }
.function-list { list-style: none; padding: 0; margin: 0; max-height: 22rem; overflow: auto; border: 1px solid var(--line); border-radius: 4px; }
.function-list > li { padding: .25rem .5rem; }
.function-list .group { font-weight: 700; font-size: .8rem; color: var(--muted); text-transform: uppercase; }
.function-list ul { list-style: none; padding-left: .5rem; margin: 0; }
.function-details .signature { display: block; font-family: var(--mono); background: var(--code-bg); padding: .3rem .5rem; border-radius: 4px; margin: .3rem 0; white-space: pre-wrap; }
.function-details dt { font-family: var(--mono); font-size: .85rem; margin-top: .2rem; }
.function-details dd { margin: 0 0 .2rem 1rem; color: var(--muted); }
@media (max-width: 900px) { .playground, .playground .reference { grid-template-columns: 1fr; } }

.editor { position: relative; display: flex; border: 1px solid #aab1bd; border-radius: 4px; background: var(--code-bg); height: 22rem; overflow: hidden; }
.editor:focus-within { outline: 3px solid #7aa7f0; }
.editor-gutter, .editor-highlight, .editor-input { margin: 0; font-family: var(--mono); font-size: 13px; line-height: 20px; padding: 8px; tab-size: 2; }
.editor-gutter { color: #8a93a3; text-align: right; min-width: 3rem; border-right: 1px solid var(--line); overflow: hidden; user-select: none; background: #f1f3f7; }
.editor-gutter .gutter-error { color: var(--error); font-weight: 700; }
.editor-body { position: relative; flex: 1; min-width: 0; }
.editor-highlight { position: absolute; inset: 0; overflow: hidden; white-space: pre; pointer-events: none; color: var(--text); }
.editor-input { position: absolute; inset: 0; width: 100%; height: 100%; resize: none; border: none; outline: none; background: transparent; color: transparent; caret-color: var(--text); white-space: pre; overflow: auto; }
.editor-input::selection { background: rgba(31, 95, 191, .25); color: transparent; }
.editor-highlight code { position: relative; }
.editor .error-line { position: absolute; left: 0; right: 0; height: 20px; background: var(--error-bg); border-left: 3px solid var(--error); }
.editor-probe { position: absolute; visibility: hidden; white-space: pre; }
.editor-overlay { position: absolute; inset: 0; pointer-events: none; }
.tok-comment { color: #6a737d; font-style: italic; }
.tok-tag { color: #8250df; font-weight: 600; }
.tok-interpolation { color: #b35900; font-weight: 600; }
.tok-string { color: #0a7d33; }
.tok-number { color: #0b5cad; }
.tok-keyword { color: #a3114d; }
.tok-builtin { color: #0e7490; }
.tok-function { color: #1f5fbf; font-weight: 600; }
.tok-operator { color: #57606a; }
.completion { position: absolute; pointer-events: auto; list-style: none; margin: 0; padding: .2rem 0; background: #fff; border: 1px solid #8f98a6; border-radius: 4px; box-shadow: 0 4px 14px rgba(0,0,0,.18); min-width: 16rem; max-height: 14rem; overflow: auto; z-index: 5; font-size: .9rem; }
.completion li { display: flex; justify-content: space-between; gap: 1rem; padding: .15rem .6rem; cursor: pointer; }
.completion li[aria-selected="true"] { background: var(--accent); color: #fff; }
.completion-name { font-family: var(--mono); }
.completion-group { color: inherit; opacity: .7; font-size: .8rem; }
/* Users, lanes and pools, API tokens */
.tag { display: inline-block; padding: 0 .4rem; border-radius: 3px; font-size: .8rem; background: #eef1f6; border: 1px solid var(--line); }
.tag.status-active { color: var(--ok); border-color: #9fd1b0; background: #eaf6ee; }
.tag.status-blocked { color: #fff; background: #3a3f47; border-color: #3a3f47; }
.tag.kind-runtime { color: #0b5cad; border-color: #a9c6ec; background: #edf4fd; }
.tag.kind-organisation { color: #8250df; border-color: #cfbdf2; background: #f5f0fe; }
button.danger { border-color: var(--error); color: var(--error); }
button.danger:hover { background: var(--error-bg); }
.pager { align-items: center; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .5rem 0 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
dl.facts code { white-space: pre-wrap; font-family: var(--mono); font-size: .85rem; }
.note { background: #fff8e1; border: 1px solid #f0d58a; border-radius: 4px; padding: .5rem .75rem; }
.note:empty { display: none; }
.organisation { display: grid; grid-template-columns: minmax(16rem, 24rem) minmax(0, 1fr); gap: 1rem; align-items: start; }
.organisation .detail { margin-top: 0; }
.tree-panel { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .25rem 1rem 1rem; }
ul.tree, ul.tree ul { list-style: none; margin: 0; padding-left: 1.1rem; }
ul.tree { padding-left: 0; }
ul.tree ul { border-left: 1px dotted #aab1bd; margin-left: .3rem; }
ul.tree li { margin: .25rem 0; }
ul.tree .pool-name { font-weight: 700; }
ul.tree button[aria-current] { font-weight: 700; text-decoration: none; background: var(--mark); }
.secret-panel:not(:empty) { background: var(--panel); border: 2px solid var(--accent); border-radius: 6px; padding: .25rem 1rem .75rem; margin: 0 0 1rem; }
.secret-panel .field { flex: 1; }
input.token-value { font-family: var(--mono); width: 100%; min-width: 32rem; }
@media (max-width: 900px) { .organisation { grid-template-columns: 1fr; } input.token-value { min-width: 0; } }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .5rem 0 1rem; }
dl.facts dt { font-weight: 600; color: var(--muted); }
dl.facts dd { margin: 0; }
.status-201 { color: var(--ok); font-weight: 700; }
.status-301, .status-302, .status-400, .status-401, .step-failed { color: var(--error); font-weight: 700; }
.status-102, .step-waiting { color: #8a5300; font-weight: 700; }
form.task { background: #f3f7fd; border: 1px solid #b9cdee; border-radius: 6px; padding: .25rem 1rem .75rem; }
button.danger { color: var(--error); border-color: var(--error); }
.error-path { font-family: var(--mono); font-weight: 700; }
ul.errors { margin: 0; padding-left: 1.1rem; }
.progress { display: flex; align-items: center; gap: .5rem; }
.progress[hidden] { display: none; }
.progress progress { width: 16rem; }
body.task-page main { max-width: 40rem; }
body.task-page form.task-form { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 1rem; }
dl.task-data { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dl.task-data dt { font-weight: 600; }
dl.task-data dd { margin: 0; white-space: pre-wrap; word-break: break-word; }
/* The process diagram (bpmn-js) and its tabs. */
.tabs { display: flex; gap: .25rem; border-bottom: 1px solid var(--line); margin: .5rem 0; }
.tabs [role="tab"] { border: 1px solid var(--line); border-bottom: none; border-radius: 4px 4px 0 0; background: var(--bg); padding: .3rem .8rem; cursor: pointer; }
.tabs [role="tab"][aria-selected="true"] { background: var(--panel); font-weight: 600; }
.diagram-canvas { height: 480px; border: 1px solid var(--line); border-radius: 4px; background: #fff; position: relative; }
.diagram-canvas.small { height: 360px; }
.findings-list { margin: .25rem 0; padding-left: 1.2rem; font-size: .9rem; }
.finding.subset { color: var(--error); }
.properties fieldset { border: 1px solid var(--line); border-radius: 4px; margin: .5rem 0; }
.properties .variables .row { align-items: center; margin: .2rem 0; }
.properties textarea.condition, .properties input.template { font-family: ui-monospace, monospace; width: 100%; max-width: 40rem; }
.djs-element.flagged .djs-visual > :nth-child(1) { stroke: var(--error) !important; stroke-width: 3px !important; }
.djs-element.node-done .djs-visual > :nth-child(1) { fill: #dff3e4 !important; stroke: #1e6b3a !important; }
.djs-element.node-waiting .djs-visual > :nth-child(1), .djs-element.node-running .djs-visual > :nth-child(1) { fill: #fff4cc !important; stroke: #a06800 !important; }
.djs-element.node-failed .djs-visual > :nth-child(1) { fill: #fdecea !important; stroke: var(--error) !important; }
.djs-element.node-skipped .djs-visual > :nth-child(1) { fill: #eceef1 !important; stroke: #8a929e !important; stroke-dasharray: 4 3; }
.node-badge { font: 11px/1.3 system-ui, sans-serif; white-space: nowrap; padding: 1px 5px; border-radius: 8px; border: 1px solid var(--line); background: #fff; }
.node-badge.node-done { color: var(--ok); border-color: #9cc9a9; }
.node-badge.node-waiting, .node-badge.node-running { color: #7a5000; border-color: #e3c36b; }
.node-badge.node-failed { color: var(--error); border-color: #f0b8b3; cursor: pointer; }
.node-badge.node-skipped { color: var(--muted); }
.diagram-legend { display: flex; gap: .5rem; flex-wrap: wrap; margin: .3rem 0; }
tr.highlighted td { background: var(--mark); }
`;
