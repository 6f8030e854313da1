// The interpreter in the reader's browser: starts Pyodide, installs the wheels the wiki build
// shipped (assets/ask/manifest.json, made by rulesdsl/wiki/ask_bundle.py), writes a game's
// knowledge base into Pyodide's in-memory file system, and answers questions with
// rulesdsl/wiki/browser.py. Used by the page's worker (rdask-worker.mjs) and by the Node test
// (tests/node/ask_questions.mjs), so that the test runs what the page runs.

const decoder = new TextDecoder();

// start({loadPyodide, base, manifest, fetchBytes, progress}) -> {ask(game, text, root, ids)}
// base: the URL (or folder) of assets/ask/, ending in "/"; fetchBytes(path under base) -> Uint8Array
export async function start({ loadPyodide, base, manifest, fetchBytes, progress = () => {} }) {
  const wheels = manifest.wheels;
  const steps = wheels.length + 2;
  let done = 0;
  const step = (what) => progress(what, ++done / steps);
  progress("Python（Pyodide " + manifest.pyodide.version + "）を読み込んでいます", 0);
  const py = await loadPyodide({ indexURL: base + manifest.pyodide.dir, env: { HOME: "/home/reader" } });
  step("Python を起動しました");
  const site = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  const bytes = await Promise.all(wheels.map((w) => fetchBytes(w)));
  wheels.forEach((w, i) => {
    py.unpackArchive(bytes[i], "wheel", { extractDir: site });
    step(w.replace(/^wheels\//, "").split("-")[0] + " を入れました");
  });
  py.runPython("import rulesdsl.wiki.browser");
  step("インタプリタを読み込みました");
  const sessions = new Map();

  async function session(game) {
    if (sessions.has(game)) return sessions.get(game);
    const g = manifest.games[game];
    if (!g) throw new Error("このゲームにはインタプリタがありません: " + game);
    const [snapshot, sources] = await Promise.all([fetchBytes(g.snapshot), fetchBytes(g.sources)]);
    const root = "/kb/" + game;
    for (const [path, text] of Object.entries(JSON.parse(decoder.decode(sources)))) {
      const full = root + "/" + path;
      py.FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
      py.FS.writeFile(full, text);
    }
    py.FS.writeFile(root + "/snapshot.json", snapshot);
    const Session = py.pyimport("rulesdsl.wiki.browser").Session;
    const s = Session.open(root, root + "/snapshot.json", Boolean(manifest.dirUrls));
    sessions.set(game, s);
    return s;
  }

  return {
    version: manifest.pyodide.version,
    // the modules imported so far from a file ([name, path]) of the standard library's zip or of a wheel (what
    // the shipped runtime must hold: ask_trim.py)
    modules() {
      return JSON.parse(py.runPython(
        "import json, sys; json.dumps(sorted([n, f] for n, m in list(sys.modules.items())"
        + " for f in [str(getattr(m, '__file__', None) or '')] if f.startswith(('/lib/python3', '" + site + "'))))"));
    },
    // the answer as browser.Session.ask gives it: {ok, json, html, errors}
    async ask(game, text, pageRoot = "", takenIds = []) {
      const s = await session(game);
      const ids = py.toPy(takenIds);
      try {
        return JSON.parse(s.ask_json(text, pageRoot, ids));
      } finally {
        ids.destroy();
      }
    },
  };
}
