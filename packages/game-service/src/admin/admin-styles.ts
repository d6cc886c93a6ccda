/** The admin pages' one stylesheet, served from /admin/assets/admin.css (no external requests). */
export const adminStylesheet = `
:root { --ink:#1d2330; --muted:#5b6475; --line:#dfe3ea; --bg:#f6f7f9; --card:#fff; --accent:#2855d8; --bad:#b42318; --good:#1a7f37; --warn:#9a6700; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--ink); background:var(--bg); }
a { color:var(--accent); }
header.top { display:flex; flex-wrap:wrap; align-items:center; gap:.5rem 1.5rem; padding:.75rem 1.25rem; background:var(--ink); color:#fff; }
header.top a { color:#fff; text-decoration:none; opacity:.85; }
header.top a:hover, header.top a[aria-current="page"] { opacity:1; text-decoration:underline; }
header.top .brand { font-weight:700; opacity:1; margin-right:auto; }
header.top form { margin:0; }
header.top button { background:transparent; color:#fff; border:1px solid #fff6; }
main { max-width:1320px; margin:0 auto; padding:1.25rem; }
h1 { font-size:1.5rem; margin:.25rem 0 1rem; }
h2 { font-size:1.15rem; margin:1.5rem 0 .5rem; }
.card > h2:first-child { margin-top:0; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:1rem; margin-bottom:1rem; overflow-x:auto; }
.tiles { display:grid; grid-template-columns:repeat(auto-fit,minmax(160px,1fr)); gap:.75rem; margin-bottom:1rem; }
.tile { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:.75rem 1rem; }
.tile .label { color:var(--muted); font-size:.85rem; }
.tile { min-width:0; }
.tile .value { font-size:1.6rem; font-weight:650; overflow-wrap:anywhere; }
table { border-collapse:collapse; width:100%; }
th, td { text-align:left; padding:.4rem .6rem; border-bottom:1px solid var(--line); vertical-align:top; }
th { color:var(--muted); font-weight:600; font-size:.85rem; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
code, pre, textarea { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:.85rem; }
pre { background:var(--bg); padding:.5rem; border-radius:6px; overflow-x:auto; max-height:24rem; margin:0; }
textarea { width:100%; min-height:28rem; padding:.6rem; border:1px solid var(--line); border-radius:6px; }
label { display:block; margin:.5rem 0 .2rem; font-weight:600; }
input[type=text], input[type=email], input[type=password], select { width:100%; max-width:28rem; padding:.45rem .6rem; border:1px solid var(--line); border-radius:6px; font:inherit; }
button { font:inherit; padding:.45rem .9rem; border-radius:6px; border:1px solid var(--accent); background:var(--accent); color:#fff; cursor:pointer; }
form.inline { display:flex; flex-wrap:wrap; gap:.5rem; align-items:end; }
form.inline label { margin:0; }
.muted { color:var(--muted); }
.badge { display:inline-block; padding:0 .5rem; border-radius:999px; font-size:.8rem; border:1px solid currentColor; }
.badge.accepted, .badge.ok { color:var(--good); } .badge.rejected, .badge.failing { color:var(--bad); } .badge.flagged { color:var(--warn); }
.notice { padding:.6rem .8rem; border-radius:6px; margin-bottom:1rem; border:1px solid; }
.notice.error { color:var(--bad); background:#fef3f2; } .notice.success { color:var(--good); background:#effaf1; }
ul.problems { margin:.25rem 0 0; padding-left:1.25rem; }
.narrow { max-width:30rem; margin:2rem auto; }
.tile .value.small { font-size:1rem; font-weight:500; overflow-wrap:anywhere; }
form.inline { margin:.25rem 0 .75rem; }
form.inline .grow { flex:1 1 18rem; }
form.inline.compact { margin:0; gap:.3rem; flex-wrap:nowrap; }
form.inline.compact input[type=text] { width:9rem; padding:.3rem .45rem; }
form.inline.compact button { padding:.3rem .6rem; }
label.check { display:flex; gap:.35rem; align-items:center; font-weight:500; margin:0 0 .5rem; }
input[type=datetime-local] { padding:.4rem .5rem; border:1px solid var(--line); border-radius:6px; font:inherit; }
button.danger { background:var(--bad); border-color:var(--bad); }
table.audit code { white-space:pre-wrap; overflow-wrap:anywhere; font-size:.78rem; }
time { white-space:nowrap; }
pre.diff { max-height:32rem; padding:.5rem 0; }
pre.diff span { display:block; padding:0 .6rem; white-space:pre; }
pre.diff .add { background:#e6f4ea; color:#0f5323; } pre.diff .del { background:#fdecea; color:#8a1c12; }
pre.diff .hunk { color:var(--muted); background:#eef1f6; margin-top:.25rem; }
.diff-count.add { color:var(--good); font-weight:600; } .diff-count.del { color:var(--bad); font-weight:600; }
button.secondary { background:transparent; color:var(--accent); }
p.buttons { display:flex; flex-wrap:wrap; gap:.5rem; }
table.history td.actions { white-space:nowrap; }
table.history td.actions form { display:inline; margin-left:.5rem; }
table.history td.actions button { padding:.25rem .6rem; }
ul.changes { margin:0; padding-left:1.1rem; }
table.runs td { overflow-wrap:anywhere; }
table.runs td:nth-child(-n+4) { white-space:nowrap; }
table.runs td.evidence { width:18rem; }
table.runs details pre { white-space:pre-wrap; overflow-wrap:anywhere; max-width:18rem; }
.charts { display:grid; grid-template-columns:repeat(auto-fit,minmax(min(100%,420px),1fr)); gap:0 1rem; }
figure.chart-card { margin:0 0 1rem; min-width:0; }
figure.chart-card h2 { margin:0 0 .25rem; }
ul.legend { display:flex; flex-wrap:wrap; gap:.25rem 1rem; list-style:none; margin:0 0 .5rem; padding:0; font-size:.85rem; }
.swatch { display:inline-block; width:.8rem; height:.8rem; border-radius:2px; margin-right:.35rem; vertical-align:-.1rem; }
.swatch.total { background:var(--accent); } .swatch.accepted { background:var(--good); } .swatch.rejected { background:var(--bad); } .swatch.flagged { background:var(--warn); }
svg.chart { display:block; width:100%; height:auto; font-family:inherit; }
svg.chart text { font-size:15px; fill:var(--muted); font-variant-numeric:tabular-nums; }
svg.chart .y-label { text-anchor:end; dominant-baseline:middle; }
svg.chart .x-label { text-anchor:middle; }
svg.chart .grid { stroke:var(--line); } svg.chart .grid.axis, svg.chart .tick { stroke:var(--muted); }
svg.chart .bar { fill:var(--accent); }
svg.chart .line { fill:none; stroke-width:2.5; stroke-linejoin:round; }
svg.chart .line.accepted { stroke:var(--good); } svg.chart .line.rejected { stroke:var(--bad); } svg.chart .line.flagged { stroke:var(--warn); stroke-dasharray:6 3; }
svg.chart .hover { fill:transparent; } svg.chart .hover:hover { fill:#2855d81a; }
.chart-caption { font-size:.8rem; margin:.35rem 0 0; }
@media (max-width:640px) {
  table.stack, table.stack tbody, table.stack tr, table.stack td { display:block; width:auto; }
  table.stack thead { display:none; }
  table.stack tr { border-bottom:1px solid var(--line); padding:.4rem 0; }
  table.stack td, table.stack td:nth-child(-n+4) { border:0; padding:.1rem 0; text-align:left; white-space:normal; overflow-wrap:anywhere; }
  table.stack td::before { content:attr(data-label); display:inline-block; width:6.5rem; color:var(--muted); font-size:.85rem; font-weight:600; }
  table.stack details { display:inline-block; vertical-align:top; max-width:100%; }
  table.stack details pre { max-width:none; }
  table.stack form.inline.compact { display:inline-flex; }
}
@media (max-width:640px) { main { padding:.75rem; } th, td { padding:.3rem; } svg.chart text { font-size:24px; } svg.chart .x-label.minor { display:none; } }
`;
