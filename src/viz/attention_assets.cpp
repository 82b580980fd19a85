#include "viz/attention_assets.h"

namespace nmt::viz {
namespace {

// The page's fixed text lives in constants rather than in function bodies: it is data, not code.
constexpr std::string_view kStyle = R"css(.sentence > div { margin: 3px 0; }
.sentence .label { display: inline-block; min-width: 180px; color: var(--muted); font-size: 13px; }
.sentence .text { font-size: 17px; }
.controls { display: flex; flex-wrap: wrap; gap: 10px 22px; align-items: center; }
.controls label { font-size: 14px; color: var(--muted); }
select { font: inherit; font-size: 14px; padding: 3px 6px; margin-left: 6px; color: var(--fg);
  border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.figure { display: flex; align-items: flex-start; gap: 18px; margin-top: 10px; overflow-x: auto; }
#map { flex: 0 1 auto; min-width: 200px; }
svg text { font-size: 13px; fill: var(--fg); }
svg .lbl { font-family: "DejaVu Sans Mono", ui-monospace, Menlo, Consolas, monospace; white-space: pre; }
svg .lbl.hl { font-weight: 700; fill: #cf222e; }
svg .axis { fill: var(--muted); font-size: 12px; }
.cell { stroke: #fff; stroke-width: 1; }
.cell:hover { stroke: #cf222e; stroke-width: 2; }
.info { min-height: 24px; margin-top: 4px; font-size: 14px; }
.info b { font-family: "DejaVu Sans Mono", ui-monospace, monospace; font-weight: 600; }
.thumbs { display: flex; flex-wrap: wrap; gap: 10px; }
.thumb { display: flex; flex-direction: column; align-items: center; gap: 4px; padding: 6px; cursor: pointer;
  font: inherit; font-size: 12px; color: var(--muted); background: #fff; border: 1px solid var(--line);
  border-radius: 6px; }
.thumb.on { color: var(--fg); border-color: var(--accent); box-shadow: 0 0 0 2px rgba(31, 111, 235, 0.25); }
)css";

constexpr std::string_view kControls = R"html(<div class="card viewer">
<div class="controls">
<label>Attention<select id="kind"></select></label>
<label>Layer<select id="layer"></select></label>
<label>Head<select id="head"></select></label>
<label><input type="checkbox" id="stretch"> stretch the colours to the largest weight of the map</label>
</div>
<div class="note" id="explain"></div>
<div class="info" id="info"></div>
<div class="figure"><div id="map"></div><div id="legend"></div></div>
<h3>Every head of this layer (click one to show it)</h3>
<div class="thumbs" id="thumbs"></div>
<noscript><p class="empty">This page draws its heat maps with JavaScript: allow scripts to see them.</p></noscript>
</div>
)html";

constexpr std::string_view kScript = R"js(const nmtAttention = (() => {
'use strict';
const $ = (id) => document.getElementById(id);
const kindSel = $('kind'), layerSel = $('layer'), headSel = $('head'), stretch = $('stretch');
const info = $('info'), map = $('map');
// ColorBrewer YlGnBu: light yellow (no attention) to dark blue (all of it).
const STOPS = ['#ffffd9', '#edf8b1', '#c7e9b4', '#7fcdbb', '#41b6c4', '#1d91c0', '#225ea8', '#253494', '#081d58'];
const RGB = STOPS.map((c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)));
const CHAR_W = 7.9, MAX_LABEL = 24;
const HINT = 'Hover over a cell to see its weight.';
const esc = (s) => String(s).replace(/[&<>"']/g,
  (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
const chars = (s) => Array.from(String(s));
const cut = (s) => (chars(s).length > MAX_LABEL ? chars(s).slice(0, MAX_LABEL - 1).join('') + '\u2026' : s);
const width = (tokens) => Math.max(1, ...tokens.map((t) => chars(cut(t)).length)) * CHAR_W;
const colour = (t) => {
  t = Math.max(0, Math.min(1, t || 0));
  const x = t * (RGB.length - 1), i = Math.min(Math.floor(x), RGB.length - 2), f = x - i;
  return 'rgb(' + RGB[i].map((a, k) => Math.round(a + (RGB[i + 1][k] - a) * f)).join(',') + ')';
};
let data = {source: [], target: [], kinds: []}, kinds = [];
const tokens = (side) => (side === 'source' ? data.source : data.target);

function fill(select, options, preferred, fallback) {
  select.innerHTML = options.map(([v, label]) => `<option value="${v}">${esc(label)}</option>`).join('');
  const ok = (v) => options.some(([o]) => String(o) === String(v));
  select.value = ok(preferred) ? preferred : fallback;
}
function syncControls() {
  const kind = kinds[+kindSel.value];
  fill(layerSel, kind.layers.map((_, i) => [i, `${i + 1} of ${kind.layers.length}`]), layerSel.value,
       kind.layers.length - 1);
  const heads = kind.layers[+layerSel.value].heads.length;
  const options = [[-1, `average over ${heads} heads`]];
  for (let h = 0; h < heads; ++h) options.push([h, `${h + 1}`]);
  fill(headSel, options, headSel.value, -1);
}
function current() {
  const kind = kinds[+kindSel.value], layer = kind.layers[+layerSel.value], head = +headSel.value;
  return {kind, layer, head, matrix: head < 0 ? layer.mean : layer.heads[head]};
}
function scaleOf(m) {
  const largest = Math.max(0, ...m.map((row) => Math.max(0, ...row)));
  return stretch.checked && largest > 0 ? largest : 1;
}
function heatmap(kind, m, vmax) {
  const rowToks = tokens(kind.rows), colToks = tokens(kind.cols), rows = rowToks.length, cols = colToks.length;
  const rowLabelW = width(rowToks), colLabelW = width(colToks);
  const left = 30 + rowLabelW + 8;
  const avail = Math.max(360, Math.min(1000, (map.parentElement.clientWidth || 1000) - 120));
  // Cells as large as fit the width, smaller for long sentences so that the map stays on screen.
  const cell = Math.max(14, Math.min(44, Math.floor((avail - left) / Math.max(1, cols)),
                                     Math.floor(560 / Math.max(1, rows))));
  const rotate = colLabelW > cell - 6;
  const top = 26 + (rotate ? colLabelW * 0.71 + 10 : 20);
  const right = Math.max(cols * cell, ...colToks.map((t, c) => (c + 0.5) * cell +
                                                   (rotate ? chars(cut(t)).length * CHAR_W * 0.71 : 0)));
  // The axis titles are centred on the map, but never so that a small map cuts their ends off.
  const rowTitle = `${kind.rows} positions (attending)`, colTitle = `${kind.cols} tokens (attended to)`;
  const halfOf = (title) => title.length * CHAR_W * 12 / 13 / 2 + 6;
  const rowTitleY = Math.max(top + rows * cell / 2, halfOf(rowTitle));
  const colTitleX = Math.max(left + cols * cell / 2, halfOf(colTitle));
  const w = Math.ceil(Math.max(left + right + 12, colTitleX + halfOf(colTitle)));
  const h = Math.ceil(Math.max(top + rows * cell + 8, rowTitleY + halfOf(rowTitle)));
  let s = `<svg class="heat" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" ` +
          `aria-label="${esc(kind.name)}">`;
  s += `<text class="axis" x="${colTitleX}" y="14" text-anchor="middle">${esc(colTitle)}</text>`;
  s += `<text class="axis" transform="translate(14,${rowTitleY}) rotate(-90)" text-anchor="middle">` +
       `${esc(rowTitle)}</text>`;
  colToks.forEach((t, c) => {
    const x = left + c * cell + cell / 2;
    s += rotate ? `<text class="lbl col" data-c="${c}" transform="translate(${x - 3},${top - 6}) rotate(-45)">`
                : `<text class="lbl col" data-c="${c}" x="${x}" y="${top - 6}" text-anchor="middle">`;
    s += `${esc(cut(t))}</text>`;
  });
  rowToks.forEach((t, r) => {
    s += `<text class="lbl row" data-r="${r}" x="${left - 8}" y="${top + r * cell + cell / 2}" ` +
         `text-anchor="end" dominant-baseline="central">${esc(cut(t))}</text>`;
  });
  m.forEach((row, r) => row.forEach((v, c) => {
    s += `<rect class="cell" data-r="${r}" data-c="${c}" x="${left + c * cell}" y="${top + r * cell}" ` +
         `width="${cell}" height="${cell}" fill="${colour(v / vmax)}"><title>${esc(rowToks[r])} \u2192 ` +
         `${esc(colToks[c])}: ${v.toFixed(3)}</title></rect>`;
  }));
  return {svg: s + '</svg>', height: rows * cell, top};
}
function legend(vmax, height, top) {
  const h = Math.max(140, Math.min(320, height)), ticks = [0, 0.25, 0.5, 0.75, 1];
  let s = `<svg width="90" height="${top + h + 10}" role="img" aria-label="colour scale">` +
          `<defs><linearGradient id="scale" x1="0" y1="1" x2="0" y2="0">` +
          STOPS.map((c, i) => `<stop offset="${i / (STOPS.length - 1)}" stop-color="${c}"/>`).join('') +
          `</linearGradient></defs><text class="axis" x="0" y="${top - 10}">weight</text>` +
          `<rect x="0" y="${top}" width="16" height="${h}" fill="url(#scale)" stroke="#d8dee4"/>`;
  ticks.forEach((t) => {
    const y = top + h - t * h;
    s += `<line x1="16" x2="21" y1="${y}" y2="${y}" stroke="#59636e"/>` +
         `<text class="axis" x="25" y="${y}" dominant-baseline="central">${(t * vmax).toFixed(2)}</text>`;
  });
  return s + '</svg>';
}
function thumbs(kind, layer, head, vmaxOf) {
  const list = [[-1, 'average', layer.mean]].concat(layer.heads.map((m, h) => [h, `head ${h + 1}`, m]));
  return list.map(([h, label, m]) => {
    const n = Math.max(1, m.length, m[0] ? m[0].length : 0), c = Math.max(2, Math.min(10, Math.floor(100 / n)));
    const vmax = vmaxOf(m);
    let s = `<button type="button" class="thumb${h === head ? ' on' : ''}" data-head="${h}">` +
            `<svg width="${(m[0] || []).length * c}" height="${m.length * c}" aria-hidden="true">`;
    m.forEach((row, r) => row.forEach((v, k) => {
      s += `<rect x="${k * c}" y="${r * c}" width="${c}" height="${c}" fill="${colour(v / vmax)}"/>`;
    }));
    return s + `</svg>${esc(label)}</button>`;
  }).join('');
}
function draw() {
  const {kind, layer, head, matrix} = current();
  const vmax = scaleOf(matrix);
  const picture = heatmap(kind, matrix, vmax);
  map.innerHTML = picture.svg;
  $('legend').innerHTML = legend(vmax, picture.height, picture.top);
  $('thumbs').innerHTML = thumbs(kind, layer, head, scaleOf);
  $('explain').textContent = `${kind.name}: each row is a ${kind.rows} position and shows how its attention ` +
      `is spread over the ${kind.cols} tokens (a row sums to 1).` +
      (kind.id === 'decoder' ? ' A position sees only itself and the positions before it.' : '');
  info.textContent = HINT;
}
function highlight(r, c) {
  map.querySelectorAll('.lbl').forEach((e) => {
    e.classList.toggle('hl', e.dataset.r === String(r) || e.dataset.c === String(c));
  });
}
kindSel.addEventListener('change', () => { syncControls(); draw(); });
layerSel.addEventListener('change', () => { syncControls(); draw(); });
headSel.addEventListener('change', draw);
stretch.addEventListener('change', draw);
$('thumbs').addEventListener('click', (e) => {
  const button = e.target.closest('.thumb');
  if (button) { headSel.value = button.dataset.head; draw(); }
});
map.addEventListener('mouseover', (e) => {
  const cell = e.target.closest('.cell');
  if (!cell) return;
  const {kind, matrix} = current(), r = +cell.dataset.r, c = +cell.dataset.c;
  highlight(r, c);
  info.innerHTML = `<b>${esc(tokens(kind.rows)[r])}</b> (${kind.rows} ${r + 1}) attends to ` +
      `<b>${esc(tokens(kind.cols)[c])}</b> (${kind.cols} ${c + 1}) with weight ${matrix[r][c].toFixed(3)}`;
});
map.addEventListener('mouseleave', () => { highlight(-1, -1); info.textContent = HINT; });
// Draws a picture; the kind, layer and head chosen for the previous one stay where they exist.
function show(picture) {
  data = picture;
  kinds = data.kinds.filter((k) => k.layers.length > 0);
  if (kinds.length === 0) {
    map.innerHTML = '<p class="empty">The picture holds no attention weights.</p>';
    $('legend').innerHTML = '';
    $('thumbs').innerHTML = '';
    return;
  }
  fill(kindSel, kinds.map((k, i) => [i, k.name]), kindSel.value,
       Math.max(0, kinds.findIndex((k) => k.id === 'cross')));
  syncControls();
  draw();
}
return {show};
})();
)js";

}  // namespace

std::string_view attention_style() { return kStyle; }

std::string_view attention_controls() { return kControls; }

std::string_view attention_script() { return kScript; }

}  // namespace nmt::viz
