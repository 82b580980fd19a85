#include "viz/translate_assets.h"

namespace nmt::viz {
namespace {

// The page's fixed text lives in constants rather than in function bodies: it is data, not code.
constexpr std::string_view kStyle =
    R"css(.panes { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.pane { display: flex; flex-direction: column; min-width: 0; }
.pane .label { font-size: 13px; color: var(--muted); margin-bottom: 4px; }
textarea, .output { width: 100%; min-height: 150px; padding: 8px 10px; font: inherit; font-size: 17px;
  line-height: 1.45; color: var(--fg); border: 1px solid var(--line); border-radius: 6px; }
textarea { resize: vertical; }
textarea:focus { outline: 2px solid rgba(31, 111, 235, 0.35); border-color: var(--accent); }
.output { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); }
.card > .controls { margin-top: 12px; }
.card > h2:first-child { margin-top: 4px; }
input[type=number], input[type=password] { font: inherit; font-size: 14px; margin-left: 6px; padding: 2px 6px;
  color: var(--fg); border: 1px solid var(--line); border-radius: 6px; }
input[type=number] { width: 4.5em; }
input[type=password] { width: 12em; }
#status { min-height: 20px; margin-top: 8px; }
#nbest { margin: 6px 0 0; padding-left: 22px; }
#nbest .src { color: var(--muted); font-size: 13px; }
.hyps { margin: 2px 0 10px; padding-left: 22px; }
.hyps .score { margin-left: 8px; color: var(--muted); font-size: 13px;
  font-family: "DejaVu Sans Mono", ui-monospace, Menlo, Consolas, monospace; }
@media (max-width: 700px) {
  body { padding: 12px 12px 32px; }
  .panes { grid-template-columns: 1fr; }
  textarea, .output { min-height: 96px; }
}
)css";

constexpr std::string_view kMarkup = R"html(<h1>Translate</h1>
<div class="sub" id="model">Asking the server about its model&hellip;</div>
<div class="card">
<div class="panes">
<div class="pane"><label class="label" for="source" id="source-label">Source</label>
<textarea id="source" rows="6" spellcheck="false" autofocus
 placeholder="Type or paste text: each line is translated as a sentence."></textarea></div>
<div class="pane"><div class="label" id="target-label">Translation</div>
<div class="output" id="target" aria-live="polite"></div></div>
</div>
<div class="controls">
<label>Decoding<select id="strategy"><option value="greedy">greedy</option>
<option value="beam">beam search</option><option value="sample">sampling</option></select></label>
<label>Beam size<input type="number" id="beam-size" min="1" value="5"></label>
<label>n-best<input type="number" id="n-best" min="1" value="3"></label>
<label><input type="checkbox" id="want-attention" checked> attention</label>
<label id="key-field" hidden>API key<input type="password" id="api-key" autocomplete="off"></label>
</div>
<div class="note" id="status" role="status"></div>
</div>
<div class="card" id="nbest-card" hidden>
<h2>Translations with scores</h2>
<div class="note">Scores are log-probabilities (beam search divides them by length^length_penalty):
closer to 0 is more likely. With beam search each line lists its n best hypotheses, best first.</div>
<ol id="nbest"></ol>
</div>
)html";

constexpr std::string_view kScript = R"js((() => {
'use strict';
const settings = JSON.parse(document.getElementById('page-settings').textContent);
const $ = (id) => document.getElementById(id);
const source = $('source'), target = $('target'), status = $('status'), strategy = $('strategy');
const beamSize = $('beam-size'), nBest = $('n-best'), wantAttention = $('want-attention');
const apiKey = $('api-key');
// A request leaves this long after the last key press, not at every key.
const DEBOUNCE_MS = 250;
let timer = 0, latest = 0;
const esc = (s) => String(s).replace(/[&<>"']/g,
  (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
const score = (h) => (typeof h.score === 'number' ? h.score.toFixed(3) : '');
beamSize.max = nBest.max = settings.max_beam_size;
$('key-field').hidden = !settings.api_key;

async function describeModel() {
  try {
    const answer = await (await fetch('health')).json();
    if (answer.status === 'loading') {
      $('model').textContent = 'The server is loading its model\u2026';
      setTimeout(describeModel, 1000);
      return;
    }
    const m = answer.model || {};
    const side = (code) => code || 'any language';
    const files = (m.checkpoint || '?').split(' + ').map((path) => path.split('/').pop()).join(' + ');
    $('model').textContent = `${side(m.source_lang)} \u2192 ${side(m.target_lang)} \u00b7 ` +
        `model ${m.version || '?'} (${m.run || '?'}, ${files})`;
    if (m.source_lang) $('source-label').textContent = `Source (${m.source_lang})`;
    if (m.target_lang) $('target-label').textContent = `Translation (${m.target_lang})`;
  } catch (error) {
    $('model').textContent = 'The server cannot be reached.';
  }
}

function syncOptions() {
  beamSize.disabled = nBest.disabled = strategy.value !== 'beam';
}

// The address holds the text and options, so that a translation can be linked to.
function keepInAddress() {
  const params = new URLSearchParams();
  if (source.value) params.set('q', source.value);
  params.set('strategy', strategy.value);
  if (strategy.value === 'beam') {
    params.set('beam_size', beamSize.value);
    params.set('n_best', nBest.value);
  }
  history.replaceState(null, '', '?' + params.toString());
}

function show(lines, wanted, translations) {
  const out = lines.map(() => '');
  wanted.forEach((line, k) => { out[line] = translations[k] ? translations[k].text : ''; });
  target.textContent = out.join('\n');
  $('nbest').innerHTML = translations.map((t, k) =>
    `<li><div class="src">${esc(lines[wanted[k]])}</div><ol class="hyps">` +
    (t.hypotheses || [t]).map((h) =>
      `<li><span class="hyp">${esc(h.text)}</span><span class="score">${score(h)}</span></li>`).join('') +
    '</ol></li>').join('');
  $('nbest-card').hidden = translations.length === 0;
  const picture = translations.length > 0 ? translations[0].attention : null;
  $('attention-card').hidden = !picture;
  if (picture) nmtAttention.show(picture);
}

async function translate() {
  keepInAddress();
  const lines = source.value.split(/\r\n|\r|\n/);
  const wanted = [];
  lines.forEach((line, i) => { if (line.trim()) wanted.push(i); });
  const id = ++latest;
  if (wanted.length === 0) {
    show(lines, wanted, []);
    status.textContent = '';
    return;
  }
  if (wanted.length > settings.max_sentences) {
    status.textContent = `At most ${settings.max_sentences} lines at a time (serve.max_sentences).`;
    return;
  }
  const body = {q: wanted.map((i) => lines[i]), strategy: strategy.value, scores: true,
                attention: wantAttention.checked};
  if (strategy.value === 'beam') {
    body.beam_size = +beamSize.value;
    body.n_best = Math.min(+nBest.value, +beamSize.value);
  }
  const headers = {'Content-Type': 'application/json'};
  if (apiKey.value) headers.Authorization = 'Bearer ' + apiKey.value;
  status.textContent = 'Translating\u2026';
  const start = performance.now();
  try {
    const response = await fetch('v1/translate', {method: 'POST', headers, body: JSON.stringify(body)});
    const answer = await response.json();
    if (id !== latest) return;  // the text changed meanwhile: a newer answer is on its way
    if (!response.ok) {
      status.textContent = `${response.status}: ${answer.error}`;
      return;
    }
    show(lines, wanted, answer.translations);
    status.textContent = `${wanted.length} line${wanted.length > 1 ? 's' : ''} translated in ` +
        `${Math.round(performance.now() - start)} ms.`;
  } catch (error) {
    if (id === latest) status.textContent = 'The server cannot be reached: ' + error.message;
  }
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(translate, DEBOUNCE_MS);
}

source.addEventListener('input', schedule);
for (const control of [strategy, beamSize, nBest, wantAttention, apiKey]) {
  control.addEventListener('change', () => { syncOptions(); schedule(); });
}
const params = new URLSearchParams(location.search);
if (['greedy', 'beam', 'sample'].includes(params.get('strategy'))) strategy.value = params.get('strategy');
if (params.get('beam_size')) beamSize.value = params.get('beam_size');
if (params.get('n_best')) nBest.value = params.get('n_best');
syncOptions();
describeModel();
if (params.get('q')) {
  source.value = params.get('q');
  translate();
}
})();
)js";

}  // namespace

std::string_view translate_style() { return kStyle; }

std::string_view translate_markup() { return kMarkup; }

std::string_view translate_script() { return kScript; }

}  // namespace nmt::viz
