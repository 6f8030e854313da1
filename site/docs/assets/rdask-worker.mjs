// The page's Web Worker: runs the interpreter (rdask-runtime.mjs) off the page's thread, so the
// page stays responsive while the runtime loads. Every file of the site's assets/ask/ is asked
// for with its digest (?h=…, from manifest.json), so that the service worker (rdask-sw.js) can
// keep it across visits and an updated file is never mistaken for the kept one.
import { start } from "./rdask-runtime.mjs";

let runtime = null;
let warming = null;

function urlOf(base, manifest, path) {
  const meta = manifest.files[path];
  return new URL(path, base).href + (meta ? "?h=" + meta.sha256.slice(0, 16) : "");
}

async function fetchBytes(base, manifest, path) {
  const resp = await fetch(urlOf(base, manifest, path));
  if (!resp.ok) throw new Error(path + ": HTTP " + resp.status);
  return new Uint8Array(await resp.arrayBuffer());
}

async function boot(base, game) {
  const manifest = await (await fetch(new URL("manifest.json", base), { cache: "no-cache" })).json();
  const progress = (text, fraction) => postMessage({ kind: "progress", text, fraction });
  const { loadPyodide } = await import(new URL(manifest.pyodide.dir + "pyodide.mjs", base).href);
  return start({ loadPyodide, base, manifest, progress, game,
                 urlOf: (p) => urlOf(base, manifest, p), fetchBytes: (p) => fetchBytes(base, manifest, p) });
}

onmessage = async (event) => {
  const m = event.data;
  try {
    if (!runtime) runtime = boot(m.base, m.game);
    const rt = await runtime;
    if (m.kind === "ask") {
      await warming?.catch(() => {});
      const t0 = performance.now();
      const result = await rt.ask(m.game, m.text, m.root, m.ids || []);
      postMessage({ kind: "answer", id: m.id, result, seconds: (performance.now() - t0) / 1000, timings: rt.timings });
    } else {
      if (m.game) warming = rt.warm(m.game);
      postMessage({ kind: "ready", id: m.id });
      await warming?.catch(() => {});
      postMessage({ kind: "warm", id: m.id, timings: rt.timings });
    }
  } catch (e) {
    runtime = null;
    postMessage({ kind: "failed", id: m.id, message: String((e && e.message) || e) });
  }
};
