// The service worker that keeps the interpreter's runtime in the reader's browser across visits
// (「この質問を変えて聞く」, assets/rdask.js registers it when an editor opens). It lives at the site's
// root so that its scope covers every page, but it answers only for the runtime's files under
// assets/ask/ and only from its own cache, named by the pinned versions the page registers it
// with (rdask-sw.js?v=…): an update of Pyodide or of a wheel is a new cache, and the old one is
// deleted when the new worker takes over. Everything else goes to the network untouched.
//
// What it keeps is what does not change under its URL: Pyodide's loader and WebAssembly as npm
// ships them (their folder is named by the version) and the files requested with their digest
// (?h=…, see rdask-worker.mjs: the wheels, the trimmed standard library, a game's knowledge
// base). A file kept under an older digest is dropped when the new one is kept.

const VERSION = new URL(self.location.href).searchParams.get("v") || "0";
const SCOPE = new URL(self.registration.scope).pathname;
const CACHE = "rdask-runtime-" + VERSION + "-" + SCOPE;
const RUNTIME = SCOPE + "assets/ask/";

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      const mine = name.startsWith("rdask-runtime-") && name.endsWith("-" + SCOPE);
      if ((mine && name !== CACHE) || name === "rdask-v1") await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

function kept(url) {
  if (url.origin !== self.location.origin || !url.pathname.startsWith(RUNTIME)) return false;
  const inside = url.pathname.slice(RUNTIME.length);
  return url.searchParams.has("h") || /^pyodide-[^/]+\/pyodide(\.asm)?\.(mjs|wasm)$/.test(inside);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (!kept(url)) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const hit = await cache.match(url.href);
    if (hit) return hit;
    const response = await fetch(request);
    if (response.ok && response.status === 200) {
      const older = (await cache.keys()).filter((r) => {
        const u = new URL(r.url);
        return u.pathname === url.pathname && u.href !== url.href;
      });
      await Promise.all(older.map((r) => cache.delete(r)));
      await cache.put(url.href, response.clone());
    }
    return response;
  })());
});
