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

// ChildrenCPUTime is the user + system CPU time of the child processes
// this one has waited for (render workers, once their pool is closed), and
// the largest resident set any of them reached, in bytes.
func ChildrenCPUTime() (time.Duration, int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), int64(ru.Maxrss) << 10
}
