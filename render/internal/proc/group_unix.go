//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// OwnGroup starts the worker in a process group of its own, so that
// KillGroup reaches what it starts (git, which krusty runs for a remote
// base under --fetch) and no child outlives the run or a render's timeout.
func OwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
}

// KillGroup kills every process of the worker's group (the worker itself
// included, when it still runs).
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
