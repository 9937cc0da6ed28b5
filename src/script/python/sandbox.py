# The Python that runs once in each worker's interpreter, before the memory snapshot every
# script starts from (see worker.ts). It defines `_flowmark_setup()`, which the worker calls
# directly (not through runPython, whose code it takes apart): it closes the interpreter (the
# JavaScript bridge modules removed and their dicts cleared, an audit hook refusing the imports
# and operations a script may not use) and returns `run(source, table, seed, recursion)`, which
# builds the RMP* objects from the method table, runs one script and returns its outcome as JSON
# text (the RunResult of ../worker/messages.ts, without its timing).
#
# Platform calls go through the character device `/dev/rmp`, opened here: a request is one
# write of `<method id> <JSON arguments>` (UTF-8), its reply is read until end of file — the
# JavaScript backend's reply format (`v<json>`, `m<json>`, `u`, `e<json>`). Python never holds a
# JavaScript object: only bytes cross.
#
# Read by run.ts when the pool starts (shipped in dist/ by `npm run build`).

def _flowmark_setup():
    import sys, os, gc, json, random, builtins, textwrap, _imp, datetime as _dt
    from types import SimpleNamespace

    # --- the JavaScript bridge: gone ---------------------------------------------------------
    BRIDGE = ('js', 'pyodide', 'pyodide_js', '_pyodide', '_pyodide_core')
    for finder in list(sys.meta_path):
        proxies = getattr(finder, 'jsproxies', None)
        if proxies is not None:
            proxies.clear()
        if str.partition(getattr(finder, '__module__', '') or '', '.')[0] in BRIDGE:
            sys.meta_path.remove(finder)
    for path_hook in list(sys.path_hooks):
        if str.partition(getattr(path_hook, '__module__', '') or '', '.')[0] in BRIDGE:
            sys.path_hooks.remove(path_hook)
    sys.path_importer_cache.clear()

    # Top-level names and dotted submodules (a name is blocked when it or a parent is listed).
    BLOCKED = frozenset(BRIDGE + (
        'micropip', 'ctypes', '_ctypes', 'socket', '_socket', 'ssl', '_ssl', 'select', 'selectors',
        'subprocess', '_posixsubprocess', 'multiprocessing', '_multiprocessing',
        'concurrent', 'asyncio', '_asyncio', 'urllib.request', 'urllib.robotparser',
        'http.client', 'http.server', 'http.cookiejar', 'ftplib', 'smtplib', 'poplib', 'imaplib',
        'socketserver', 'xmlrpc', 'webbrowser', 'mmap', 'sqlite3', '_sqlite3', 'signal', '_signal',
        'faulthandler', 'termios', 'fcntl', 'pty', 'tty', 'resource', '_imp', 'marshal',
        'tracemalloc', '_tracemalloc', '_remote_debugging', '_xxtestfuzz', '_posixshmem', 'pdb', 'bdb',
    ))

    def blocked(name):
        parts = str.split(name, '.')
        if str.startswith(parts[0], '_test'):
            return True
        for i in range(1, len(parts) + 1):
            if str.join('.', parts[:i]) in BLOCKED:
                return True
        return False

    # Pyodide's time.sleep goes through its event loop (gone below): the C one again.
    import time
    time.sleep = getattr(time.sleep, '__wrapped__', time.sleep)

    for name in list(sys.modules):
        if blocked(name):
            module = sys.modules.pop(name)
            if name.partition('.')[0] in BRIDGE:
                try:
                    vars(module).clear()
                except TypeError:
                    pass
    gc.collect()

    WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    READ_ONLY_EVENTS = frozenset({'os.listdir', 'os.scandir'})
    DENIED_PREFIXES = ('os.', 'shutil.', 'subprocess.', 'socket.', 'ctypes.', 'sqlite3.', 'urllib.',
                       'webbrowser.', 'mmap.', 'pty.', 'gc.get_', 'marshal.', 'winreg.', 'msvcrt.',
                       'cpython.', 'sys.remote_exec', '_posixsubprocess.', 'fcntl.', 'resource.',
                       'signal.', 'syslog.', 'pdb.')
    DENIED = frozenset({'code.__new__', 'sys.addaudithook', 'sys._current_frames',
                        'sys._current_exceptions',
                        'import.load_dynamic', 'sys.set_asyncgen_hooks_firstiter',
                        'ftplib.connect', 'smtplib.connect', 'http.client.connect',
                        'nntplib.connect', 'poplib.connect', 'imaplib.open', 'telnetlib.Telnet.open'})

    # A builtin module can be made without importing it (_imp.create_builtin, which importlib's
    # BuiltinImporter calls): that function is replaced by one that asks the audit hook, which
    # alone holds the real one and refuses the blocked names. No script code runs inside the
    # hook (it only reads exact str values), so its variables stay out of reach.
    real_create_builtin = _imp.create_builtin
    made = []

    def hook(event, args):
        if event == 'import':
            name = args[0]
            if type(name) is not str or blocked(name):
                raise ImportError('import of ' + (name if type(name) is str else '?') + ' is not allowed in a flowmark script')
        elif event == 'flowmark.create_builtin':
            name = args[0]
            if type(name) is not str or blocked(name):
                raise ImportError('import of ' + (name if type(name) is str else '?') + ' is not allowed in a flowmark script')
            made.append(real_create_builtin(SimpleNamespace(name=name, origin='built-in', loader=None,
                                                            submodule_search_locations=None, parent='')))
        elif event == 'open':
            path = args[0] if type(args[0]) is str else '?'
            mode = args[1] if type(args[1]) is str else ''
            flags = args[2] if len(args) > 2 and type(args[2]) is int else 0
            if any(c in mode for c in 'wax+') or flags & WRITE:
                raise PermissionError('a flowmark script cannot write files (' + path + ')')
        elif event in DENIED or (event.startswith(DENIED_PREFIXES) and event not in READ_ONLY_EVENTS):
            raise PermissionError(event + ' is not allowed in a flowmark script')

    class RefusingFinder:
        """Refuses the blocked modules to importlib.import_module too (the audit event is the import statement's)."""
        __module__ = 'flowmark'

        @staticmethod
        def find_spec(name, path=None, target=None):
            if type(name) is not str or blocked(name):
                raise ImportError('import of ' + (name if type(name) is str else '?') + ' is not allowed in a flowmark script')
            return None

    sys.meta_path.insert(0, RefusingFinder)

    def create_builtin(spec):
        name = spec.name
        if type(name) is not str:
            raise TypeError('create_builtin: the spec name must be a str')
        made.clear()
        sys.audit('flowmark.create_builtin', name)
        return made.pop()

    def create_dynamic(spec, file=None):
        raise ImportError('extension modules cannot be loaded in a flowmark script')

    _imp.create_builtin = create_builtin
    _imp.create_dynamic = create_dynamic

    # --- the platform bridge: a device of bytes ----------------------------------------------
    fd = os.open('/dev/rmp', os.O_RDWR)
    write, read = os.write, os.read
    dumps, loads = json.dumps, json.loads
    utc = _dt.timezone.utc
    datetime, date = _dt.datetime, _dt.date

    class RMPError(Exception):
        """A platform function failed: its message, as the template would show it."""

    def default(o):
        if isinstance(o, datetime):
            if o.tzinfo is None:
                o = o.replace(tzinfo=utc)
            o = o.astimezone(utc)
            return o.strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (o.microsecond // 1000)
        if isinstance(o, date):
            return o.isoformat()
        if isinstance(o, (set, frozenset)):
            return list(o)
        raise TypeError('Object of type ' + type(o).__name__ + ' is not JSON serializable')

    # A lone surrogate (a str may hold one) travels as a JSON escape: as UTF-8 it would reach
    # JavaScript as three U+FFFD; escaped, JavaScript gets the same string a JS script would pass.
    import re as _re
    lone_surrogates = _re.compile('[\ud800-\udfff]').sub

    def escape_surrogate(match):
        return '\\u%04x' % ord(match.group())

    def to_json(value):
        text = dumps(value, default=default, ensure_ascii=False, allow_nan=False, separators=(',', ':'))
        return lone_surrogates(escape_surrogate, text)

    class Run:
        pass

    def make_runner():
        def exchange(mid, text):
            write(fd, (str(mid) + ' ' + text).encode('utf-8', 'surrogatepass'))
            chunks = []
            while True:
                chunk = read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
            return b''.join(chunks).decode('utf-8')

        def marked_paths(run, value):
            paths = []
            seen = set()
            stack = [(value, [])]
            while stack:
                v, path = stack.pop()
                if not isinstance(v, (dict, list, tuple)) or id(v) in seen:
                    continue
                seen.add(id(v))
                if id(v) in run.marked and run.marked[id(v)] is v:
                    paths.append(path)
                items = v.items() if isinstance(v, dict) else enumerate(v)
                for k, item in items:
                    stack.append((item, path + [k]))
            return paths

        def mark(run, value, paths):
            for path in paths:
                v = value
                for key in path:
                    if isinstance(v, dict):
                        v = v.get(key)
                    elif isinstance(v, list) and isinstance(key, int) and 0 <= key < len(v):
                        v = v[key]
                    else:
                        v = None
                        break
                if isinstance(v, (dict, list)):
                    run.marked[id(v)] = v

        def call(run, label, mid, args):
            args = list(args)
            while args and args[-1] is None:
                args.pop()
            paths = marked_paths(run, args) if run.marked else []
            try:
                text = to_json([args, paths] if paths else args)
            except (TypeError, ValueError) as e:
                raise TypeError(label + ': ' + str(e)) from None
            reply = exchange(mid, ('m' + text) if paths else text)
            tag = reply[:1]
            if tag == 'u':
                return None
            if tag == 'v':
                return loads(reply[1:])
            if tag == 'm':
                value, paths = loads(reply[1:])
                mark(run, value, paths)
                return value
            raise RMPError(loads(reply[1:])['message'])

        def method(run, obj, name, mid):
            label = obj + '.' + name
            def platform_method(*args, **kwargs):
                if kwargs:
                    raise TypeError(label + '() takes no keyword arguments')
                return call(run, label, mid, args)
            platform_method.__name__ = name
            platform_method.__qualname__ = label
            return platform_method

        def encode(value):
            if value is None:
                return 'n'
            if isinstance(value, str):
                return 's' + value
            return 'j' + to_json(value)

        def objects(run, table):
            made = {}
            # TableObject records of ../worker/messages.ts
            for entry in loads(table):
                obj = entry['object']
                attrs = {m['name']: staticmethod(method(run, obj, m['name'], m['id'])) for m in entry['methods']}
                if obj == 'RMPData':
                    def setOutput(value):
                        run.output = encode(value)
                    setOutput.__qualname__ = 'RMPData.setOutput'
                    attrs['setOutput'] = staticmethod(setOutput)
                attrs['__slots__'] = ()
                attrs['__repr__'] = lambda self, obj=obj: '<' + obj + '>'
                made[obj] = type(obj, (), attrs)()
            return made

        def where(tb):
            line = None
            while tb is not None:
                if tb.tb_frame.f_code.co_filename == '<script>':
                    line = tb.tb_lineno
                tb = tb.tb_next
            return line

        def failure(kind, e, line=None, column=None):
            out = {'kind': kind}
            if e is not None:
                try:
                    message = str(e)
                except BaseException:
                    message = '(the message could not be read)'
                # RMPError: the function's message alone; an exception without one: its name alone.
                if type(e) is RMPError or not message:
                    out['name'] = ''
                    out['message'] = message or type(e).__name__
                else:
                    out['name'] = type(e).__name__
                    out['message'] = message
            if line is not None:
                out['line'] = line
            if column is not None:
                out['column'] = column
            return out

        def run_script(source, table, seed, recursion):
            random.seed(seed)
            run = Run()
            run.output = 'n'
            run.marked = {}
            try:
                text = textwrap.dedent(source)
                indent = 0
                for a, b in zip(source.splitlines(), text.splitlines()):
                    if b.strip():
                        indent = len(a) - len(b)
                        break
                try:
                    code = compile(text, '<script>', 'exec', dont_inherit=True)
                except SyntaxError as e:
                    column = e.offset + indent if isinstance(e.offset, int) and e.offset > 0 else None
                    out = failure('syntax', None, e.lineno, column)
                    out['name'] = type(e).__name__
                    out['message'] = str(e.msg)
                    return to_json({'failure': out})
                scope = {'__name__': '__main__', '__builtins__': builtins, 'RMPError': RMPError}
                scope.update(objects(run, table))
                sys.setrecursionlimit(recursion)
                try:
                    exec(code, scope)
                except SystemExit as e:
                    if e.code not in (None, 0):
                        return to_json({'failure': failure('exception', e, where(e.__traceback__))})
                except KeyboardInterrupt as e:
                    return to_json({'failure': failure('cpu-time', e, where(e.__traceback__))})
                except MemoryError as e:
                    return to_json({'failure': failure('memory', e, where(e.__traceback__))})
                except RecursionError as e:
                    return to_json({'failure': failure('stack', e, where(e.__traceback__))})
                except BaseException as e:
                    return to_json({'failure': failure('exception', e, where(e.__traceback__))})
                return to_json({'output': run.output})
            except KeyboardInterrupt:
                return '{"failure":{"kind":"cpu-time"}}'
            except MemoryError:
                return '{"failure":{"kind":"memory"}}'
            except BaseException as e:
                return to_json({'failure': failure('internal', e)})

        return run_script

    runner = make_runner()
    sys.addaudithook(hook)
    return runner
