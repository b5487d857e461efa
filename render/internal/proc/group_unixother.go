//go:build unix && !linux

package proc

import "syscall"

// setDeathSignal: only Linux has a parent-death signal.
func setDeathSignal(*syscall.SysProcAttr) {}
