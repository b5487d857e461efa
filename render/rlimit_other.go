//go:build !linux

package render

// limitAddressSpace is Linux-only; elsewhere the watchdog alone bounds a
// worker's memory, with the overshoot of one allocation.
func limitAddressSpace(int64) {}
