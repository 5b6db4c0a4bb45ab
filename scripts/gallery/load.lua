-- wrk's script for scripts/gallery/load.sh: `wrk -s load.lua URL -- MODE LIST [UPLOADS]`.
-- MODE: uncached (each request a path and size not asked before: path by turn, size 16...2048),
-- cached (size 256 of any path), anchor (one path at sizes 461...700: the same DCT scale as 500 px,
-- each size new), upload (70% a 1 MP JPEG, 15% a bomb's header, 15% text).
-- Counts responses by status and prints one summary line per figure.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

function init(args)
  mode = args[1]
  paths = {}
  for line in io.lines(args[2]) do paths[#paths + 1] = line end
  if mode == "upload" then
    local function read(name)
      local f = assert(io.open(args[3] .. "/" .. name, "rb"))
      local data = f:read("*a")
      f:close()
      return data
    end
    bodies = { read("good.jpg"), read("bomb.jpg"), read("text.txt") }
  end
  counts = {}
  n = (id - 1) * 20000
end

function request()
  n = n + 1
  if mode == "uncached" then
    local path = paths[n % #paths + 1]
    local size = 16 + math.floor(n / #paths) % 2033
    return wrk.format("GET", "/thumbnails/" .. path .. "?size=" .. size)
  elseif mode == "cached" then
    return wrk.format("GET", "/thumbnails/" .. paths[math.random(#paths)] .. "?size=256")
  elseif mode == "anchor" then
    return wrk.format("GET", "/thumbnails/" .. paths[1] .. "?size=" .. (461 + n % 240))
  else
    local pick = n % 20
    local body = pick < 14 and bodies[1] or (pick < 17 and bodies[2] or bodies[3])
    return wrk.format("POST", "/thumbnail?size=256", { ["Content-Type"] = "application/octet-stream" }, body)
  end
end

function response(status, headers, body)
  counts[status] = (counts[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("counts")) do total[status] = (total[status] or 0) + count end
  end
  local statuses = {}
  for status, count in pairs(total) do statuses[#statuses + 1] = status .. ":" .. count end
  table.sort(statuses)
  local e = summary.errors
  io.write(string.format("RESULT rps=%.2f p50_ms=%.1f p99_ms=%.1f requests=%d statuses=%s socket_errors=%d/%d/%d/%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests, table.concat(statuses, ","), e.connect, e.read, e.write, e.timeout))
end
