//go:build !linux

package proc

// LimitAddressSpace is Linux-only; elsewhere the watchdog alone bounds a
// worker's memory, with the overshoot of one allocation.
func LimitAddressSpace(int64) {}
