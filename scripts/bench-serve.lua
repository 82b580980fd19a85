-- wrk script of scripts/bench-serve.sh: each request POSTs one sentence to nmt serve's
-- /v1/translate, taking the sentences of $BENCH_SENTENCES (one per line) in turn, each wrk thread
-- from its own starting line. At the end it prints one line the script parses:
--   RESULT requests=N duration_us=D p50_us=A p90_us=B p99_us=C status_errors=E socket_errors=S

local sentences = {}
for line in io.lines(os.getenv("BENCH_SENTENCES")) do
  if line ~= "" then sentences[#sentences + 1] = line end
end
assert(#sentences > 0, "no sentences in " .. tostring(os.getenv("BENCH_SENTENCES")))

local function json_string(text)
  local escaped = text:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    return string.format("\\u%04x", c:byte())
  end)
  return '"' .. escaped .. '"'
end

local bodies = {}
for i, sentence in ipairs(sentences) do
  bodies[i] = '{"q": [' .. json_string(sentence) .. ']}'
end

local thread_count = 0
function setup(thread)
  thread_count = thread_count + 1
  thread:set("first", thread_count * 7919)
end

local next_index = nil
function request()
  if next_index == nil then next_index = first or 0 end
  next_index = next_index + 1
  local body = bodies[next_index % #bodies + 1]
  return wrk.format("POST", "/v1/translate", {["Content-Type"] = "application/json"}, body)
end

function done(summary, latency, requests)
  io.write(string.format(
    "RESULT requests=%d duration_us=%d p50_us=%d p90_us=%d p99_us=%d status_errors=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
