// Asks questions of the interpreter in Pyodide exactly as the wiki's page does (rdask-runtime.mjs),
// from a built site's assets/ask/ folder. Reads [{id, game, text}] as JSON on stdin; prints
// {"version", "seconds": {"start", "first", "all"}, "answers": {id: Session.ask's result},
//  "modules": the modules imported once every question is answered}.
// Usage: node ask_questions.mjs SITE_DIR < questions.json
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const site = path.resolve(process.argv[2]);
const assets = path.join(site, "assets", "ask") + "/";
const manifest = JSON.parse(fs.readFileSync(assets + "manifest.json", "utf8"));
const { start } = await import(pathToFileURL(path.join(site, "assets", "rdask-runtime.mjs")).href);
const { loadPyodide } = await import(pathToFileURL(assets + manifest.pyodide.dir + "pyodide.mjs").href);
const questions = JSON.parse(fs.readFileSync(0, "utf8"));
const t0 = performance.now();
const rt = await start({
  loadPyodide, base: assets, manifest,
  fetchBytes: async (p) => new Uint8Array(fs.readFileSync(assets + p)),
});
const t1 = performance.now();
const answers = {};
let first = null;
for (const q of questions) {
  const t = performance.now();
  answers[q.id] = await rt.ask(q.game, q.text, "../../", []);
  if (first === null) first = (performance.now() - t) / 1000;
}
const t2 = performance.now();
process.stdout.write(JSON.stringify({
  version: rt.version,
  seconds: { start: (t1 - t0) / 1000, first, all: (t2 - t1) / 1000 },
  answers,
  modules: rt.modules(),
}));
