// At build time (rulesdsl/wiki/ask_compile.py): starts the Pyodide the site ships, in Node, with
// the site's trimmed standard library and wheels; imports what a reader's first question imports
// (Pyodide's start, rulesdsl.wiki.browser, the imports of Session.warm, each game's engine, the
// parser), what a syntax error imports (lark) and every other module of rulesdsl's wheel; and compiles each module so imported to bytecode with Pyodide's own CPython, so the
// magic number and the code are the ones the browser would make itself.
// Usage: node ask_compile.mjs FOLDER < {"wheels": [names under FOLDER/wheels], "games": [ids]}
// FOLDER holds pyodide.mjs, pyodide.asm.mjs, pyodide.asm.wasm, pyodide-lock.json and the trimmed
// python_stdlib.zip. Prints [[archive, path of the .py in it, base64 of the .pyc, its syntax tree's nodes], …] in import
// order,
// archive being "stdlib" or a wheel's name.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const folder = path.resolve(process.argv[2]) + "/";
const ask = JSON.parse(fs.readFileSync(0, "utf8"));
const { loadPyodide } = await import(pathToFileURL(folder + "pyodide.mjs").href);
const py = await loadPyodide({ indexURL: folder, env: { HOME: "/home/reader" } });
const site = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
for (const w of ask.wheels) {
  py.unpackArchive(new Uint8Array(fs.readFileSync(folder + "wheels/" + w)), "wheel", { extractDir: site });
}
py.globals.set("GAMES", py.toPy(ask.games));
py.globals.set("TABLES", ask.tables ?? null);
py.globals.set("SITE", "/" + site.replace(/^\/+/, ""));   // sysconfig says //lib/…
process.stdout.write(py.runPython(`
import ast, base64, importlib.util, json, sys
before = list(sys.modules)
from rulesdsl.base import declared
declared.use_plain()                 # as the page answers (rdask-runtime.mjs)
from rulesdsl.base import cache
cache.memory_only("compiling the browser's bytecode")
import rulesdsl.wiki.browser
from rulesdsl.engine import readings, runner
from rulesdsl.engine.registry import engine_for
from rulesdsl.kb import build, verdict
from rulesdsl.lang.diagnostics import DslError
from rulesdsl.lang.parser import parse_text, use_shipped_tables
from rulesdsl.lang import snapshot   # the game's knowledge base is loaded from it (browser.Session)
from rulesdsl.wiki import answers, site
if TABLES:
    use_shipped_tables(TABLES.encode())
for g in GAMES:
    engine_for(g)
try:
    parse_text("", "q.rules")
except DslError:
    pass
try:                                 # a syntax error: lark explains it (manifest.onDemand)
    parse_text("scenario {", "q.rules")
except DslError:
    pass
import importlib, pkgutil, rulesdsl  # every module the wheel ships, whichever path imports it
for m in pkgutil.walk_packages(rulesdsl.__path__, "rulesdsl."):
    importlib.import_module(m.name)
from importlib._bootstrap_external import _code_to_hash_pyc
STDLIB = "/lib/python314.zip/"
out = []
for name in list(dict.fromkeys(before + list(sys.modules))):
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None) or ""
    spec = getattr(module, "__spec__", None)
    if not file.endswith(".py") or spec is None or spec.origin != file:   # frozen: compiled already
        continue
    if file.startswith(STDLIB):
        archive, inside = "stdlib", file[len(STDLIB):]
        data = module.__loader__.get_data(file)
    elif file.startswith(SITE + "/"):
        archive, inside = "wheels", file[len(SITE) + 1:]
        with open(file, "rb") as f:
            data = f.read()
    else:
        continue
    code = compile(data, file, "exec", dont_inherit=True)
    pyc = _code_to_hash_pyc(code, importlib.util.source_hash(data), False)
    nodes = sum(1 for _ in ast.walk(ast.parse(data)))   # what compiling costs, as a count
    out.append([archive, inside, base64.b64encode(bytes(pyc)).decode(), nodes])
json.dumps(out)
`));
