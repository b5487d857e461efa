//go:build unix

package render

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the worker in a process group of its own, so that
// killGroup reaches what it starts (git, which krusty runs for a remote
// base under --fetch) and no child outlives the run or a render's timeout.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
}

// killGroup kills every process of the worker's group (the worker itself
// included, when it still runs).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
