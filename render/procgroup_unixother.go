//go:build unix && !linux

package render

import "syscall"

// setDeathSignal: only Linux has a parent-death signal.
func setDeathSignal(*syscall.SysProcAttr) {}
