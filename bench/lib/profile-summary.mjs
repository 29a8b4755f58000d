// Summarizes V8 CPU profiles (a JSON array of them, as bench/ledger-apply.bench.ts --cpu-profile writes, or one
// .cpuprofile): self time by function and inclusive time of the functions named on the command line (or the top
// ones), in ms per profile. Usage: node bench/lib/profile-summary.mjs FILE [--top N] [--incl name,name,...]
import { readFileSync } from "node:fs";

const file = process.argv[2];
const arg = (n) => {
  const i = process.argv.indexOf(n);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const top = Number(arg("--top") ?? 40);
const data = JSON.parse(readFileSync(file, "utf8"));
const profiles = Array.isArray(data) ? data : [data];
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
