// Summarizes V8 CPU profiles (a JSON array of them, as bench/ledger-apply.bench.ts --cpu-profile writes, or one
// .cpuprofile): self time by function and inclusive time of the functions named on the command line (or the top
// ones), in ms per profile; with --heap, allocation profiles (--heap-profile): MB allocated per function.
// Usage: node bench/lib/profile-summary.mjs FILE [--top N] [--incl name,name,...] [--heap]
import { readFileSync } from "node:fs";

const file = process.argv[2];
const arg = (n) => {
  const i = process.argv.indexOf(n);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const top = Number(arg("--top") ?? 40);
const data = JSON.parse(readFileSync(file, "utf8"));
const profiles = Array.isArray(data) ? data : [data];
if (process.argv.includes("--heap")) {
  // Sampling allocation profiles: bytes allocated per function (self) and under it (inclusive), MB per profile.
  const self = new Map();
  const incl = new Map();
  const key = (f) => `${f.functionName || "(anon)"} ${f.url.replace(/^.*\/(src|node_modules)\//, "$1/")}`;
  let total = 0;
  const walk = (node, stack) => {
    const k = key(node.callFrame);
    const own = (node.selfSize ?? 0) / 2 ** 20;
    total += own;
    self.set(k, (self.get(k) ?? 0) + own);
    const next = stack.includes(k) ? stack : [...stack, k];
    for (const s of next) incl.set(s, (incl.get(s) ?? 0) + own);
    for (const c of node.children ?? []) walk(c, next);
  };
  for (const p of profiles) walk(p.head, []);
  const per = (x) => (x / profiles.length).toFixed(2).padStart(7);
  console.log(`${profiles.length} profiles, ${per(total)} MB allocated per profile`);
  console.log("-- self --");
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(per(v), k);
  console.log("-- inclusive --");
  for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(per(v), k);
  process.exit(0);
}
const self = new Map();
const incl = new Map();
let total = 0;
for (const p of profiles) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const dt = p.timeDeltas;
  const key = (n) => {
    const f = n.callFrame;
    const url = f.url.replace(/^.*\/(src|node_modules)\//, "$1/");
    return `${f.functionName || "(anon)"} ${url}:${f.lineNumber + 1}`;
  };
  for (let i = 0; i < p.samples.length; i++) {
    const ms = (dt[i + 1] ?? dt[i] ?? 0) / 1000;
    total += ms;
    let n = byId.get(p.samples[i]);
    const k = key(n);
    self.set(k, (self.get(k) ?? 0) + ms);
    const seen = new Set();
    while (n !== undefined) {
      const kk = key(n);
      if (!seen.has(kk)) {
        seen.add(kk);
        incl.set(kk, (incl.get(kk) ?? 0) + ms);
      }
      n = byId.get(parent.get(n.id));
    }
  }
}
const per = (x) => (x / profiles.length).toFixed(1).padStart(7);
console.log(`${profiles.length} profiles, ${per(total)} ms sampled per profile`);
console.log("-- self --");
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(per(v), k);
console.log("-- inclusive --");
const names = arg("--incl")?.split(",");
const rows = [...incl].filter(([k]) => names === undefined || names.some((n) => k.startsWith(`${n} `)));
for (const [k, v] of rows.sort((a, b) => b[1] - a[1]).slice(0, names ? 1000 : top)) console.log(per(v), k);
