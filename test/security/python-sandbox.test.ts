/**
 * Hostile Python scripts, through templates: the JavaScript bridge Pyodide gives Python is shut
 * (the modules, their re-creation, the finders that served them), no file can be written and
 * the host's files are not there, no network, threads, subprocesses, ctypes or interpreter
 * internals, and nothing a script does to the interpreter reaches the next script.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts, configurePythonScripts } from '../../src/script/index.js';
import type { TemplateError } from '../../src/template/index.js';

afterAll(() => closeScripts());

const ctx = createExecutionContext({ clock: () => Date.UTC(2024, 0, 15) });
const py = (body: string) => `<@script env="python"><#noparse>${body}</#noparse></@script>`;
const out = async (body: string) => (await evaluate(py(body), ctx, {})).output;
/** The first line of the error a script ends with. */
const error = async (body: string): Promise<string> => {
  try {
    await evaluate(py(body), ctx, {});
  } catch (e) {
    return (e as TemplateError).message.split('\n')[0]!;
  }
  throw new Error(`did not fail: ${body}`);
};
const refused = (name: string, line = 1) =>
  `ImportError: import of ${name} is not allowed in a flowmark script (script line ${line})`;

beforeAll(async () => {
  configurePythonScripts({ workers: 1 });
  await out('pass');
}, 120_000);

describe('the JavaScript bridge is shut', () => {
  it('js, pyodide, pyodide_js and the core module cannot be imported, by any spelling', async () => {
    expect(await error('import js')).toBe(refused('js'));
    expect(await error('from js import globalThis')).toBe(refused('js'));
    expect(await error('import pyodide.ffi')).toBe(refused('pyodide.ffi'));
    expect(await error('from pyodide.code import run_js')).toBe(refused('pyodide.code'));
    expect(await error('import pyodide_js')).toBe(refused('pyodide_js'));
    expect(await error('import _pyodide_core')).toBe(refused('_pyodide_core'));
    expect(await error('import _pyodide._importhook')).toBe(refused('_pyodide._importhook'));
    expect(await error('__import__("js")')).toBe(refused('js'));
    expect(await error('import importlib\nimportlib.import_module("js")')).toBe(refused('js', 2));
    expect(await error('exec("import js")')).toBe(refused('js'));
  });

  it('nothing of them is left in sys.modules or among the finders', async () => {
    expect(
      JSON.parse(
        await out(
          'import sys\nRMPData.setOutput([sorted(k for k in sys.modules if k == "js" or k.startswith(("js.", "pyodide", "_pyodide"))), ' +
            '[getattr(f, "__module__", "") for f in sys.meta_path], [getattr(h, "__module__", "") for h in sys.path_hooks]])',
        ),
      ),
    ).toEqual([
      [],
      ['flowmark', '_frozen_importlib', '_frozen_importlib', '_frozen_importlib_external'],
      ['zipimport', '_frozen_importlib_external'],
    ]);
  });

  it('a blocked builtin module cannot be re-made behind the import statement', async () => {
    const spec = (name: string) => `importlib.machinery.ModuleSpec("${name}", None, origin="built-in")`;
    expect(
      await error(
        `import importlib._bootstrap as b\nb._imp.create_builtin(${spec('_pyodide_core').replace('importlib.machinery', 'b')})`,
      ),
    ).toBe(refused('_pyodide_core', 2));
    expect(
      await error(
        'import importlib.machinery\n' +
          `[c for c in object.__subclasses__() if c.__name__ == "BuiltinImporter"][0].create_module(${spec('_ctypes')})`,
      ),
    ).toBe(refused('_ctypes', 2));
    expect(await error('import sys\nsys.audit("flowmark.create_builtin", "_testcapi")')).toBe(
      refused('_testcapi', 2),
    );
    expect(
      await error(
        `import importlib.machinery, importlib._bootstrap as b\nb._imp.create_dynamic(${spec('x')})`,
      ),
    ).toBe('ImportError: extension modules cannot be loaded in a flowmark script (script line 2)');
    // Allowed builtins are still made.
    expect(
      await out(
        `import importlib.machinery, importlib._bootstrap as b\nRMPData.setOutput(b._imp.create_builtin(${spec('math')}).sqrt(9))`,
      ),
    ).toBe('3.0');
  });
});

describe('no file system of the host, nothing writable', () => {
  it('sees only the in-memory file system holding the standard library', async () => {
    expect(
      await out('import os\nRMPData.setOutput([sorted(os.listdir("/")), os.listdir("/tmp"), os.getcwd()])'),
    ).toBe('[["dev","home","lib","proc","tmp"],[],"/home/pyodide"]');
    expect(await error('open("/etc/passwd").read()')).toBe(
      "FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd' (script line 1)",
    );
  });

  it('cannot write, create, remove or rename a file, even in /tmp or the standard library', async () => {
    expect(await error('open("/tmp/x", "w").write("x")')).toBe(
      'PermissionError: a flowmark script cannot write files (/tmp/x) (script line 1)',
    );
    expect(
      await error('import os\nos.open("/lib/python3.14/json/__init__.py", os.O_WRONLY | os.O_TRUNC)'),
    ).toBe(
      'PermissionError: a flowmark script cannot write files (/lib/python3.14/json/__init__.py) (script line 2)',
    );
    expect(await error('import os\nos.mkdir("/tmp/d")')).toBe(
      'PermissionError: os.mkdir is not allowed in a flowmark script (script line 2)',
    );
    expect(await error('import os\nos.remove("/lib/python314.zip")')).toBe(
      'PermissionError: os.remove is not allowed in a flowmark script (script line 2)',
    );
    expect(await error('import os\nos.rename("/lib/python314.zip", "/tmp/z")')).toBe(
      'PermissionError: os.rename is not allowed in a flowmark script (script line 2)',
    );
    expect(await error('import shutil\nshutil.rmtree("/lib")')).toBe(
      'PermissionError: shutil.rmtree is not allowed in a flowmark script (script line 2)',
    );
    // The platform bridge's device cannot be opened again.
    expect(await error('import os\nos.open("/dev/rmp", os.O_RDWR)')).toBe(
      'PermissionError: a flowmark script cannot write files (/dev/rmp) (script line 2)',
    );
  });
});

describe('no network, processes, threads, native memory or interpreter internals', () => {
  it('refuses the modules', async () => {
    for (const name of [
      'socket',
      'ssl',
      'select',
      'asyncio',
      'ftplib',
      'subprocess',
      'multiprocessing',
      'ctypes',
      'mmap',
      'signal',
      'marshal',
      'sqlite3',
      '_testcapi',
      '_testinternalcapi',
      'faulthandler',
      '_imp',
    ])
      expect(await error(`import ${name}`), name).toBe(refused(name));
    expect(await error('import urllib.request')).toBe(refused('urllib.request'));
    expect(await error('import http.client')).toBe(refused('http.client'));
    expect(await error('import importlib\nimportlib.import_module("socket")')).toBe(refused('socket', 2));
  });

  it('threading may be imported (the standard library uses it) but no thread starts', async () => {
    expect(await error('import threading\nthreading.Thread(target=print).start()')).toBe(
      "RuntimeError: can't start new thread (script line 2)",
    );
    expect(await error('import _thread\n_thread.start_new_thread(print, ())')).toBe(
      "RuntimeError: can't start new thread (script line 2)",
    );
  });

  it('refuses the operations, even through modules already loaded', async () => {
    expect(await error('import os\nos.system("ls")')).toBe(
      'PermissionError: os.system is not allowed in a flowmark script (script line 2)',
    );
    expect(await error('import os\nos.kill(1, 9)')).toBe(
      'PermissionError: os.kill is not allowed in a flowmark script (script line 2)',
    );
    expect(await error('import os\nos.putenv("A", "b")')).toBe(
      'PermissionError: os.putenv is not allowed in a flowmark script (script line 2)',
    );
    expect(await error('import gc\ngc.get_objects()')).toBe(
      'PermissionError: gc.get_objects is not allowed in a flowmark script (script line 2)',
    );
    expect(await error('import gc\ngc.get_referrers(RMPData)')).toBe(
      'PermissionError: gc.get_referrers is not allowed in a flowmark script (script line 2)',
    );
    expect(await error('(lambda: 0).__code__.replace(co_consts=(1,))')).toBe(
      'PermissionError: code.__new__ is not allowed in a flowmark script (script line 1)',
    );
    // The socket type (loaded before the lockdown, reached without importing it) refuses to make a socket.
    expect(await error('[c for c in object.__subclasses__() if c.__module__ == "_socket"][0]()')).toBe(
      'PermissionError: socket.__new__ is not allowed in a flowmark script (script line 1)',
    );
    expect(await out('import urllib.parse\nRMPData.setOutput(urllib.parse.quote("a b"))')).toBe('a%20b');
  });
});

describe('no state leaks between scripts', () => {
  it('sys.modules surgery, a planted finder, patched json and builtins are gone for the next script', async () => {
    expect(
      await out(
        [
          'import sys, json, builtins, types',
          'fake = types.ModuleType("json")',
          'fake.dumps = lambda *a, **k: "fake"',
          'sys.modules["json"] = fake',
          'class Finder:',
          '    def find_spec(self, name, path, target=None):',
          '        raise ImportError("planted")',
          'sys.meta_path.insert(0, Finder())',
          'builtins.print = None',
          'builtins.RMPData = "hijacked"',
          'json.JSONEncoder.default = lambda self, o: "leak"',
          'RMPData.setOutput("done")',
        ].join('\n'),
      ),
    ).toBe('done');
    expect(
      await out(
        [
          'import json, builtins, sys, decimal',
          'class X: pass',
          'try:',
          '    json.dumps(X())',
          '    encoder = "patched"',
          'except TypeError:',
          '    encoder = "clean"',
          'RMPData.setOutput([json.dumps([1]), builtins.print is not None, len(sys.meta_path), encoder,',
          '    str(decimal.Decimal("1.5")), type(RMPData).__name__])',
        ].join('\n'),
      ),
    ).toBe('["[1]",true,4,"clean","1.5","RMPData"]');
  });
});

describe('the platform bridge survives a script that breaks its own', () => {
  it('after closing or replacing every file descriptor, the next script still calls the platform', async () => {
    expect(
      await out(
        'import os\nfor fd in range(3, 16):\n    try:\n        os.close(fd)\n    except OSError:\n        pass\nRMPData.setOutput("damaged")',
      ),
    ).toBe('damaged');
    expect(await out('RMPData.setOutput(RMPUtilities.jsonPut({}, "ok", True))')).toBe('{"ok":true}');
    expect(await out('import os\nos.dup2(1, 3)\nRMPData.setOutput("damaged")')).toBe('damaged');
    expect(await out('RMPData.setOutput(RMPUtilities.jsonPut({}, "ok", 2))')).toBe('{"ok":2}');
  }, 60_000);
});

describe('the JavaScript world around the interpreter is closed too (defence in depth)', () => {
  it('a JsProxy planted before the lockdown cannot generate code (Function, eval are refused)', async () => {
    const { SandboxPool } = await import('../../src/script/pool.js');
    const { pythonProgram, pythonSetup } = await import('../../src/script/python/run.js');
    const { scriptApi, DEFAULT_SCRIPT_LIMITS } = await import('../../src/script/index.js');
    const { defaultRegistry } = await import('../../src/functions/registry.js');
    // A worker whose setup keeps a way to make JsProxies (what an escape would have to find).
    const planted = `${pythonSetup()}\nimport builtins, _pyodide_core\nbuiltins.planted = _pyodide_core.create_proxy\n`;
    const pool = new SandboxPool(
      1,
      pythonProgram(() => planted),
    );
    const run = async (source: string) => {
      const outcome = await pool.run(
        {
          source,
          table: scriptApi(defaultRegistry()).table,
          limits: DEFAULT_SCRIPT_LIMITS,
          extra: { interrupt: new SharedArrayBuffer(16) },
        },
        () => 'u',
        60_000,
      );
      return outcome.failure ? `${outcome.failure.name}: ${outcome.failure.message}` : outcome.output;
    };
    try {
      expect(await run('p = planted(lambda: 1)\nRMPData.setOutput(type(p).__name__)')).toBe('sJsProxy');
      expect(await run('planted(lambda: 1).constructor.constructor("return process")()')).toBe(
        'JsException: EvalError: code generation is disabled in the sandbox',
      );
      expect(await run('planted(lambda: 1).call.constructor("return 1")()')).toBe(
        'JsException: EvalError: code generation is disabled in the sandbox',
      );
    } finally {
      await pool.close();
    }
  }, 120_000);
});
