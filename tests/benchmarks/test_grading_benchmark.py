"""The grading benchmark's instruments measure what they claim (assignments/platforms/container_limits.py, tree_memory.py):
a process's memory is seen at its peak, a CPU quota really holds a busy process to its share, and a
memory limit really ends a process that goes past it. Each check runs a small Python child for about a
second; the cgroup checks need root on Linux and are skipped elsewhere with the reason (failed instead with
COURSE_REQUIRE_ISOLATION=1, as in CI).
"""

import subprocess
import sys
import time

from assignments.course import REPO

BENCHMARKS = REPO / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import tree_memory  # noqa: E402

from assignments.platforms import container_limits  # noqa: E402
from tests.helpers import needs_isolation  # noqa: E402

MB = 2**20
# Holds 200 MB of anonymous memory (written, so resident) for a second, then exits.
HOLD_200_MB = (
    "import time; block = bytearray(200 * 2 ** 20); block[::4096] = b'x' * len(block[::4096]); time.sleep(1.0)"
)
BUSY = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"
NO_CGROUP = container_limits.unavailable()


def test_sampler_sees_a_child_holding_200_mb_as_anonymous_memory():
    child = subprocess.Popen([sys.executable, "-c", HOLD_200_MB])
    with tree_memory.Sampler(tree_memory.descendants(child.pid), interval=0.05) as sampler:
        child.wait(timeout=60)
    peak = {key: value / MB for key, value in sampler.peak.items()}
    assert 200 <= peak["anonymous"] < 400, f"the child held 200 MB of anonymous memory; sampled {peak}"
    assert peak["unique"] >= peak["anonymous"] and peak["rss"] >= peak["anonymous"], (
        f"every page counted once (unique) and RSS include the anonymous memory; sampled {peak}"
    )


@needs_isolation(NO_CGROUP and f"no cgroup here: {NO_CGROUP}")
def test_a_quarter_cpu_quota_holds_a_busy_loop_to_a_quarter_of_its_wall_time():
    with container_limits.Cgroup(cpu=0.25) as group:
        began = time.monotonic()
        group.popen([sys.executable, "-c", BUSY.format(seconds=2.0)]).wait(timeout=60)
        wall = time.monotonic() - began
        used = group.cpu_seconds()
        periods, throttled = group.throttling()
    # The loop spins until 2 s of wall time have passed; at a quarter CPU it gets about 0.5 s of them
    # (plus Python's start, also throttled). Without the quota it would use about 2 s.
    assert used < 0.4 * wall, f"at 0.25 CPU the group used {used:.2f} s of CPU in {wall:.2f} s of wall time"
    assert throttled > 0, f"the group should have run out of quota in some of its {periods} periods"


@needs_isolation(NO_CGROUP and f"no cgroup here: {NO_CGROUP}")
def test_a_memory_limit_ends_a_process_that_goes_past_it_and_the_peak_is_kept():
    with container_limits.Cgroup(memory_mb=100) as group:
        code = group.popen([sys.executable, "-c", HOLD_200_MB]).wait(timeout=60)
        kills, peak = group.oom_kills(), group.peak_bytes() / MB
    assert code != 0 and kills >= 1, (
        f"a child holding 200 MB under a 100 MB limit should be OOM-killed (exit code {code}, OOM kills {kills})"
    )
    assert 50 < peak <= 101, f"the group's peak should reach its 100 MB limit, not pass it; it is {peak:.0f} MB"
    with container_limits.Cgroup() as group:
        assert group.popen([sys.executable, "-c", HOLD_200_MB]).wait(timeout=60) == 0
        assert group.peak_bytes() / MB >= 200, "without a limit the group's peak holds the child's 200 MB"
