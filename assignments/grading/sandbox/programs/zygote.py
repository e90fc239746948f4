"""A warm start for sandboxed kernels: run as a script by ``warm_kernels.py``, never imported by the grader.

    python zygote.py SOCKET MODULE [MODULE ...]

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
"""

import json
import os
import select
import socket
import sys
import tempfile

import launch

MAX_REQUEST = 1 << 20


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
    refused = cfg["env"] != WARM_ENV
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


def reap(pidfd, children):
    pid, conn = children.pop(pidfd)
    os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    try:
        conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
    except OSError:
        pass  # the grader left first
    conn.close()


def serve(path):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
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


def main():
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
