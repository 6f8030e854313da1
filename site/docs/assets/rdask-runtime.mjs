// The interpreter in the reader's browser: starts Pyodide, installs the wheels the wiki build
// shipped (assets/ask/manifest.json, made by rulesdsl/wiki/ask_bundle.py), writes a game's
// knowledge base into Pyodide's in-memory file system, and answers questions with
// rulesdsl/wiki/browser.py. Used by the page's worker (rdask-worker.mjs) and by the Node test
// (tests/node/ask_questions.mjs), so that the test runs what the page runs.
//
// The first answer waits for all of it, so it overlaps what it can: the wheels and the game's
// files are fetched while Pyodide's WebAssembly compiles, and `warm(game)` (called by the worker
// as soon as the reader opens an editor) imports the game's engine and builds the parser's tables
// while the reader edits. It answers on the plain models, as `rulesdsl ask` does
// (rulesdsl/base/declared.py), so pydantic is neither shipped nor imported; lark, which only
// explains a syntax error, is fetched and unpacked the first time a question needs it
// (manifest.onDemand), and the question is then asked again.

const decoder = new TextDecoder();

// start({loadPyodide, base, manifest, fetchBytes, urlOf, game, progress}) -> {ask(game, text, root, ids), …}
// base: the URL (or folder) of assets/ask/, ending in "/"; fetchBytes(path under base) -> Uint8Array;
// urlOf(path under base) -> the URL Pyodide fetches it from (default: base + path); game: the
// game whose files to fetch at once
export async function start({ loadPyodide, base, manifest, fetchBytes, urlOf = null, game = null,
                              progress = () => {} }) {
  const wheels = manifest.wheels;
  const steps = wheels.length + 2;
  const timings = {};
  const t0 = performance.now();
  const lap = (what) => { timings[what] = (performance.now() - t0) / 1000; };
  let done = 0;
  const step = (what) => progress(what, ++done / steps);
  const at = (name) => (urlOf ? urlOf(manifest.pyodide.dir + name) : undefined);
  progress("Python（Pyodide " + manifest.pyodide.version + "）を読み込んでいます", 0);
  // fetched while Pyodide starts
  const wheelBytes = Promise.all(wheels.map((w) => fetchBytes(w)));
  // the parser's tables, so that no Lark tables are built here (and lark is imported only to
  // explain a syntax error)
  const tablesBytes = manifest.parser ? fetchBytes(manifest.parser) : Promise.resolve(null);
  const gameFiles = new Map();
  const files = (g) => {
    const m = manifest.games[g];
    if (!m) return Promise.reject(new Error("このゲームにはインタプリタがありません: " + g));
    if (!gameFiles.has(g)) gameFiles.set(g, Promise.all([fetchBytes(m.snapshot), fetchBytes(m.sources)]));
    return gameFiles.get(g);
  };
  if (game) files(game).catch(() => {});
  const options = { indexURL: base + manifest.pyodide.dir, env: { HOME: "/home/reader" } };
  if (urlOf) {
    options.stdLibURL = at("python_stdlib.zip");
    options.lockFileURL = at("pyodide-lock.json");
  }
  const py = await loadPyodide(options);
  lap("python");
  step("Python を起動しました");
  const site = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  const bytes = await wheelBytes;
  lap("fetched");
  wheels.forEach((w, i) => {
    py.unpackArchive(bytes[i], "wheel", { extractDir: site });
    step(w.replace(/^wheels\//, "").split("-")[0] + " を入れました");
  });
  lap("unpacked");
  // the plain models before any model module is imported (a no-op once one is)
  py.runPython("from rulesdsl.base import declared; declared.use_plain(); import rulesdsl.wiki.browser");
  lap("imported");
  step("インタプリタを読み込みました");
  const sessions = new Map();
  const later = manifest.onDemand || [];
  let installed = later.length ? null : Promise.resolve(false);
  // the on-demand wheels unpacked (once); true if this call installed them
  function installLater() {
    if (installed) return installed.then(() => false);
    installed = Promise.all(later.map((w) => fetchBytes(w))).then((got) => {
      got.forEach((b) => py.unpackArchive(b, "wheel", { extractDir: site }));
      py.runPython("import sys; sys.path_importer_cache.clear()");   // the folder was listed without them
      return true;
    });
    installed.catch(() => { installed = null; });
    return installed;
  }

  async function session(g) {
    if (sessions.has(g)) return sessions.get(g);
    const [snapshot, sources] = await files(g);
    const root = "/kb/" + g;
    for (const [path, text] of Object.entries(JSON.parse(decoder.decode(sources)))) {
      const full = root + "/" + path;
      py.FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
      py.FS.writeFile(full, text);
    }
    py.FS.writeFile(root + "/snapshot.json", snapshot);
    const tables = await tablesBytes;
    if (tables) py.FS.writeFile("/kb/parser.json", tables);
    const Session = py.pyimport("rulesdsl.wiki.browser").Session;
    const s = Session.open(root, root + "/snapshot.json", Boolean(manifest.dirUrls),
                           tables ? "/kb/parser.json" : null);
    sessions.set(g, s);
    return s;
  }

  return {
    version: manifest.pyodide.version,
    timings,
    // the game's knowledge base loaded, its engine imported and the parser built, ahead of a question
    async warm(g) {
      const s = await session(g);
      s.warm();
      lap("warm " + g);
    },
    // the answer as browser.Session.ask gives it: {ok, json, html, errors}
    async ask(g, text, pageRoot = "", takenIds = []) {
      const s = await session(g);
      const ids = py.toPy(takenIds);
      try {
        try {
          return JSON.parse(s.ask_json(text, pageRoot, ids));
        } catch (e) {
          // a module of an on-demand wheel was missing (lark, to explain a syntax error): the
          // question changed nothing before it failed, so it is asked again once they are in
          if (!(e instanceof py.ffi.PythonError) || e.type !== "ModuleNotFoundError" || !(await installLater())) throw e;
          return JSON.parse(s.ask_json(text, pageRoot, ids));
        }
      } finally {
        ids.destroy();
      }
    },
    // the modules imported so far from a file ([name, path]) of the standard library's zip or of
    // a wheel (what the shipped runtime must hold: ask_trim.py)
    modules() {
      return JSON.parse(py.runPython(
        "import json, sys; json.dumps(sorted([n, f] for n, m in list(sys.modules.items())"
        + " for f in [str(getattr(m, '__file__', None) or '')] if f.startswith(('/lib/python3', '" + site + "'))))"));
    },
  };
}
