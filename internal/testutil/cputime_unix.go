//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime is the process's user + system CPU time, for benchmarks that
// report how many cores a run kept busy.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
