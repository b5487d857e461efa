package proc

import "syscall"

// setDeathSignal has the kernel kill the worker when capreport dies, even
// by SIGKILL, when no deferred cleanup runs.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
