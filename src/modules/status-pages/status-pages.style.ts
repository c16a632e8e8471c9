import { createHash } from 'node:crypto'

/**
 * The public page's stylesheet and its one script, inline (no request leaves for another
 * origin, none for this one either) and allowed by hash in the page's CSP, so nothing else
 * inline can run or style it. Light by default; dark by the visitor's system setting when the
 * page's theme is auto, or by the page's theme, or by the visitor's toggle (kept in localStorage).
 */
export const PAGE_STYLE = `
:root{--bg:#fff;--fg:#1b1f24;--muted:#4d5560;--line:#d8dde3;--card:#f6f8fa;--up:#2e9e4f;--minor:#d4a72c;--major:#e16f24;--down:#d1242f;--none:#c9ced4;--chart:#1565c0;color-scheme:light}
html[data-theme=dark]{--bg:#0f1318;--fg:#e6e9ec;--muted:#a9b1ba;--line:#2c333b;--card:#161b22;--up:#3fb950;--minor:#d29922;--major:#f0883e;--down:#f85149;--none:#3a424b;--chart:#58a6ff;color-scheme:dark}
@media (prefers-color-scheme:dark){html[data-theme=auto]{--bg:#0f1318;--fg:#e6e9ec;--muted:#a9b1ba;--line:#2c333b;--card:#161b22;--up:#3fb950;--minor:#d29922;--major:#f0883e;--down:#f85149;--none:#3a424b;--chart:#58a6ff;color-scheme:dark}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.wrap{max-width:52rem;margin:0 auto;padding:0 1rem}
header{border-bottom:1px solid var(--line);padding:1.25rem 0}
header .wrap{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:baseline;justify-content:space-between}
h1{font-size:1.5rem;margin:0}
h2{font-size:1.15rem;margin:2rem 0 .75rem}
h3{font-size:1rem;margin:0;font-weight:600}
.desc{margin:.25rem 0 0;color:var(--muted);flex-basis:100%}
button{font:inherit;color:var(--fg);background:var(--card);border:1px solid var(--line);border-radius:.4rem;padding:.3rem .7rem;cursor:pointer}
.banner{margin:1.5rem 0;padding:1rem 1.25rem;border-radius:.5rem;color:#fff;font-weight:600;font-size:1.1rem}
.banner p{margin:0}
.b-operational{background:#1f7a36}.b-degraded{background:#9a5b00}.b-partial_outage{background:#b3401a}.b-major_outage{background:#b42318}.b-maintenance{background:#1558b0}
.items{list-style:none;margin:0;padding:0;border:1px solid var(--line);border-radius:.5rem}
.item{padding:.9rem 1rem;border-top:1px solid var(--line)}
.item:first-child{border-top:0}
.row{display:flex;justify-content:space-between;gap:1rem;align-items:baseline;flex-wrap:wrap}
.state{white-space:nowrap;font-size:.95rem}
.state::before{content:"";display:inline-block;width:.65rem;height:.65rem;border-radius:50%;margin-right:.4rem;background:var(--none)}
.s-up::before{background:var(--up)}.s-degraded::before{background:var(--minor)}.s-down::before{background:var(--down)}
.meta{color:var(--muted);font-size:.875rem;margin:.2rem 0 0}
.bars{display:block;width:100%;height:34px;margin-top:.6rem}
.d-up{fill:var(--up)}.d-minor{fill:var(--minor)}.d-major{fill:var(--major)}.d-down{fill:var(--down)}.d-none{fill:var(--none)}
.legend{display:flex;justify-content:space-between;color:var(--muted);font-size:.8rem;margin-top:.2rem}
.chart{display:block;width:100%;height:80px;margin-top:.6rem;border-bottom:1px solid var(--line)}
.chart polyline{fill:none;stroke:var(--chart);stroke-width:1.5;vector-effect:non-scaling-stroke}
.note{border:1px solid var(--line);border-radius:.5rem;padding:.9rem 1rem;margin-bottom:.75rem;background:var(--card)}
.note ol{list-style:none;margin:.5rem 0 0;padding:0}
.note li{margin-top:.6rem}
.note .body{white-space:pre-line;margin:.15rem 0 0;overflow-wrap:anywhere}
.upd{font-weight:600}
footer{color:var(--muted);font-size:.85rem;padding:2rem 1rem}
.empty{color:var(--muted)}
@media (max-width:36rem){h1{font-size:1.25rem}.item,.note{padding:.75rem}}
`.trim()

export const THEME_SCRIPT =
  "(function(){var d=document.documentElement,k='vigil-status-theme',b=document.getElementById('theme');" +
  'try{var s=localStorage.getItem(k);if(s==="light"||s==="dark")d.dataset.theme=s}catch(e){}' +
  "if(!b)return;b.hidden=false;b.onclick=function(){var t=d.dataset.theme,dark=t==='dark'||(t==='auto'&&matchMedia('(prefers-color-scheme: dark)').matches);" +
  "d.dataset.theme=dark?'light':'dark';try{localStorage.setItem(k,d.dataset.theme)}catch(e){}}})()"

const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`

/** The public page loads nothing: its own inline style and script by hash, data: images at most. */
export const STATUS_PAGE_CSP = `default-src 'none'; style-src ${hash(PAGE_STYLE)}; script-src ${hash(THEME_SCRIPT)}; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`

/** A badge is an image: it loads nothing and runs nothing. */
export const BADGE_CSP = "default-src 'none'; frame-ancestors 'none'"
