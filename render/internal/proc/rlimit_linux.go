package proc

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// LimitAddressSpace caps the worker's virtual memory at what it maps now
// plus budget. The watchdog alone overshoots: one template step can
// allocate hundreds of MiB between two of its looks, while the kernel
// refuses the mapping itself, so resident memory never passes the cap and
// the runtime dies with "out of memory" instead.
func LimitAddressSpace(budget int64) {
	now := mappedBytes()
	if now <= 0 {
		return
	}
	limit := uint64(now + budget)
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit})
}

// mappedBytes is the process's current virtual size (VmSize).
func mappedBytes() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
