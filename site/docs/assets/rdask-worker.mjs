// The page's Web Worker: runs the interpreter (rdask-runtime.mjs) off the page's thread, so the
// page stays responsive while the runtime loads. Files of the site's assets/ask/ other than
// Pyodide's own are kept in the browser's Cache Storage, keyed by their digest (manifest.json).
import { start } from "./rdask-runtime.mjs";

let runtime = null;
const CACHE = "rdask-v1";

async function fetchBytes(base, manifest, path) {
  const meta = manifest.files[path];
  const url = new URL(path, base).href + (meta ? "?h=" + meta.sha256.slice(0, 16) : "");
  let cache = null;
  try { cache = self.caches ? await caches.open(CACHE) : null; } catch { cache = null; }
  let resp = cache ? await cache.match(url) : undefined;
  if (!resp) {
    resp = await fetch(url);
    if (!resp.ok) throw new Error(path + ": HTTP " + resp.status);
    if (cache) await cache.put(url, resp.clone()).catch(() => {});
  }
  return new Uint8Array(await resp.arrayBuffer());
}

async function boot(base) {
  const manifest = await (await fetch(new URL("manifest.json", base))).json();
  const progress = (text, fraction) => postMessage({ kind: "progress", text, fraction });
  const { loadPyodide } = await import(new URL(manifest.pyodide.dir + "pyodide.mjs", base).href);
  return start({ loadPyodide, base, manifest, progress, fetchBytes: (p) => fetchBytes(base, manifest, p) });
}

onmessage = async (event) => {
  const m = event.data;
  try {
    if (!runtime) runtime = boot(m.base);
    const rt = await runtime;
    if (m.kind === "ask") {
      const t0 = performance.now();
      const result = await rt.ask(m.game, m.text, m.root, m.ids || []);
      postMessage({ kind: "answer", id: m.id, result, seconds: (performance.now() - t0) / 1000 });
    } else {
      postMessage({ kind: "ready", id: m.id });
    }
  } catch (e) {
    runtime = null;
    postMessage({ kind: "failed", id: m.id, message: String((e && e.message) || e) });
  }
};
