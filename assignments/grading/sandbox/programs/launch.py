"""Start one sandboxed Jupyter kernel: run as a script by ``sandbox.py``, never imported by the grader.

    python launch.py <fd of a pipe that carries the json config>

Standard library only, because it runs before (and around) the student's kernel. Three processes:

- **launcher** (this script): makes itself and so every process of the sandbox the OOM killer's first
  choice (``oom_score_adj``), joins the sandbox's cgroup where the grader made one (before it forks
  anything, so every process of the sandbox starts there), enters new Linux namespaces (mount, network,
  PID, IPC; plus a user namespace when not root), hides the repository, the grader's home and the
  submissions folder under empty tmpfs mounts and the system's temporary folders behind one private
  tmpfs of a bounded size, binds back only what the kernel needs (the Python installation and the
  scratch folder), makes every other mount read-only, then forks
- **init** (PID 1 of the new PID namespace): mounts a fresh ``/proc`` that shows only the sandbox's own
  processes (with ``hidepid`` where the kernel has it, which hides even init from the kernel's uid),
  forwards SIGINT to the kernel, reaps orphans; when it exits the kernel dies with it
- **kernel**: resource limits, drops to an unprivileged user (the sandbox's own uid when the grader is
  root; an empty capability set in a user namespace otherwise), writes a status report for the grader on an
  inherited pipe, and execs ``python -m ipykernel_launcher``.

Each step that the machine refuses (no user namespaces, no mount_setattr, ...) is skipped and reported in
the status, so the grader can record exactly what protection the student's code ran under.

**Warm start** (``programs/zygote.py``): the same steps run in a process forked from a zygote that has
already imported ipykernel, torch and the notebooks' libraries, so ``launch`` is also a function. The
kernel then starts ipykernel in its own process instead of exec'ing Python, its scratch folder is bound
again at the fixed path ``cfg["warm_scratch"]`` that the zygote's environment named before those
libraries read it, and the launcher dies when the grader closes ``lifeline`` (its parent is the zygote).
A warm start needs the mount namespace (except from a zygote whose environment names the kernel's own
scratch); without one the launcher reports ``warm: false`` and exits, and the grader starts a cold kernel
instead.

**Fallback without namespaces** (a default Docker container run as root, Gradescope; forced with the
grader's ``NO_NAMESPACES_ENV`` switch): the kernel still drops to the sandbox's own unprivileged uid, so
permissions keep it out of the grader's 0700 folders, other kernels' scratch folders and the grader's
processes, and a seccomp filter refuses every socket but ``AF_UNIX`` (ZMQ's ipc transport) and
``io_uring_setup``. What permissions cannot give (world-readable or world-writable paths, the process
list) is measured for that uid and reported in the status. Where that uid cannot reach the Python
installation, the kernel is not started at all (``fallback``), and the status says why.

Why one file of this length: it runs as a program with the standard library only (no import from the
package may reach the kernel's side), so everything the launcher does before ``execve`` is here.
"""

import ctypes
import errno
import json
import os
import resource
import select
import signal
import sys

CLONE_NEWNS, CLONE_NEWIPC = 0x00020000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MOUNT_ATTR_RDONLY, AT_RECURSIVE, AT_FDCWD = 0x1, 0x8000, -100
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (generic syscall table)
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
LINUX_CAPABILITY_VERSION_3 = 0x20080522

# Seccomp, per architecture: the audit arch value the kernel reports, and the syscall numbers refused.
# x86_64 also refuses every x32 syscall (numbers with bit 30 set), which would reach socket() by another
# number. Any other architecture (including 32-bit compat calls on these machines) is refused outright.
SECCOMP_ARCHES = {
    "x86_64": {
        "audit_arch": 0xC000003E,
        "socket": 41,
        "io_uring_setup": 425,
        "x32_bit": 0x40000000,
        "setsid": 112,
        "setpgid": 109,
        "unaccounted": (319, 447, 29, 64, 68),  # memfd_create, memfd_secret, shmget, semget, msgget
    },
    "aarch64": {
        "audit_arch": 0xC00000B7,
        "socket": 198,
        "io_uring_setup": 425,
        "x32_bit": None,
        "setsid": 157,
        "setpgid": 154,
        "unaccounted": (279, 447, 194, 190, 186),  # memfd_create, memfd_secret, shmget, semget, msgget
    },
}
AF_UNIX = 1
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x06
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
SECCOMP_DATA_NR, SECCOMP_DATA_ARCH, SECCOMP_DATA_ARG0 = 0, 4, 16  # offsets in struct seccomp_data

libc = ctypes.CDLL(None, use_errno=True)


class MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


class CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(source, target, fstype, flags, data=None):
    _check(
        libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def set_readonly(path, readonly):
    attr = MountAttr(MOUNT_ATTR_RDONLY if readonly else 0, 0 if readonly else MOUNT_ATTR_RDONLY, 0, 0)
    _check(
        libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), AT_RECURSIVE, ctypes.byref(attr), ctypes.sizeof(attr)),
        f"mount_setattr {path}",
    )


def prctl(option, value):
    return libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0)


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def network_filter(machine, network=True):
    """BPF program: no new session or process group (EPERM), no memory outside every count (ENOSYS) and,
    with ``network``, AF_UNIX sockets only and no io_uring; None for an architecture we do not know.

    Sessions: the scheduler's autogroups give each session an equal share of the CPU, and every sandbox
    is one session (its launcher's), so a kernel whose busy children each called setsid() took a share
    per child and starved a classmate's kernel; kept in one session, a sandbox gets one share.

    Memory: a memfd's pages (``memfd_create``, ``memfd_secret``) are in no file system the grader can
    measure and in no process's resident memory until mapped, and SysV shared memory, semaphores and
    message queues outlive the kernel in the host's IPC namespace (the fallback's); only a cgroup would
    charge them. ENOSYS is what a kernel built without them answers, which libraries that use them
    already expect (torch's asmjit keeps a fallback for a memfd_create that is not supported)."""
    arch = SECCOMP_ARCHES.get(machine)
    if arch is None:
        return None
    # EOPNOTSUPP, not EPERM: ipykernel binds its IOPub pipe to tcp://127.0.0.1, and libzmq resolves that
    # through getifaddrs (a netlink socket), aborting the whole process on any error except EINVAL or
    # EOPNOTSUPP; with EOPNOTSUPP it gives up on TCP cleanly and ipykernel carries on without that pipe.
    refuse = SECCOMP_RET_ERRNO | errno.EOPNOTSUPP
    # (code, jump-if-true label, jump-if-false label, k); labels are resolved to relative offsets below.
    program = [
        ("ld", None, None, SECCOMP_DATA_ARCH),
        ("jeq", "nr", "refuse", arch["audit_arch"]),
        ("nr:ld", None, None, SECCOMP_DATA_NR),
    ]
    if arch["x32_bit"]:
        program.append(("jge", "refuse", None, arch["x32_bit"]))
    program += [("jeq", "session", None, arch["setsid"]), ("jeq", "session", None, arch["setpgid"])]
    program += [("jeq", "nosys", None, number) for number in arch["unaccounted"]]
    if network:
        program += [("jeq", "family", None, arch["socket"]), ("jeq", "refuse", None, arch["io_uring_setup"])]
    program.append(("ret", None, None, SECCOMP_RET_ALLOW))
    if network:
        program += [
            ("family:ld", None, None, SECCOMP_DATA_ARG0),  # low 32 bits of the int argument
            ("jeq", "unix", "refuse", AF_UNIX),
        ]
    program += [
        ("refuse:ret", None, None, refuse),
        ("session:ret", None, None, SECCOMP_RET_ERRNO | errno.EPERM),
        ("nosys:ret", None, None, SECCOMP_RET_ERRNO | errno.ENOSYS),
    ]
    if network:
        program.append(("unix:ret", None, None, SECCOMP_RET_ALLOW))  # BPF jumps only forward
    labels = {op.split(":")[0]: i for i, (op, *_) in enumerate(program) if ":" in op}
    codes = {"ld": BPF_LD_W_ABS, "jeq": BPF_JEQ_K, "jge": BPF_JGE_K, "ret": BPF_RET_K}
    out = []
    for i, (op, jt, jf, k) in enumerate(program):
        offset = lambda label, i=i: 0 if label is None else labels[label] - i - 1  # noqa: E731
        jump_true, jump_false = offset(jt), offset(jf)
        assert 0 <= jump_true < 256 and 0 <= jump_false < 256, "BPF jumps are forward and short"
        out.append(SockFilter(codes[op.split(":")[-1]], jump_true, jump_false, k))
    return out


def install_filter(status, network):
    """Install the filter in this process (inherited across exec); record what holds: ``sessions`` (one
    session for the whole sandbox), ``uncounted_memory_refused`` (memfds and SysV IPC) and, when
    ``network`` is asked for, ``seccomp`` (no network)."""
    machine = os.uname().machine
    program = network_filter(machine, network)
    lost = "the kernel may start sessions and use memfds and SysV IPC, which only a cgroup counts"
    lost = f"{lost}, and it has the network" if network else lost
    if program is None:
        status["notes"].append(f"no seccomp filter for architecture {machine!r}: {lost}")
        return
    array = (SockFilter * len(program))(*program)
    fprog = SockFprog(len(program), array)
    if libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog), 0, 0) != 0:
        status["notes"].append(f"seccomp refused ({os.strerror(ctypes.get_errno())}): {lost}")
        return
    status["sessions"] = True
    status["uncounted_memory_refused"] = True
    if network:
        status["seccomp"] = True


def _as_user(uid, gid, check):
    """Run ``check`` with the effective ids of ``uid``/``gid`` (root only), then become root again."""
    os.setgroups([])
    os.setegid(gid)
    os.seteuid(uid)
    try:
        return check()
    finally:
        os.seteuid(0)
        os.setegid(0)


def measure_permissions(cfg, uid, gid):
    """What the kernel's uid could reach without namespaces: the sole protection there is permissions."""

    def check():
        def can(path, mode):
            return os.access(path, mode, effective_ids=True)

        return {
            "interpreter": [p for p in [cfg["argv"][0]] if not can(p, os.X_OK)]
            + [p for p in cfg["keep"][:-1] if not can(p, os.R_OK | os.X_OK)],
            "readable": [p for p in cfg["hide"] if os.path.exists(p) and (can(p, os.R_OK) or can(p, os.X_OK))],
            "writable": [p for p in cfg["private_tmp"] if os.path.isdir(p) and can(p, os.W_OK | os.X_OK)],
        }

    return _as_user(uid, gid, check)


def inside(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def enter_namespaces(status):
    """Unshare as much as this machine allows; record what we got."""
    root = os.geteuid() == 0
    uid, gid = os.geteuid(), os.getegid()
    wanted = [("mount", CLONE_NEWNS), ("network", CLONE_NEWNET), ("pid", CLONE_NEWPID), ("ipc", CLONE_NEWIPC)]
    attempts = [wanted, wanted[:1] + wanted[2:], wanted[:1], []]
    for attempt in attempts:
        flags = 0 if root else CLONE_NEWUSER
        for _, flag in attempt:
            flags |= flag
        if not attempt:
            status["notes"].append("no Linux namespaces available")
            return set()
        if libc.unshare(ctypes.c_int(flags)) == 0:
            if not root:
                for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
                    with open(f"/proc/self/{name}", "w") as handle:
                        handle.write(text)
            got = {name for name, _ in attempt}
            status["user_namespace"] = not root
            return got
        status["notes"].append(f"unshare({'+'.join(n for n, _ in attempt)}) refused: {os.strerror(ctypes.get_errno())}")
    return set()


def share_tmpfs(paths, size, files):
    """One tmpfs of ``size`` bytes and ``files`` inodes behind every writable temporary folder (``/tmp``,
    ``/var/tmp``, ``/dev/shm``): its pages are memory, so the kernel's memory limit counts them (the grader
    measures this one file system, ``status["tmpfs"]``), and together they never hold more than ``size``,
    however the kernel spreads its files (nor more inodes, which cost memory that no block count shows).
    Mounted on the first path with a folder per path inside; each folder is bound on its path, the first
    one over the file system's own root, which hides the other folders."""
    first = paths[0]
    mount("tmpfs", first, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=0755,size={size},nr_inodes={files}")
    folders = [os.path.join(first, str(i)) for i in range(len(paths))]
    for folder in folders:
        os.mkdir(folder)
        os.chmod(folder, 0o1777)
    for folder, path in list(zip(folders, paths))[1:] + [(folders[0], first)]:
        mount(folder, path, None, MS_BIND)


def hide_and_keep(cfg, status):
    """Empty tmpfs over everything hidden, one private tmpfs behind the temporary folders; bind back what
    the kernel needs; the rest read-only."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    keeps = [p for p in cfg["keep"] if os.path.isdir(p)]
    fds = {path: os.open(path, os.O_RDONLY | os.O_DIRECTORY) for path in keeps}
    # real paths: a temporary folder that is a link to another (/var/tmp -> /tmp) is one folder
    private = {os.path.realpath(p) for p in cfg["private_tmp"] if os.path.isdir(p)}
    hidden, writable = [], []
    for path in sorted(set(cfg["hide"]) | private, key=len):
        if any(inside(path, done) for done in hidden) or not os.path.isdir(path):
            continue
        if path in private:
            writable.append(path)
        else:
            mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
        hidden.append(path)
    if writable:
        share_tmpfs(writable, cfg["tmp_bytes"], cfg["tmp_files"])
        status["tmpfs"] = writable[0]
    for path, fd in fds.items():
        os.makedirs(path, exist_ok=True)
        mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        os.close(fd)
    for path in cfg["hide"]:  # a secret inside something kept (e.g. a repository inside the venv)
        if os.path.isdir(path) and any(inside(path, k) for k in keeps) and path not in hidden:
            mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
            hidden.append(path)
    status["hidden"] = hidden
    try:
        set_readonly("/", True)
        for path in [cfg["scratch"]] + writable:
            set_readonly(path, False)
        status["readonly_root"] = True
    except OSError as error:
        status["notes"].append(f"file system left writable ({error})")


def become_kernel(cfg, status, status_fd, start_kernel=None):
    """Last steps in the kernel's own process, then exec ipykernel (or ``start_kernel(cfg)``, warm)."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    limits = dict(cfg["rlimits"])
    if start_kernel is not None and "RLIMIT_AS" in limits:
        # A cold kernel's address space starts empty and its imports count against the limit; a warm
        # one already holds the zygote's libraries, so it gets the same room on top of those.
        with open("/proc/self/statm") as statm:
            limits["RLIMIT_AS"] += int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    for name, value in limits.items():
        try:
            resource.setrlimit(getattr(resource, name), (value, value))
        except (ValueError, OSError) as error:
            status["notes"].append(f"{name} not set ({error})")
    drop = cfg.get("drop_to")
    if drop and os.geteuid() == 0 and cfg["isolate"] and not status.get("mount"):
        fallback(cfg, status, status_fd, drop)
    elif drop and os.geteuid() == 0 and status.get("mount") and not status.get("user_namespace"):
        os.setgroups([])
        os.setgid(drop[1])
        os.setuid(drop[0])
        status["uid"] = drop[0]
    if os.geteuid() == 0:
        for cap in range(64):
            if prctl(PR_CAPBSET_DROP, cap) != 0 and ctypes.get_errno() == errno.EINVAL:
                break
        clear_capabilities()
        status["uid"] = os.geteuid()
        status["capabilities_dropped"] = True
    prctl(PR_SET_NO_NEW_PRIVS, 1)  # also what lets an unprivileged process install a seccomp filter
    if cfg["isolate"]:  # after the last setuid; the filter is kept across exec
        install_filter(status, network=not status.get("network"))
    os.chdir(cfg["scratch"])
    os.write(status_fd, json.dumps(status).encode())
    os.close(status_fd)
    if start_kernel is not None:
        start_kernel(cfg)
        os._exit(0)
    os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])


def clear_capabilities():
    """Empty this process's capability sets now. An empty bounding set only takes effect at the next exec;
    a warm kernel never execs, and in a user namespace it would keep every capability there, enough to
    mount a tmpfs of any size or to unmount what hides the grader's files."""
    header = CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    _check(libc.capset(ctypes.byref(header), ctypes.byref((CapData * 2)())), "capset")


def first_for_the_oom_killer(cfg, status):
    """``oom_score_adj`` at the grader's chosen value (the maximum) for the launcher, so for every process
    of the sandbox: when the machine runs out of memory, the kernel's OOM killer ends one of a sandbox's
    processes before any process with a lower score (a grader, the zygote, the rest of the host), whatever
    their sizes. Raising it needs no privilege. Where the launcher has ``CAP_SYS_RESOURCE`` its write also
    sets the floor the kernel's processes cannot go below; elsewhere they may lower it again, and the
    grader's watchdog raises it back (``process.KernelProcess``)."""
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write(str(cfg["oom_score_adj"]))
    except OSError as error:
        status["notes"].append(f"oom_score_adj not raised ({error.strerror})")
        return
    status["oom_score_adj"] = cfg["oom_score_adj"]


REFUSED = 77  # exit status of a kernel the launcher would not start (EX_NOPERM); the status says why


def fallback(cfg, status, status_fd, drop):
    """No mount namespace: drop to the sandbox's uid if its Python is reachable; report what is not held.

    Where that uid cannot reach Python, the kernel does not start: the grader hands the kernel's files
    (the notebook, every test's request) to that uid, so a kernel left as root without capabilities could
    open none of them and every hidden test would fail on correct code, while a root kernel with them
    could read the hidden tests. The status names the folders; the grader refuses to grade
    (``preflight.py``)."""
    uid, gid = drop
    seen = measure_permissions(cfg, uid, gid)
    status["fallback"] = {**seen, "dropped": False}
    if seen["interpreter"]:
        status["refused"] = (
            f"without namespaces the kernel runs as a uid of its own, and uid {uid} cannot reach the Python "
            f"installation ({', '.join(seen['interpreter'])}: every folder on the way needs search "
            "permission for others)"
        )
        os.write(status_fd, json.dumps(status).encode())
        os._exit(REFUSED)
    os.umask(0o077)  # what it writes in shared temporary folders stays its own
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    status["uid"] = uid
    status["fallback"]["dropped"] = True
    # shared temporary folders are writable by every uid; point the kernel's own at its scratch
    cfg["env"]["TMPDIR"] = cfg["scratch"]


WARM_REFUSED = 75  # exit status of a launcher that could not start a warm kernel (EX_TEMPFAIL)


def _exit_code(wait_status):
    """Shell convention: 128 + N when the process was killed by signal N."""
    code = os.waitstatus_to_exitcode(wait_status)
    return 128 - code if code < 0 else code & 0xFF


def mount_private_proc(status):
    """A /proc of the sandbox's PID namespace alone, with hidepid where the kernel has it (``invisible``
    since Linux 5.8, ``2`` before): the kernel's uid then cannot even list init and the launcher (root),
    let alone read their command lines. The host's /proc is never touched."""
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    for options in ("hidepid=invisible", "hidepid=2", None):
        try:
            mount("proc", "/proc", "proc", flags, options)
        except OSError as error:
            if options is None:
                status["notes"].append(f"private /proc not mounted ({error}); other processes stay visible")
            continue
        status["proc"] = True
        status["hidepid"] = options is not None
        return


def run_init(cfg, status, status_fd, start_kernel=None):
    """PID 1 of the sandbox: fresh /proc, then the kernel as its only child."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if status.get("pid") and status.get("mount"):
        mount_private_proc(status)
    kernel = os.fork()
    if kernel == 0:
        try:
            become_kernel(cfg, status, status_fd, start_kernel)
        except BaseException as error:  # noqa: BLE001 - report and leave; nothing else can run here
            os.write(2, f"sandbox launcher: {error!r}\n".encode())
        os._exit(127)
    os.close(status_fd)
    signal.signal(signal.SIGINT, lambda *_: os.kill(kernel, signal.SIGINT))
    signal.signal(signal.SIGTERM, lambda *_: os.kill(kernel, signal.SIGKILL))
    while True:
        try:
            pid, code = os.wait()
        except ChildProcessError:
            os._exit(1)
        except InterruptedError:
            continue
        if pid == kernel:
            os._exit(_exit_code(code))


def bind_warm_scratch(cfg, status):
    """Scratch again at the fixed path the zygote's environment names (a warm start only). A zygote that
    took its kernel's own environment (one submission's, ``zygote.adopt``) names scratch itself: nothing
    to bind, with or without a mount namespace."""
    target = cfg["warm_scratch"]
    if target == cfg["scratch"]:
        return True
    if not status["mount"] or not any(inside(target, p) for p in status["hidden"]):
        status["notes"].append("a warm kernel needs a mount namespace with a private /tmp")
        return False
    try:
        os.makedirs(target, exist_ok=True)
        mount(cfg["scratch"], target, None, MS_BIND)
    except OSError as error:
        status["notes"].append(f"scratch not bound for a warm kernel ({error})")
        return False
    return True


def wait_for(child, lifeline):
    """Wait status of ``child``; with a lifeline, kill it first once the grader has closed its end."""
    if lifeline is not None:
        pidfd = os.pidfd_open(child)
        while True:
            try:
                ready, _, _ = select.select([pidfd, lifeline], [], [])
            except InterruptedError:
                continue
            if lifeline in ready and not os.read(lifeline, 1):
                os.kill(child, signal.SIGKILL)  # init: the whole PID namespace goes with it
                break
            if pidfd in ready:
                break
    while True:
        try:
            return os.waitpid(child, 0)[1]
        except InterruptedError:
            continue


def join_cgroup(cfg, status):
    """Into the sandbox's cgroup (the grader made it, ``cgroups.py``) before anything is forked, so every
    process of the sandbox starts there; ``status["cgroup"]`` says whether it holds them all."""
    files = cfg.get("cgroup_procs") or []
    for path in files:
        try:
            with open(path, "w") as procs:
                procs.write(str(os.getpid()))
        except OSError as error:
            status["notes"].append(f"the sandbox's cgroup could not be joined ({error.strerror})")
            return
    status["cgroup"] = bool(files)


def launch(cfg, lifeline=None, start_kernel=None):
    """Everything above, in this process (the launcher); returns the exit status for the grader."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    status_fd = cfg["status_fd"]
    status = {
        "notes": [],
        "hidden": [],
        "readonly_root": False,
        "proc": False,
        "user_namespace": False,
        "cgroup": False,
    }
    first_for_the_oom_killer(cfg, status)
    join_cgroup(cfg, status)
    got = enter_namespaces(status) if cfg["isolate"] and cfg["namespaces"] else set()
    if not cfg["isolate"]:
        status["notes"].append("isolation switched off by the grader")
    elif not cfg["namespaces"]:
        status["notes"].append("namespaces switched off by the grader (fallback forced)")
    for name in ("mount", "network", "pid", "ipc"):
        status[name] = name in got
    if status["mount"]:
        try:
            hide_and_keep(cfg, status)
        except OSError as error:
            status["notes"].append(f"could not hide files ({error})")
            status["mount"] = False
    if start_kernel is not None:
        status["warm"] = bind_warm_scratch(cfg, status)
        if not status["warm"]:
            os.write(status_fd, json.dumps(status).encode())
            return WARM_REFUSED
    child = os.fork()
    if child == 0:
        if lifeline is not None:
            os.close(lifeline)
        run_init(cfg, status, status_fd, start_kernel)
    os.close(status_fd)
    signal.signal(signal.SIGINT, lambda *_: os.kill(child, signal.SIGINT))
    signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGKILL))
    return _exit_code(wait_for(child, lifeline))


def main():
    """argv[1] is the pipe the grader writes the configuration to (never the configuration itself: every
    uid can read a process's argv where there is no PID namespace)."""
    with os.fdopen(int(sys.argv[1]), "rb") as pipe:
        config = json.loads(pipe.read())
    sys.exit(launch(config))


if __name__ == "__main__":
    main()
