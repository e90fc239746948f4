"""A warm start for sandboxed kernels: run as a script by ``warm_kernels.py``, never imported by the grader.

    python zygote.py SOCKET MODULE [MODULE ...]
    python zygote.py --share MODULE ... --preload MODULE ... --same NAME ... (-m MODULE | --script PATH) ARGS

The zygote imports ipykernel and the libraries the notebooks import (MODULE ...), then forks one
launcher per request that arrives on the Unix socket SOCKET. Each forked child runs
``launch.launch`` exactly as a cold launcher would (namespaces, hidden files, its own uid, limits,
seccomp) and starts ipykernel in its own process. A cold kernel pays about 4 s of CPU to import Python's
libraries again for every submission. The zygote never runs student code and never reads a submission or a
grader file: it only imports libraries and receives launch configurations (paths, limits, environment),
so a kernel forked from it inherits nothing of another student or of the hidden tests.

Protocol, one connection per kernel: the grader sends one line of JSON (the launcher's configuration)
with three file descriptors attached: the status pipe, the kernel's log, and a lifeline whose other end
the grader holds. The zygote answers ``{"pid": N}``; when that launcher has exited, ``{"exit": CODE}``
(``os.waitstatus_to_exitcode``: negative for a signal), then closes the connection.

Libraries read some environment variables when imported (the Hugging Face cache, thread counts, the hash
seed), so the zygote is started with the kernel's environment. Every per-student path in that environment
points into one fixed folder (``warm_kernels.warm_scratch``), which each launcher binds to the student's
scratch in its own mount namespace. A request whose environment differs from the zygote's would run with libraries
configured for another environment, so it is refused, and so is any machine without a mount namespace.
The grader then starts a cold kernel.

**One submission** (the second form; Gradescope's ``run_autograder``, ``warm_kernels.runner_command``):
there the grader and its one kernel each imported torch and ``torch._dynamo``, about 200 MB of memory
that cannot be reclaimed, twice, in a container of 768 MB. So this script first imports the ``--share``
libraries (ones that read no per-kernel setting when imported), then forks the zygote, and then runs the
grader in itself (``-m MODULE`` or ``--script PATH``, with ``ARGS``), whose kernels the zygote forks
(``ZYGOTE_ENV`` names its socket): grader and kernel hold one copy of those pages. The zygote's memory
is this process's before the grader ran: the shared libraries and this script, nothing of the grader's
package, no submission, no grader file. It binds no scratch (``warm_kernels.warm_scratch`` is None for
it): it takes its first kernel's environment as its own, scratch included, imports the ``--preload``
libraries under it, and refuses any later kernel with another environment. It also refuses a kernel
whose ``--same`` variables differ from this process's own, which a fork cannot change (the hash seed,
read when Python starts; thread counts, read when OpenMP loads): that kernel starts cold. The zygote
ends when the grader's process does.
"""

import gc
import json
import os
import runpy
import select
import shutil
import socket
import sys
import tempfile

import launch

MAX_REQUEST = 1 << 20
ZYGOTE_ENV = "COURSE_KERNEL_ZYGOTE"  # warm_kernels.ZYGOTE_ENV: the grader's kernels ask the zygote it names
WARM_ENV = None  # the environment of every kernel this zygote forks (None: the first kernel's, see adopt)
ADOPTING = None  # for a one-submission zygote, until it has adopted: what ``adopt`` needs


def forget_zygote(sockets, pidfds, fds):
    """In a forked child: stdin from /dev/null, stdout and stderr to the kernel's log, and no file of the
    zygote's left open (its listening socket, other kernels' connections and process handles)."""
    status_fd, log_fd, lifeline = fds
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    for fd in {devnull, log_fd}:
        if fd > 2:
            os.close(fd)
    for sock in sockets:
        sock.close()
    for fd in pidfds:
        os.close(fd)
    os.set_inheritable(status_fd, True)
    os.setsid()  # its own session, as the cold launcher's start_new_session
    return status_fd, lifeline


def start_kernel(cfg):
    """ipykernel in this process, as ``python -m ipykernel_launcher`` would start it."""
    os.environ.clear()
    os.environ.update(cfg["env"])
    tempfile.tempdir = None
    # A fresh interpreter draws fresh seeds. Python's random module reseeds itself in a forked child;
    # numpy's global generator does not.
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    sys.path[:] = [p for p in sys.path if p != os.path.dirname(os.path.abspath(__file__))]
    sys.argv = ["ipykernel_launcher"] + cfg["argv"][3:]
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


def serve_one(conn, sockets, children):
    """Read one request from ``conn`` and fork its launcher. A grader that goes away mid-request (killed
    for its budget) costs only its own request: the zygote serves every other student's kernel."""
    try:
        data, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, 3)
    except OSError:
        conn.close()
        return
    try:
        cfg = json.loads(data.decode())
        if len(fds) != 3 or not isinstance(cfg, dict) or not isinstance(cfg.get("env"), dict):
            raise ValueError("a launch configuration with three file descriptors expected")
    except ValueError as error:
        for fd in fds:
            os.close(fd)
        try:
            conn.sendall(json.dumps({"error": str(error)}).encode() + b"\n")
        except OSError:
            pass
        conn.close()
        return
    refused = not adopt(cfg["env"])
    # What is imported so far stays out of every later collection, here and in the child: a collection
    # writes into each object it visits, and would copy into the child every page it shares with the
    # zygote (measured: a fork of a process holding torch and transformers copied 85 MB at its first
    # collection, 6 MB with this).
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        try:
            status_fd, lifeline = forget_zygote(sockets + [conn], list(children), fds)
            cfg["status_fd"] = status_fd
            if refused:
                os.write(
                    status_fd,
                    json.dumps(
                        {"warm": False, "notes": ["the kernel's environment differs from the warm zygote's"]}
                    ).encode(),
                )
                os._exit(launch.WARM_REFUSED)
            os._exit(launch.launch(cfg, lifeline, start_kernel))
        except BaseException as error:  # noqa: BLE001 - report and leave; nothing else can run here
            os.write(2, f"warm launcher: {error!r}\n".encode())
            os._exit(127)
    for fd in fds:
        os.close(fd)
    children[os.pidfd_open(pid)] = (pid, conn)
    try:
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    except OSError:
        pass  # its grader is gone: the launcher sees its lifeline closed and ends; reap() collects it


def adopt(env):
    """Whether a kernel with environment ``env`` may be forked from here. A one-submission zygote first
    takes ``env`` as its own and imports its ``--preload`` libraries under it (in itself, so that a
    restarted kernel is warm too); where a ``--same`` variable differs, or an import fails, it never
    adopts, and every kernel starts cold."""
    global WARM_ENV, ADOPTING
    if WARM_ENV is None and ADOPTING is not None:
        plan, ADOPTING = ADOPTING, None
        if any(env.get(name) != plan["same"].get(name) for name in plan["same"]):
            return False
        os.environ.clear()
        os.environ.update(env)
        sys.path[:] = [path for path in sys.path if path not in plan["grader_paths"]]
        sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
        try:
            for name in plan["preload"]:
                __import__(name)
        except BaseException as error:  # noqa: BLE001 - a cold kernel imports for itself
            os.write(2, f"warm zygote: importing {name} failed ({error!r}); kernels start cold\n".encode())
            return False
        WARM_ENV = dict(env)
    return WARM_ENV is not None and env == WARM_ENV


def reap(pidfd, children):
    pid, conn = children.pop(pidfd)
    os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    try:
        conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
    except OSError:
        pass  # the grader left first
    conn.close()


def serve(path, announce=True):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o600)  # the grader's alone (its folder is 0700 too): a kernel must never ask for a launch
    listener.listen(64)
    if announce:
        os.write(1, b"ready\n")
    children = {}
    while True:
        ready, _, _ = select.select([listener, 0, *children], [], [])
        if 0 in ready and not os.read(0, 1):
            return  # the grader closed our stdin: it is done with us (launchers die with us)
        for pidfd in [fd for fd in ready if fd in children]:
            reap(pidfd, children)
        if listener in ready:
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            serve_one(conn, [listener] + [c for _, c in children.values()], children)


def parse_runner(argv):
    """(share, preload, same, kind, target, args) of the second form's command line."""
    lists, key = {"--share": [], "--preload": [], "--same": []}, None
    for index, arg in enumerate(argv):
        if arg in lists:
            key = arg
        elif arg in ("-m", "--script"):
            if index + 1 >= len(argv):
                break
            return (*lists.values(), arg, argv[index + 1], argv[index + 2 :])
        elif key is None:
            break
        else:
            lists[key].append(arg)
    raise SystemExit("usage: zygote.py --share M ... --preload M ... --same NAME ... (-m MODULE | --script PATH) ARGS")


def run_with_zygote(argv):
    """The second form: import ``--share``, fork the one-submission zygote, then run the grader here."""
    global ADOPTING
    share, preload, same, kind, target, args = parse_runner(argv)
    for name in share:
        __import__(name)
    folder = tempfile.mkdtemp(prefix="course-zygote-", dir="/tmp")  # 0700: the grader's alone
    path = os.path.join(folder, "zygote.sock")
    keep_read, keep_write = os.pipe()  # the zygote ends when this process, which holds keep_write, does
    script_dir = os.path.dirname(os.path.abspath(__file__))
    grader_paths = {script_dir, *os.environ.get("PYTHONPATH", "").split(os.pathsep)} - {""}
    gc.freeze()  # as in serve_one: the grader's collections leave the pages it shares with the zygote alone
    pid = os.fork()
    if pid == 0:
        try:
            os.close(keep_write)
            os.dup2(keep_read, 0)
            os.close(keep_read)
            same_values = {name: os.environ.get(name) for name in same}
            ADOPTING = {"preload": preload, "same": same_values, "grader_paths": grader_paths}
            serve(path, announce=False)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            os._exit(0)
    os.close(keep_read)
    with open(os.path.join(folder, "pid"), "w") as handle:  # warm_kernels waits on it while it lives
        handle.write(str(pid))
    os.environ[ZYGOTE_ENV] = path
    sys.path[:] = [entry for entry in sys.path if entry != script_dir]
    if kind == "-m":
        sys.argv = [target, *args]
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.argv = [target, *args]
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runpy.run_path(target, run_name="__main__")


def main():
    if sys.argv[1:2] and sys.argv[1].startswith("-"):
        run_with_zygote(sys.argv[1:])
        return
    path, modules = sys.argv[1], sys.argv[2:]
    global WARM_ENV
    WARM_ENV = dict(os.environ)
    try:
        for name in modules:
            __import__(name)
    except BaseException as error:  # noqa: BLE001 - tell waiting graders to start cold kernels
        with open(os.path.join(os.path.dirname(path), "failed"), "w") as marker:
            marker.write(f"{name}: {error!r}\n")
        raise
    serve(path)


if __name__ == "__main__":
    main()
