// Summarises a V8 CPU profile (node --cpu-prof; e.g. `node bench/businesses/run.mjs --profile DIR`): the functions
// with the most self time, and with the most total time (self plus callees, each sample counted once per function).
//   node bench/cpu-profile.mjs FILE.cpuprofile [--top 40] [--match TEXT] [--by-file]
// --match keeps only samples whose stack has a frame whose function or file contains TEXT (e.g. a hook's name).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "40" }, match: { type: "string" }, "by-file": { type: "boolean" } },
});
const file = positionals[0];
if (!file) {
  console.error("usage: node bench/cpu-profile.mjs FILE.cpuprofile [--top 40] [--match TEXT]");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const root = (url) => url.replace(/^file:\/\/.*?\/(node_modules|src|bench)\//, "$1/").replace(/^node:/, "node:");
const label = (n) => {
  const f = n.callFrame;
  return `${f.functionName || "(anonymous)"} ${f.url ? `${root(f.url)}:${f.lineNumber + 1}` : ""}`.trim();
};
const stackOf = new Map();
const stack = (id) => {
  let s = stackOf.get(id);
  if (s) return s;
  s = [];
  for (let at = id; at !== undefined; at = parent.get(at)) s.push(byId.get(at));
  stackOf.set(id, s);
  return s;
};
const byFile = new Map();
const fileOf = (n) => {
  const url = n.callFrame.url;
  if (!url) return n.callFrame.functionName.startsWith("(") ? n.callFrame.functionName : "(native)";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  return m && !m[1].startsWith(".bench-") ? m[1] : root(url).replace(/:\d+$/, "");
};
const self = new Map();
const total = new Map();
let all = 0;
let idle = 0;
const match = values.match;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  const node = byId.get(id);
  const name = node.callFrame.functionName;
  if (name === "(idle)" || name === "(program)" || name === "(garbage collector)") {
    if (name === "(idle)") idle += dt;
    else if (!match) {
      all += dt;
      self.set(name, (self.get(name) ?? 0) + dt);
    }
    return;
  }
  const frames = stack(id);
  if (match && !frames.some((f) => label(f).includes(match))) return;
  all += dt;
  self.set(label(node), (self.get(label(node)) ?? 0) + dt);
  byFile.set(fileOf(node), (byFile.get(fileOf(node)) ?? 0) + dt);
  for (const l of new Set(frames.map(label))) total.set(l, (total.get(l) ?? 0) + dt);
});
const top = Number(values.top);
const show = (title, m) => {
  console.log(`\n${title}`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * v) / all).toFixed(1).padStart(6)}%  ${(v / 1000).toFixed(0).padStart(7)} ms  ${k}`);
  }
};
console.log(
  `${file}: ${(all / 1000).toFixed(0)} ms busy${match ? ` in stacks matching "${match}"` : ""}, ${(idle / 1000).toFixed(0)} ms idle`,
);
if (values["by-file"]) show("self time by package or file", byFile);
show("self time", self);
show("total time (self + callees)", total);
