-- wrk script of `npm run bench`: feeds the requests listed in the file named by BENCH_WRK_FILE,
-- one a line: METHOD \t PATH \t BODY \t name \t value \t name \t value ...
-- BENCH_WRK_ONCE=1: each line is sent at most once (threads take every n-th line); otherwise
-- each thread cycles through all lines from its own starting point.
-- done() prints one line "BENCH_RESULT {json}" that bench/load/wrk.ts reads.

local threads = {}
local count = 0

function setup(thread)
  thread:set("index", count)
  count = count + 1
  table.insert(threads, thread)
end

local function split(line)
  local fields = {}
  for field in (line .. "\t"):gmatch("([^\t]*)\t") do
    table.insert(fields, field)
  end
  return fields
end

local reqs = {}
local n = 0
local i = 0
local once = false
wrapped = 0

function init(args)
  once = os.getenv("BENCH_WRK_ONCE") == "1"
  local nthreads = tonumber(os.getenv("BENCH_WRK_THREADS"))
  local k = 0
  for line in io.lines(os.getenv("BENCH_WRK_FILE")) do
    if not once or k % nthreads == index then
      local f = split(line)
      local headers = {}
      for h = 4, #f - 1, 2 do
        headers[f[h]] = f[h + 1]
      end
      local body = nil
      if f[3] ~= "" then body = f[3] end
      n = n + 1
      reqs[n] = wrk.format(f[1], f[2], headers, body)
    end
    k = k + 1
  end
  if not once then i = math.floor(n * index / nthreads) end
end

function request()
  i = i + 1
  if i > n then
    i = 1
    if once then wrapped = wrapped + 1 end
  end
  return reqs[i]
end

function done(summary, latency, requests)
  local exhausted = 0
  for _, thread in ipairs(threads) do
    exhausted = exhausted + (thread:get("wrapped") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"exhausted":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect, e.read, e.write, e.timeout, exhausted))
end
