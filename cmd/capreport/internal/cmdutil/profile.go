package cmdutil

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/capreport/capreport/render"
)

// profileModes are what --profile records, as kubectl's flag of the same
// name: a CPU profile over the whole command, or the heap at its end.
var profileModes = []string{"none", "cpu", "heap"}

// Profiler records the profile --profile asks for into --profile-output.
type Profiler struct {
	Mode, Output string
	cpuFile      *os.File
}

// Start begins a CPU profile; the heap is written by stop.
func (p *Profiler) Start() error {
	if err := CheckValue("profile", p.Mode, profileModes...); err != nil {
		return err
	}
	if p.Mode == "none" {
		return nil
	}
	// The renders run in worker processes, which inherit this.
	if err := os.Setenv(render.WorkerProfileEnv, p.Mode+":"+p.Output+".worker"); err != nil {
		return err
	}
	if p.Mode != "cpu" {
		return nil
	}
	f, err := os.Create(p.Output)
	if err != nil {
		return fmt.Errorf("--profile-output: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--profile cpu: %w", err)
	}
	p.cpuFile = f
	return nil
}

// Stop ends the CPU profile or writes the heap profile (after a GC, so it
// shows what is live at the end of the command).
func (p *Profiler) Stop() error {
	if p.Mode != "none" {
		_ = os.Unsetenv(render.WorkerProfileEnv) // workers started later are not profiled
	}
	switch {
	case p.cpuFile != nil:
		pprof.StopCPUProfile()
		err := p.cpuFile.Close()
		p.cpuFile = nil
		return err
	case p.Mode == "heap":
		f, err := os.Create(p.Output)
		if err != nil {
			return fmt.Errorf("--profile-output: %w", err)
		}
		runtime.GC()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}
